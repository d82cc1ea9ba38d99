"""Orchestration overhead of a sweep, and asyncio vs asyncio + uvloop.

Run: `python tests/perf/bench_sweep.py [--quick] [--cells N] [--loops asyncio,uvloop]`.

Every measured sweep runs in a fresh child process (`--worker`), so peak RSS, CPU time
(self + reaped children: the Playwright driver, Chromium, the http.server of each cell)
and the event loop are that sweep's alone. The workload is N cells of a 1-unit variant
of the tiny static task (`_common.make_one_unit_task`, same contract format) with the
`fake` LLM provider answering every request after `fake_latency_s = 2.0` and the LOCAL
sandbox backend (no Docker), so what is measured is the orchestrator: scheduling,
workspaces, checkpoints, the browser pool and the provider client. A cell makes two LLM
requests (write_file, done), one unit checkpoint (serve + verify 1 state) and a final
checkpoint (2 states), so its critical path is ~4 s of LLM wait plus browser work.

Ideal wall time of N cells at concurrency C (formula reported with the numbers):

    ideal = fixed + max( ceil(N / C) * T_cell ,  N * W / cores )

- T_cell: the critical path of one cell alone (its manifest `wall_s`, N=1, C=1);
- W: CPU seconds of work per cell, the slope of the host's busy CPU time (/proc/stat:
  the orchestrator, Chromium and its renderers, the Playwright driver, each cell's
  server, git, the kernel's share) between two latency-0 sweeps of different N (so
  one-off costs cancel). This needs an otherwise idle host;
- fixed: wall of the N=1 sweep minus T_cell (browser launch, provider start, manifest);
- cores: `os.cpu_count()`. On a shared machine we get less than that; the achieved
  CPU share (host CPU-s / wall) is reported next to every run so this is visible.

Also per run: event-loop lag (a task sleeping 10 ms in a loop records the overshoot;
p50/p99/max), orchestrator peak RSS (`ru_maxrss` of the worker, plus sampled VmRSS),
status counts. Runs of the contenders (loops) are interleaved round by round.
Writes `tests/perf/results/sweep.json`.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.perf._common import LoadSampler, host_busy_cpu_s, machine, median, pct, write_result

ROOT = Path(__file__).resolve().parents[2]

BENCH = """
[sweep]
name = "perf"
runs_dir = "{runs}"
tasks_dir = "{tasks}"
arms = ["staged"]
repeats = {cells}
concurrency = {concurrency}
backend = "local"
baseline = false
browser_contexts = {contexts}
cell_timeout_s = 3600
infra_retries = 2

[[providers]]
name = "fake"
kind = "fake"
model = "scripted"
fake_latency_s = {latency}
max_connections = 1024
read_timeout_s = 600

