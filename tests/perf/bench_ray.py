"""Overhead of `--engine ray` vs the single-host engine on the same sweep (#22).

Run: `python tests/perf/bench_ray.py [--cells N] [--concurrency C] [--rounds R]`.

The workload: N cells of the 1-unit tiny task (`_common.make_one_unit_task`) with the
offline `reference` solver on the LOCAL sandbox backend. The cluster is started the way
a cluster user has it: once, before the sweeps (here by this script, on this host, with
`ray.cluster_utils.Cluster`: a head without cell capacity plus ONE worker node declaring
`pwb_cells = C`), so both engines have one Chromium and the same concurrency. Its start
is timed apart (`cluster_start_s`, paid once per cluster, not per sweep). One untimed
warm-up sweep per engine comes first (the node host's process is started once per
cluster; page cache, Chromium's first start).

Each sweep is the driver as a user runs it, a fresh `python -m orchestrator` process:
`--engine local` vs `--engine ray --ray-address ADDR`, interleaved A B A B (round i =
local then ray), so slow drift of the host's load hits both engines of a round alike.
Reported per round, side by side: both walls and their paired ratio, the same for the
cells phase alone (first cell started .. last cell ended: the per-cell overhead) and
the fixed costs (until the first cell, after the last); then the median and the spread
(min..max) of the paired ratios. A sweep of N cells is big enough that the fixed cost
is amortised as in a user's sweep: the verdict is the median paired wall ratio, and the
spread says whether it is beyond noise. Target: ray <= 5 % more wall. Writes
`tests/perf/results/ray.json`, with the load average.

Beside the wall, each sweep's CPU-seconds (`cpu_s`) where cgroup v1 cpuacct is writable:
the script moves itself into a cpuacct cgroup of its own before it starts the cluster, so
every process of the benchmark (Ray's, both engines' drivers, the node host, Chromium)
is counted and nothing of other users of the host is. The cluster idles through the
local sweeps too, so the paired CPU ratio is what `--engine ray` itself costs, a figure
that holds on a loaded host, where the walls do not.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.perf._cgroup import CPUACCT, available
from tests.perf._common import ROOT, LoadSampler, machine, median, write_result


class TreeCpu:
    """CPU-s used by this process and everything it starts (`available()`: why not)."""

    def __init__(self) -> None:
        self.why = "not started"
        self.cgroup: Path | None = None

    def start(self) -> None:
        """Move this process into a cgroup of its own, before it starts anything."""
        self.why = available()
        if not self.why:
            self.cgroup = CPUACCT / f"pwb-bench-ray-{os.getpid()}"
            self.cgroup.mkdir()
            (self.cgroup / "cgroup.procs").write_text(str(os.getpid()))

    def used(self) -> float | None:
        if self.cgroup is None:
            return None
        return int((self.cgroup / "cpuacct.usage").read_text()) / 1e9

    def close(self) -> None:
        """Back to the root group; the cgroup goes once the cluster's processes have."""
        if self.cgroup is None:
            return
        (CPUACCT / "cgroup.procs").write_text(str(os.getpid()))
        for _ in range(100):
            try:
                self.cgroup.rmdir()
                return
            except OSError:
                time.sleep(0.2)


CPU = TreeCpu()

BENCH = """
[sweep]
name = "perf-{engine}"
runs_dir = "{runs}"
tasks_dir = "{tasks}"
allow_unadmitted = true  # fixture tasks: never admitted
arms = ["staged"]
repeats = {cells}
concurrency = {concurrency}
backend = "local"
baseline = false
browser_contexts = 1

[[solvers]]
name = "reference"
kind = "reference"
"""


def _sweep(tmp: Path, config: Path, engine: str, tag: str, address: str) -> dict[str, Any]:
    from orchestrator.records import read_rows

    run_dir = tmp / f"run-{engine}-{tag}"
    argv = [sys.executable, "-m", "orchestrator", "--config", str(config)]
    argv += ["--engine", engine, "--run-dir", str(run_dir), "--progress", "jsonl"]
    argv += ["--no-report"]
    if engine == "ray":
        argv += ["--ray-address", address]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    load = os.getloadavg()[0]
    cpu0 = CPU.used()
    w0, t0 = time.time(), time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    w1 = time.time()
    cpu1 = CPU.used()
    if done.returncode != 0:
        raise SystemExit(f"{engine} sweep failed ({done.returncode}): {done.stderr[-3000:]}")
    rows = read_rows(run_dir / "manifest.jsonl")
    first = min(r.started_at for r in rows)
    last = max(r.finished_at for r in rows)
    return {
        "wall_s": wall,
        "cpu_s": None if cpu0 is None or cpu1 is None else cpu1 - cpu0,
        "start_s": first - w0,  # process start, planning, engine start
        "cells_s": last - first,
        "close_s": w1 - last,  # engine close, process exit
        "cell_wall_s_median": median([r.wall_s for r in rows]),
        "rows": len(rows),
        "statuses": sorted({r.status for r in rows}),
        "load1_before": load,
    }


def _ratios(runs: dict[str, list[dict[str, Any]]], key: str) -> list[float]:
    pairs = zip(runs["local"], runs["ray"], strict=True)
    return [remote[key] / local[key] - 1.0 for local, remote in pairs]


