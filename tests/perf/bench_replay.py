"""Per-state replay cost, side by side in one run: a bare Playwright script, the verifier
now, and the verifier of an earlier commit (default 8b14758, before #51).

Run: `python tests/perf/bench_replay.py [--rounds N] [--against REV] [--decompose]`.

Each contender is a long-lived child process with its own browser, driven round by round
(the order rotated each round, so drift hits every contender alike); `REV`'s code runs
from a git worktree of that commit (made under /tmp when missing). Each round a contender
replays the same page (goto `/shop.html`, click a chip, screenshot) served by one
`http.server`:

- `bare`: a bare Playwright script (fresh context, goto, click, screenshot), the yardstick;
- `now`, `<REV>`: `verify()` on a one-state contract with one authored unit check (health
  gates and the keyboard replay of the clicked state included) with every rule on (the
  accessibility snapshot: axe-core, the focus walk, form state, live regions: what a
  full-suite checkpoint takes per state), in the pool each commit's sweep uses by default;
- `now 1 slot`: the same with the pool held to one state at a time;
- with `--decompose`, where the rest of `now`'s wall goes (measurement aids, never a
  shipped configuration): `no a11y` (no accessibility snapshot), `no windows`
  (`ReplayOptions(quiet_ms=0)`: no quiet window after the load or the action), and
  `neither`.

Per contender: the median wall per state, and the host's busy CPU-seconds during it
(`/proc/stat`; the machine should be otherwise idle). Ratios are to `bare` and to `REV`,
pair by pair within a round. Writes `tests/perf/results/replay.json`.
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "tests" / "perf" / "results" / "replay.json"
SITE = ROOT / "tests" / "verifier" / "sites" / "site"


def _busy_ticks() -> int:
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    n = [int(x) for x in fields] + [0] * 8
    return n[0] + n[1] + n[2] + n[5] + n[6]  # user nice system irq softirq


def _contract_raw() -> dict[str, Any]:
    return {
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


async def _child(tree: Path, kind: str, url: str, slots: int, aid: str = "") -> None:
    """One contender: read a line per round, answer with its (wall, busy ticks) as JSON."""
    sys.path.insert(0, str(tree))
    import anyio
    import msgspec

    from orchestrator.contract import Contract, TaskPackage, Viewport
    from orchestrator.verifier import BrowserPool, ReplayOptions, verify

    a11y = aid not in ("no-a11y", "neither")
    options = ReplayOptions(quiet_ms=0) if aid in ("no-windows", "neither") else ReplayOptions()

    with tempfile.TemporaryDirectory() as tmp:
        task = TaskPackage(
            root=Path(tmp), contract=msgspec.convert(_contract_raw(), Contract), contract_hash="b"
        )
        art = Path(tmp) / "art"

        async def bare(session: Any) -> None:
            page = session.page
            await page.goto(url + "/shop.html", wait_until="load")
            await page.locator("#chip-red").click()
            await page.screenshot(path=Path(tmp) / "bare.png")

        async with BrowserPool(max_contexts=slots or None) as pool:
            stdin = anyio.wrap_file(sys.stdin)
            while line := (await stdin.readline()).strip():
                if line != "round":
                    break
                ticks, t = _busy_ticks(), time.perf_counter()
                if kind == "bare":
                    await pool.run(url, Viewport(width=1280, height=800), bare)
                else:
                    report = await verify(
                        pool, task, url, artifacts=art, a11y=a11y, options=options
                    )
                    assert report.check("filtered") is not None
                    assert report.check("filtered").passed  # type: ignore[union-attr]
                wall = time.perf_counter() - t
                print(json.dumps({"wall": wall, "ticks": _busy_ticks() - ticks}), flush=True)


def _worktree(rev: str) -> Path:
    sha = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", rev],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    tree = Path(tempfile.gettempdir()) / f"pwb-bench-{sha}"
    if not (tree / "orchestrator").is_dir():
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), sha],
            check=True,
            capture_output=True,
        )
    return tree


def _serve() -> tuple[ThreadingHTTPServer, str]:
    sys.path.insert(0, str(ROOT))
    from tests.verifier.conftest import _QuietHandler

    handler = functools.partial(_QuietHandler, directory=str(SITE))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def _spawn(tree: Path, kind: str, url: str, slots: int, aid: str = "") -> subprocess.Popen[str]:
    cmd = [sys.executable, __file__, "--child", kind, "--tree", str(tree), "--url", url]
    cmd += ["--slots", str(slots), "--aid", aid]
    return subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def _round(proc: subprocess.Popen[str]) -> dict[str, float]:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("round\n")
    proc.stdin.flush()
    out: dict[str, float] = json.loads(proc.stdout.readline())
    return out


AIDS = {"no a11y": "no-a11y", "no windows": "no-windows", "neither": "neither"}


def _run(rounds: int, rev: str, decompose: bool = False) -> dict[str, Any]:
    old = _worktree(rev)
    server, url = _serve()
    names = ["bare", "now", "now 1 slot", rev]
    procs = {
        "bare": _spawn(ROOT, "bare", url, 1),
        "now": _spawn(ROOT, "verify", url, 0),
        "now 1 slot": _spawn(ROOT, "verify", url, 1),
        rev: _spawn(old, "verify", url, 0),
    }
    if decompose:
        names += list(AIDS)
        procs |= {name: _spawn(ROOT, "verify", url, 0, aid) for name, aid in AIDS.items()}
    got: dict[str, list[dict[str, float]]] = {n: [] for n in names}
    try:
        for i in range(rounds + 2):
            order = names[i % len(names) :] + names[: i % len(names)]
            for name in order:
                sample = _round(procs[name])
                if i >= 2:  # warm-up rounds dropped
                    got[name].append(sample)
    finally:
        for p in procs.values():
            assert p.stdin is not None
            p.stdin.close()
            p.wait(timeout=60)
        server.shutdown()
    return _summary(got, names, rev)


def _summary(got: dict[str, list[dict[str, float]]], names: list[str], rev: str) -> dict[str, Any]:
    hz = 100.0  # USER_HZ
    out: dict[str, Any] = {"rounds": len(got["bare"]), "against": rev, "contenders": {}}
    for name in names:
        walls = [s["wall"] for s in got[name]]
        cpus = [s["ticks"] / hz for s in got[name]]
        pair_bare = [a["wall"] / b["wall"] for a, b in zip(got[name], got["bare"], strict=True)]
        pair_old = [a["wall"] / b["wall"] for a, b in zip(got[name], got[rev], strict=True)]
        out["contenders"][name] = {
            "wall_median_s": round(statistics.median(walls), 4),
            "cpu_median_s": round(statistics.median(cpus), 3),
            "wall_vs_bare": round(statistics.median(pair_bare), 3),
            "wall_vs_" + rev: round(statistics.median(pair_old), 3),
            "wall_s": [round(w, 4) for w in walls],
        }
    return out


def _print(result: dict[str, Any]) -> None:
    rev = result["against"]
    print(f"{'contender':<12} {'wall/state':>10} {'cpu/state':>10} {'÷ bare':>8} {'÷ ' + rev:>10}")
    for name, c in result["contenders"].items():
        print(
            f"{name:<12} {c['wall_median_s']:>9.3f}s {c['cpu_median_s']:>9.2f}s"
            f" {c['wall_vs_bare']:>8.2f} {c['wall_vs_' + rev]:>10.2f}"
        )
    print("target: `now` <= 1.5 x bare, every rule on (#51)")
    if "neither" in result["contenders"]:
        print("no a11y / no windows / neither: measurement aids (what the rules and windows cost)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--against", default="8b14758")
    parser.add_argument("--child", choices=("bare", "verify"))
    parser.add_argument("--tree", type=Path, default=ROOT)
    parser.add_argument("--url", default="")
    parser.add_argument("--slots", type=int, default=0)
    parser.add_argument("--aid", default="", choices=("", *AIDS.values()))
    parser.add_argument("--decompose", action="store_true", help="add the measurement aids")
    args = parser.parse_args()
    if args.child:
        import anyio

        anyio.run(_child, args.tree, args.child, args.url, args.slots, args.aid, backend="asyncio")
        return 0
    result = _run(args.rounds, args.against, args.decompose)
    head = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    result["commit"] = head
    _print(result)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