[[solvers]]
name = "fake-llm"
kind = "llm"
provider = "fake"
"""


# ================================================================ worker (child process)
def _vmrss_kb() -> int:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _cpu() -> float:
    s = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


async def _worker_main(args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    import anyio

    from orchestrator.config import load_config
    from orchestrator.sweep import SweepOptions, run_sweep
    from tests.perf._common import make_one_unit_task

    tasks = tmp / "tasks"
    make_one_unit_task(tasks)
    cfg_path = tmp / "bench.toml"
    cfg_path.write_text(
        BENCH.format(
            runs=tmp / "runs",
            tasks=tasks,
            cells=args.cells,
            concurrency=args.concurrency,
            contexts=args.contexts,
            latency=args.latency,
        )
    )
    cfg = load_config(cfg_path)
    lags: list[float] = []
    rss: list[int] = []
    done = anyio.Event()

    async def monitor() -> None:
        n = 0
        while not done.is_set():
            t = time.perf_counter()
            await anyio.sleep(0.010)
            lags.append(time.perf_counter() - t - 0.010)
            n += 1
            if n % 25 == 0:
                rss.append(_vmrss_kb())

    self0 = resource.getrusage(resource.RUSAGE_SELF)
    cpu0, host0, t0 = _cpu(), host_busy_cpu_s(), time.perf_counter()
    rows: list[Any] = []
    async with anyio.create_task_group() as tg:
        tg.start_soon(monitor)
        rows = (await run_sweep(cfg, SweepOptions(run_dir=tmp / "run", progress="quiet"))).rows
        done.set()
    wall = time.perf_counter() - t0
    cpu = _cpu() - cpu0
    host_cpu = host_busy_cpu_s() - host0
    self1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu_self = (self1.ru_utime + self1.ru_stime) - (self0.ru_utime + self0.ru_stime)
    statuses = Counter(r.status for r in rows)
    cell_walls = [r.wall_s for r in rows if r.status == "ok"]
    errors = sorted({(r.error or "")[:200] for r in rows if r.status != "ok"})[:3]
    return {
        "cells": args.cells,
        "concurrency": args.concurrency,
        "loop": args.loop,
        "latency_s": args.latency,
        "wall_s": round(wall, 3),
        "host_cpu_s": round(host_cpu, 3),  # whole host: needs an otherwise idle machine
        "cpu_tree_s": round(cpu, 3),  # self + reaped children (misses Chromium's renderers)
        "cpu_self_s": round(cpu_self, 3),  # the orchestrator process alone (all threads)
        "cpu_share": round(host_cpu / wall, 3) if wall else 0.0,
        "statuses": dict(statuses),
        "errors": errors,
        "cell_wall_median_s": round(median(cell_walls), 3) if cell_walls else None,
        "cell_wall_max_s": round(max(cell_walls), 3) if cell_walls else None,
        "lag_ms": {
            "samples": len(lags),
            "p50": round(pct(lags, 50) * 1000, 2),
            "p99": round(pct(lags, 99) * 1000, 2),
            "max": round(max(lags) * 1000, 2) if lags else None,
        },
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "sampled_rss_max_mb": round(max(rss) / 1024, 1) if rss else None,
    }


def worker(args: argparse.Namespace) -> int:
    import logging

    import anyio

    logging.disable(logging.WARNING)  # the local backend's "does not isolate" warning
    with tempfile.TemporaryDirectory(prefix="pwb-perf-sweep-") as tmp:
        opts = {"use_uvloop": True} if args.loop == "uvloop" else {}
        res = anyio.run(_worker_main, args, Path(tmp), backend="asyncio", backend_options=opts)
    print("RESULT " + json.dumps(res))
    return 0


# ================================================================ driver (parent)
def run_one(
    cells: int, concurrency: int, loop: str = "asyncio", latency: float = 2.0, contexts: int = 2
) -> dict[str, Any]:
    argv = [
        sys.executable, __file__, "--worker", "--cells", str(cells),
        "--concurrency", str(concurrency), "--loop", loop, "--latency", str(latency),
        "--contexts", str(contexts),
    ]  # fmt: skip
    t0 = time.perf_counter()
    load0 = os.getloadavg()[0]
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT)
    lines = [x for x in proc.stdout.splitlines() if x.startswith("RESULT ")]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"worker failed ({proc.returncode}): {proc.stderr[-3000:]}")
    res: dict[str, Any] = json.loads(lines[-1][7:])
    res["loadavg_1m"] = [round(load0, 1), round(os.getloadavg()[0], 1)]
    print(
        f"  N={cells:<4} C={concurrency:<4} {loop:<8} lat={latency:g}  wall {res['wall_s']:7.1f} s"
        f"  cpu {res['host_cpu_s']:6.1f} s (ours {res['cpu_self_s']:5.1f})  lag p99 {res['lag_ms']['p99']:6.1f} ms"
        f"  rss {res['peak_rss_mb']:6.1f} MB  {res['statuses']}"
        f"  (driver {time.perf_counter() - t0:.0f} s)",
        file=sys.stderr,
        flush=True,
    )
    return res


def calibrate(quick: bool) -> dict[str, Any]:
    """T_cell (N=1 at 2 s latency), W (CPU slope between two latency-0 sweeps), fixed."""
    singles = [run_one(1, 1) for _ in range(2 if quick else 3)]
    t_cell = median([s["cell_wall_median_s"] for s in singles])
    fixed = median([s["wall_s"] - s["cell_wall_median_s"] for s in singles])
    lo, hi = (2, 10) if quick else (4, 24)
    a = run_one(lo, lo, latency=0.0)
    b = run_one(hi, hi, latency=0.0)
    w = max((b["host_cpu_s"] - a["host_cpu_s"]) / (hi - lo), 0.0)
    return {
        "t_cell_s": round(t_cell, 3),
        "fixed_s": round(fixed, 3),
        "cpu_per_cell_s": round(w, 3),
        "cpu_fixed_s": round(a["host_cpu_s"] - w * lo, 3),
        "orchestrator_cpu_per_cell_s": round((b["cpu_self_s"] - a["cpu_self_s"]) / (hi - lo), 3),
        "singles": singles,
        "cpu_runs": [a, b],
    }


def ideal(cal: dict[str, Any], cells: int, concurrency: int) -> dict[str, float]:
    cores = os.cpu_count() or 1
    latency_bound = math.ceil(cells / concurrency) * cal["t_cell_s"]
    cpu_bound = cells * cal["cpu_per_cell_s"] / cores
    return {
        "latency_bound_s": round(latency_bound, 2),
        "cpu_bound_s": round(cpu_bound, 2),
        "ideal_s": round(cal["fixed_s"] + max(latency_bound, cpu_bound), 2),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--cells", type=int, default=None)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--loop", default="asyncio")
    parser.add_argument("--loops", default="asyncio,uvloop")
    parser.add_argument("--latency", type=float, default=2.0)
    parser.add_argument("--contexts", type=int, default=2)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int, default=None, help="rounds of the loop pair")
    parser.add_argument("--scaling", default=None, help="cell counts, e.g. 32,64,128,256")
    args = parser.parse_args()
    if args.worker:
        return worker(args)

    n = args.cells or (64 if args.quick else 256)
    rounds = args.rounds or (1 if args.quick else 2)
    loops = [x for x in args.loops.split(",") if x]
    scaling = [
        int(x) for x in (args.scaling or ("32,64" if args.quick else "32,64,128,256")).split(",")
    ]
    info = machine()
    t_start = time.perf_counter()
    with LoadSampler() as load:
        print("calibration (N=1 at 2 s; CPU slope at latency 0)", file=sys.stderr)
        cal = calibrate(args.quick)
        # Main points: N cells at C=64 and C=256 for each loop, interleaved per round.
        main_runs: list[dict[str, Any]] = []
        for r in range(rounds):
            order = loops if r % 2 == 0 else loops[::-1]
            for conc in (64, 256):
                for lp in order:
                    if conc > n and conc != 64 and n <= 64:
                        continue  # N <= 64: C=256 is the same run as C=64 (all in flight)
                    res = run_one(n, conc, lp)
                    res["round"] = r
                    main_runs.append(res)
        # Scaling: wall as cells grow, all in flight (C = N), asyncio.
        scale_runs = []
        for cells in scaling:
            reuse = [
                x
                for x in main_runs
                if x["cells"] == cells
                and x["loop"] == "asyncio"
                and min(x["concurrency"], cells) == cells
            ]
            scale_runs.append(reuse[0] if reuse else run_one(cells, cells, "asyncio"))
    took = time.perf_counter() - t_start

    def summarize(runs: list[dict[str, Any]], cells: int, conc: int) -> dict[str, Any]:
        walls = [x["wall_s"] for x in runs]
        w = median(walls)
        ide = ideal(cal, cells, conc)
        return {
            "cells": cells,
            "concurrency": conc,
            "runs": len(runs),
            "wall_median_s": round(w, 2),
            **ide,
            "wall_vs_ideal": round(w / ide["ideal_s"], 2),
            "lag_p50_ms": round(median([x["lag_ms"]["p50"] for x in runs]), 2),
            "lag_p99_ms": round(median([x["lag_ms"]["p99"] for x in runs]), 2),
            "lag_max_ms": max(x["lag_ms"]["max"] or 0 for x in runs),
            "peak_rss_mb": max(x["peak_rss_mb"] for x in runs),
            "cpu_s": round(median([x["host_cpu_s"] for x in runs]), 1),
            "cpu_self_s": round(median([x["cpu_self_s"] for x in runs]), 1),
            "cpu_share": round(median([x["cpu_share"] for x in runs]), 2),
            "cell_wall_median_s": median([x["cell_wall_median_s"] or 0 for x in runs]),
            "statuses": [x["statuses"] for x in runs],
        }

    table = []
    for conc in (64, 256):
        for lp in loops:
            sel = [x for x in main_runs if x["concurrency"] == conc and x["loop"] == lp]
            if sel:
                s = summarize(sel, n, min(conc, n))
                s["loop"] = lp
                s["requested_concurrency"] = conc
                table.append(s)
    scaling_table = []
    for x in scale_runs:
        s = summarize([x], x["cells"], min(x["concurrency"], x["cells"]))
        s["loop"] = "asyncio"
        scaling_table.append(s)
    loop_cmp = {}
    for conc in (64, 256):
        a = [x for x in table if x["requested_concurrency"] == conc and x["loop"] == "asyncio"]
        u = [x for x in table if x["requested_concurrency"] == conc and x["loop"] == "uvloop"]
        if a and u:
            loop_cmp[f"c{conc}"] = {
                "asyncio_wall_s": a[0]["wall_median_s"],
                "uvloop_wall_s": u[0]["wall_median_s"],
                "uvloop_vs_asyncio_wall": round(u[0]["wall_median_s"] / a[0]["wall_median_s"], 3),
                "asyncio_cpu_s": a[0]["cpu_s"],
                "uvloop_cpu_s": u[0]["cpu_s"],
                "asyncio_lag_p99_ms": a[0]["lag_p99_ms"],
                "uvloop_lag_p99_ms": u[0]["lag_p99_ms"],
            }
    result = {
        "bench": "sweep",
        "quick": args.quick,
        "machine": info,
        "loadavg_during": load.summary(),
        "backend": "local",
        "fake_latency_s": 2.0,
        "browser_contexts": args.contexts,
        "cells": n,
        "formula": "ideal = fixed + max(ceil(N/C) * T_cell, N * W / cores)",
        "calibration": {k: v for k, v in cal.items() if k not in ("singles", "cpu_runs")},
        "targets": {"lag_p99_ms": 50, "peak_rss_mb_at_256": 500},
        "main": table,
        "scaling": scaling_table,
        "asyncio_vs_uvloop": loop_cmp,
        "raw": {"calibration": cal, "main": main_runs, "scaling": scale_runs},
        "duration_s": round(took, 1),
    }
    path = write_result("sweep", result)
    c = result["calibration"]
    print(
        f"sweep calibration: T_cell {c['t_cell_s']} s, fixed {c['fixed_s']} s, "
        f"W {c['cpu_per_cell_s']} cpu-s/cell, cores {os.cpu_count()}"
    )
    for s in table + scaling_table:
        print(
            f"sweep N={s['cells']:<4} C={s['concurrency']:<4} {s['loop']:<8} wall "
            f"{s['wall_median_s']:7.1f} s ideal {s['ideal_s']:7.1f} s (x{s['wall_vs_ideal']})"
            f"  lag p50/p99 {s['lag_p50_ms']}/{s['lag_p99_ms']} ms  rss {s['peak_rss_mb']} MB"
        )
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