def _spread(xs: list[float]) -> str:
    return (
        f"median {100 * median(xs):+.1f}%  (min {100 * min(xs):+.1f}%, max {100 * max(xs):+.1f}%)"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cells", type=int, default=24)
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--warmup-cells", type=int, default=2)
    args = ap.parse_args()
    from tests.fixtures.raycluster import add_worker, start_head
    from tests.perf._common import make_one_unit_task

    info = machine()
    with tempfile.TemporaryDirectory() as d, LoadSampler() as load:
        tmp = Path(d)
        make_one_unit_task(tmp / "tasks")

        def config(name: str, cells: int) -> Path:
            path = tmp / name
            path.write_text(
                BENCH.format(
                    engine="bench",
                    runs=tmp / "runs",
                    tasks=tmp / "tasks",
                    cells=cells,
                    concurrency=args.concurrency,
                )
            )
            return path

        timed, warm = config("bench.toml", args.cells), config("warm.toml", args.warmup_cells)
        os.environ["PYTHONPATH"] = str(ROOT)  # the nodes' workers import this tree
        CPU.start()
        t0 = time.perf_counter()
        cluster = start_head()
        add_worker(cluster, {"pwb_cells": args.concurrency, "pwb_browser_contexts": 1})
        cluster.wait_for_nodes()
        cluster_start = time.perf_counter() - t0
        print(f"cluster started in {cluster_start:.1f}s at {cluster.address}", flush=True)
        runs: dict[str, list[dict[str, Any]]] = {"local": [], "ray": []}
        warmup: dict[str, dict[str, Any]] = {}
        try:
            for engine in ("local", "ray"):
                warmup[engine] = _sweep(tmp, warm, engine, "warm", cluster.address)
                print(f"warm-up {engine}: {warmup[engine]['wall_s']:.1f}s", flush=True)
            print(
                f"{'round':>5} {'local s':>8} {'ray s':>8} {'wall':>7}"
                f" {'cells L':>8} {'cells R':>8} {'cells':>7} {'fixed L':>8} {'fixed R':>8}"
                f" {'cpu L':>6} {'cpu R':>6} {'load':>5}",
                flush=True,
            )
            for n in range(args.rounds):
                for engine in ("local", "ray"):  # A B A B
                    runs[engine].append(_sweep(tmp, timed, engine, str(n), cluster.address))
                lo, ra = runs["local"][-1], runs["ray"][-1]
                print(
                    f"{n:>5} {lo['wall_s']:>8.1f} {ra['wall_s']:>8.1f}"
                    f" {100 * (ra['wall_s'] / lo['wall_s'] - 1):>+6.1f}%"
                    f" {lo['cells_s']:>8.1f} {ra['cells_s']:>8.1f}"
                    f" {100 * (ra['cells_s'] / lo['cells_s'] - 1):>+6.1f}%"
                    f" {lo['start_s'] + lo['close_s']:>8.1f} {ra['start_s'] + ra['close_s']:>8.1f}"
                    f" {lo['cpu_s'] or 0:>6.1f} {ra['cpu_s'] or 0:>6.1f}"
                    f" {os.getloadavg()[0]:>5.1f}",
                    flush=True,
                )
        finally:
            cluster.shutdown()
            CPU.close()
    wall, cells = _ratios(runs, "wall_s"), _ratios(runs, "cells_s")
    cpu = _ratios(runs, "cpu_s") if CPU.cgroup is not None else []
    local = median([r["wall_s"] for r in runs["local"]])
    remote = median([r["wall_s"] for r in runs["ray"]])
    fixed = {e: median([r["start_s"] + r["close_s"] for r in runs[e]]) for e in runs}
    result = {
        "machine": info,
        "load1_during": load.summary(),
        "cells": args.cells,
        "concurrency": args.concurrency,
        "rounds": args.rounds,
        "order": "ABAB (local, ray per round)",
        "cluster_start_s": cluster_start,
        "warmup": warmup,
        "runs": runs,
        "paired_wall_ratio": wall,
        "paired_cells_ratio": cells,
        "median_paired_wall_ratio": median(wall),
        "median_paired_cells_ratio": median(cells),
        "paired_cpu_ratio": cpu,
        "median_paired_cpu_ratio": median(cpu) if cpu else None,
        "median_cpu_s": {e: median([r["cpu_s"] for r in runs[e]]) for e in runs} if cpu else None,
        "cpu_unmeasured": CPU.why,
        "median_wall_s": {"local": local, "ray": remote},
        "median_start_s": {e: median([r["start_s"] for r in runs[e]]) for e in runs},
        "median_cells_s": {e: median([r["cells_s"] for r in runs[e]]) for e in runs},
        "median_close_s": {e: median([r["close_s"] for r in runs[e]]) for e in runs},
        "median_fixed_s": fixed,
        "ray_over_local": remote / local - 1.0,
        "fresh_cluster_over_local": (remote + cluster_start) / local - 1.0,
    }
    out = write_result("ray", result)
    print(f"paired wall  ray vs local: {_spread(wall)}  over {args.rounds} rounds")
    print(f"paired cells ray vs local: {_spread(cells)}  (per-cell overhead)")
    if cpu:
        print(f"paired CPU   ray vs local: {_spread(cpu)}  (every process of the benchmark)")
    else:
        print(f"CPU not measured: {CPU.why}")
    print(
        f"fixed cost per sweep (start + close, medians): ray {fixed['ray']:.1f}s"
        f" vs local {fixed['local']:.1f}s"
    )
    print(
        f"cluster started for the sweep: {100 * result['fresh_cluster_over_local']:+.1f}%"
        f" (cluster start {cluster_start:.1f}s)"
    )
    print(out)


if __name__ == "__main__":
    main()
