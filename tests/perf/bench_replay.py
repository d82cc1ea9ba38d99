"""Per-state replay cost: the verifier vs a bare Playwright script, side by side.

Run: `python tests/perf/bench_replay.py [--rounds N]`. Both sides drive the same page
(fresh context, goto, one click, screenshot) in the same browser, interleaved round by
round so machine noise hits both alike. The verifier side is `verify()` on a one-state
contract with one authored check (health gates included), without the accessibility
snapshot, then with it (axe-core, the focus walk, form state, live regions: what a
full-suite run adds per state, #44). Prints medians, the ratio (target <= 1.3, without)
and the accessibility snapshot's cost, and writes `tests/perf/results/replay.json`.
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import sys
import tempfile
import threading
import time
from http.server import ThreadingHTTPServer
from pathlib import Path

import anyio
import msgspec

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from orchestrator.contract import Contract, TaskPackage, Viewport  # noqa: E402
from orchestrator.verifier import BrowserPool, BrowserSession, verify  # noqa: E402
from tests.verifier.conftest import SITE, _QuietHandler  # noqa: E402

VIEWPORT = Viewport(width=1280, height=800)
RESULTS = ROOT / "tests" / "perf" / "results" / "replay.json"


def _task(root: Path) -> TaskPackage:
    raw = {
        "id": "bench",
        "regime": "change",
        "capability": "edit",
        "facet": "state",
        "stack": "static",
        "framework": "html",
        "allowed_paths": ["**"],
        "serve": {"start": "true"},
        "states": [
            {
                "id": "red",
                "route": "/shop.html",
                "actions": [{"do": "click", "selector": "#chip-red"}],
            }
        ],
        "checks": [
            {
                "id": "filtered",
                "gate": "interaction",
                "state": "red",
                "assert": {"kind": "text_equals", "selector": "#result", "value": "2 items"},
                "describe": "filtered",
            }
        ],
        "units": [{"id": "u1", "request": "r", "checks": ["filtered"]}],
    }
    return TaskPackage(root=root, contract=msgspec.convert(raw, Contract), contract_hash="b")


async def _bare(session: BrowserSession, url: str, shot: Path) -> None:
    page = session.page
    await page.goto(url + "/shop.html", wait_until="load")
    await page.locator("#chip-red").click()
    await page.screenshot(path=shot)


async def _main(rounds: int) -> dict[str, object]:
    handler = functools.partial(_QuietHandler, directory=str(SITE))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    bare: list[float] = []
    ours: list[float] = []
    with_a11y: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        task, art = _task(Path(tmp)), Path(tmp) / "art"
        # One state at a time: we measure per-state cost, not throughput.
        async with BrowserPool(max_contexts=1) as pool:
            for i in range(rounds + 2):
                t = time.perf_counter()
                job = functools.partial(_bare, url=url, shot=Path(tmp) / "bare.png")
                await pool.run(url, VIEWPORT, job)
                t_bare = time.perf_counter() - t
                t = time.perf_counter()
                report = await verify(pool, task, url, artifacts=art, a11y=False)
                t_ours = time.perf_counter() - t
                assert report.check("filtered") is not None and not report.a11y
                t = time.perf_counter()
                report = await verify(pool, task, url, artifacts=art, a11y=True)
                t_a11y = time.perf_counter() - t
                assert report.a11y["red"].passes
                if i >= 2:  # warm-up rounds are dropped
                    bare.append(t_bare)
                    ours.append(t_ours)
                    with_a11y.append(t_a11y)
        server.shutdown()
    med_bare, med_ours = statistics.median(bare), statistics.median(ours)
    med_a11y = statistics.median(with_a11y)
    return {
        "rounds": rounds,
        "bare_median_s": round(med_bare, 4),
        "verifier_median_s": round(med_ours, 4),
        "ratio": round(med_ours / med_bare, 3),
        "target_ratio": 1.3,
        "verifier_a11y_median_s": round(med_a11y, 4),
        "a11y_cost_s": round(med_a11y - med_ours, 4),
        "bare_s": [round(x, 4) for x in bare],
        "verifier_s": [round(x, 4) for x in ours],
        "verifier_a11y_s": [round(x, 4) for x in with_a11y],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    result = anyio.run(_main, args.rounds, backend="asyncio")
    print(f"bare playwright   median {result['bare_median_s']:.3f} s/state")
    print(f"verifier (verify) median {result['verifier_median_s']:.3f} s/state")
    print(f"ratio {result['ratio']:.2f} (target <= 1.3)")
    print(
        f"verifier + a11y   median {result['verifier_a11y_median_s']:.3f} s/state"
        f" (accessibility snapshot +{result['a11y_cost_s']:.3f} s)"
    )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
