"""Run every performance benchmark and print one table.

    python tests/perf/run_all.py [--quick] [--only sandbox,replay,sweep,checkpoints]
                                 [--sweep-cells N] [--scaling 32,64,...] [--sweep-rounds R]
                                 [--checkpoint-tasks T,T,...]

Runs, one after another (never concurrently, so they do not disturb each other):
  bench_sandbox.py  DockerBackend vs `docker run` vs compose, at 1 and 32 (quick: 8)
  bench_replay.py   verifier vs bare Playwright per state
  bench_sweep.py    orchestration overhead, event-loop lag, RSS, scaling, asyncio vs uvloop
  bench_checkpoints.py  staged reference cells with --replay full / states / reuse side by
                    side: CPU-s per cell (own cgroups), ratios, verdicts identical (5 tasks)
Each writes tests/perf/results/<name>.json; this script then prints a summary table
built from those files. Results and how to read them: tests/perf/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
# Five shipped tasks, every stack (static x2, node, php, vite); every task: '*'.
CHECKPOINT_TASKS = (
    "fernhill-save-tools,bikeshare-faq-content,recipes-shared-components,"
    "library-events-tokens,plantcare-mobile-nav"
)


def _run(argv: list[str]) -> int:
    print(f"$ {' '.join(argv)}", file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    rc = subprocess.call([sys.executable, *argv], cwd=HERE.parents[1])
    print(f"  ({time.perf_counter() - t0:.0f} s, exit {rc})", file=sys.stderr, flush=True)
    return rc


def _load(name: str) -> dict[str, Any] | None:
    p = RESULTS / f"{name}.json"
    return json.loads(p.read_text()) if p.exists() else None


def _row(rows: list[list[str]], *cells: object) -> None:
    rows.append([str(c) for c in cells])


def table() -> str:
    rows: list[list[str]] = [["bench", "case", "ours", "baseline", "ratio", "target", "ok"]]
    sb = _load("sandbox")
    if sb:
        for key in sorted(k for k in sb if k.startswith("k") and k[1:].isdigit()):
            r = sb[key]
            m = r["median_wall_s"]
            ok = r["ratio_ours_vs_cli"] <= 1.0
            _row(
                rows,
                "sandbox",
                f"x{r['concurrent']} vs hardened docker run",
                f"{m['ours']:.2f}s",
                f"{m['cli']:.2f}s",
                f"{r['ratio_ours_vs_cli']:.2f}",
                "<=1.0",
                "yes" if ok else "NO",
            )
            if "cli-bare" in m:
                _row(
                    rows,
                    "sandbox",
                    f"x{r['concurrent']} vs bare docker run",
                    f"{m['ours']:.2f}s",
                    f"{m['cli-bare']:.2f}s",
                    f"{r['ratio_ours_vs_cli_bare']:.2f}",
                    "(info)",
                    "-",
                )
            if r.get("ratio_ours_vs_compose") is not None:
                ok = r["ratio_ours_vs_compose"] <= 0.5
                _row(
                    rows,
                    "sandbox",
                    f"x{r['concurrent']} vs compose",
                    f"{m['ours']:.2f}s",
                    f"{m['compose']:.2f}s",
                    f"{r['ratio_ours_vs_compose']:.2f}",
                    "<=0.5",
                    "yes" if ok else "NO",
                )
    rp = _load("replay")
    if rp and "contenders" in rp:
        now, bare = rp["contenders"]["now"], rp["contenders"]["bare"]
        _row(
            rows,
            "replay",
            "per state vs Playwright (every rule on)",
            f"{now['wall_median_s']:.3f}s",
            f"{bare['wall_median_s']:.3f}s",
            f"{now['wall_vs_bare']:.2f}",
            "<=1.5",
            "yes" if now["wall_vs_bare"] <= 1.5 else "NO",
        )
    sw = _load("sweep")
    if sw:
        for s in sw["main"] + sw["scaling"]:
            case = f"N={s['cells']} C={s['concurrency']} {s['loop']}"
            _row(
                rows,
                "sweep wall",
                case,
                f"{s['wall_median_s']:.1f}s",
                f"ideal {s['ideal_s']:.1f}s",
                f"{s['wall_vs_ideal']:.2f}",
                "-",
                "-",
            )
        for s in sw["main"]:
            case = f"N={s['cells']} C={s['concurrency']} {s['loop']}"
            ok = s["lag_p99_ms"] <= 50
            _row(
                rows,
                "loop lag p50/p99",
                case,
                f"{s['lag_p50_ms']}/{s['lag_p99_ms']}ms",
                "",
                "",
                "p99<=50ms",
                "yes" if ok else "NO",
            )
            _row(
                rows,
                "peak RSS",
                case,
                f"{s['peak_rss_mb']}MB",
                "",
                "",
                "<=500MB",
                "yes" if s["peak_rss_mb"] <= 500 else "NO",
            )
        for conc, c in sw.get("asyncio_vs_uvloop", {}).items():
            _row(
                rows,
                "uvloop",
                f"{conc} wall",
                f"{c['uvloop_wall_s']:.1f}s",
                f"asyncio {c['asyncio_wall_s']:.1f}s",
                f"{c['uvloop_vs_asyncio_wall']:.2f}",
                "-",
                "-",
            )
    cp = _load("checkpoints")
    if cp and "summary" in cp and isinstance(cp["summary"].get("ratio_cpu"), dict):
        sm = cp["summary"]
        per = sm["cpu_per_cell"]
        for mode in [m for m in ("states", "reuse") if m in per]:
            ok = sm["ratio_cpu"][mode] <= 0.33 and sm["identical_verdicts"]
            _row(
                rows,
                "checkpoints",
                f"{sm['cells']} cells --replay {mode} vs full",
                f"{per[mode]:.1f} CPU-s",
                f"{per['full']:.1f} CPU-s",
                f"{sm['ratio_cpu'][mode]:.2f}",
                "<=0.33, same verdicts",
                "yes" if ok else "NO",
            )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)) for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", default="sandbox,replay,sweep,checkpoints")
    parser.add_argument("--checkpoint-tasks", default=CHECKPOINT_TASKS, help="'*': every task")
    parser.add_argument("--sweep-cells", type=int, default=None)
    parser.add_argument("--scaling", default=None)
    parser.add_argument("--sweep-rounds", type=int, default=None, help="rounds of the loop pair")
    parser.add_argument("--table-only", action="store_true", help="print the table from results/")
    args = parser.parse_args()
    if not args.table_only:
        only = set(args.only.split(","))
        q = ["--quick"] if args.quick else []
        rcs = []
        if "sandbox" in only:
            rcs.append(_run(["tests/perf/bench_sandbox.py", *q]))
        if "replay" in only:
            rcs.append(
                _run(["tests/perf/bench_replay.py", "--rounds", "5" if args.quick else "15"])
            )
        if "sweep" in only:
            extra = [*q]
            if args.sweep_cells:
                extra += ["--cells", str(args.sweep_cells)]
            if args.scaling:
                extra += ["--scaling", args.scaling]
            if args.sweep_rounds:
                extra += ["--rounds", str(args.sweep_rounds)]
            rcs.append(_run(["tests/perf/bench_sweep.py", *extra]))
        if "checkpoints" in only:
            tasks = (
                []
                if args.checkpoint_tasks == "*"
                else ["--tasks", *args.checkpoint_tasks.split(",")]
            )
            rcs.append(_run(["tests/perf/bench_checkpoints.py", *tasks]))
        if any(rcs):
            print("some benchmark failed; the table shows what was written", file=sys.stderr)
    print(table())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
