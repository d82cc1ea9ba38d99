"""Overhead of `--engine ray` vs the single-host engine on the same sweep (#22).

Run: `python tests/perf/bench_ray.py [--cells N] [--concurrency C] [--rounds R]`.

The workload: N cells of the 1-unit tiny task (`_common.make_one_unit_task`) with the
offline `reference` solver on the LOCAL sandbox backend. The cluster is started the way
a cluster user has it: once, before the sweeps (here by this script, on this host, with
`ray.cluster_utils.Cluster`: a head without cell capacity plus ONE worker node declaring
`pwb_cells = C`), so both engines have one Chromium and the same concurrency. Its start
is timed apart (`cluster_start_s`, paid once per cluster, not per sweep).

Each sweep is the driver as a user runs it, a fresh `python -m orchestrator` process:
`--engine local` vs `--engine ray --ray-address ADDR`, alternating round by round
(order rotated). Reported per engine: the process's wall (median over rounds), and its
split from the rows' times: until the first cell started (process start, planning,
engine start: for ray connecting to the cluster and the node actor's process, its
imports and its resources), cells running, after the last one ended (engine close,
report). Target: ray <= 5 % more wall. `fresh_cluster_over_local` adds the cluster's
start to the ray sweep (a cluster started for one sweep only). Writes
`tests/perf/results/ray.json`. On a loaded host the numbers are noisy: the load average
is reported with them.
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ROOT, LoadSampler, machine, median, write_result

BENCH = """
[sweep]
name = "perf-{engine}"
runs_dir = "{runs}"
tasks_dir = "{tasks}"
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


def _sweep(tmp: Path, engine: str, n: int, address: str) -> dict[str, Any]:
    from orchestrator.manifest import read_rows

    run_dir = tmp / f"run-{engine}-{n}"
    argv = [sys.executable, "-m", "orchestrator", "--config", str(tmp / "bench.toml")]
    argv += ["--engine", engine, "--run-dir", str(run_dir), "--progress", "jsonl"]
    argv += ["--no-report"]
    if engine == "ray":
        argv += ["--ray-address", address]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    load = os.getloadavg()[0]
    w0, t0 = time.time(), time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    w1 = time.time()
    if done.returncode != 0:
        raise SystemExit(f"{engine} sweep failed ({done.returncode}): {done.stderr[-3000:]}")
    rows = read_rows(run_dir / "manifest.jsonl")
    first = min(r.started_at for r in rows)
    last = max(r.finished_at for r in rows)
    return {
        "wall_s": wall,
        "start_s": first - w0,  # process start, planning, engine start
        "cells_s": last - first,
        "close_s": w1 - last,  # engine close, process exit
        "cell_wall_s_median": median([r.wall_s for r in rows]),
        "rows": len(rows),
        "statuses": sorted({r.status for r in rows}),
        "load1_before": load,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cells", type=int, default=8)
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    from _common import make_one_unit_task

    from tests.fixtures.raycluster import add_worker, start_head

    info = machine()
    with tempfile.TemporaryDirectory() as d, LoadSampler() as load:
        tmp = Path(d)
        make_one_unit_task(tmp / "tasks")
        (tmp / "bench.toml").write_text(
            BENCH.format(
                engine="bench",
                runs=tmp / "runs",
                tasks=tmp / "tasks",
                cells=args.cells,
                concurrency=args.concurrency,
            )
        )
        os.environ["PYTHONPATH"] = str(ROOT)  # the nodes' workers import this tree
        t0 = time.perf_counter()
        cluster = start_head()
        add_worker(cluster, {"pwb_cells": args.concurrency, "pwb_browser_contexts": 1})
        cluster.wait_for_nodes()
        cluster_start = time.perf_counter() - t0
        print(f"cluster started in {cluster_start:.1f}s at {cluster.address}", flush=True)
        runs: dict[str, list[dict[str, Any]]] = {"local": [], "ray": []}
        try:
            for n in range(args.rounds):
                for engine in ("local", "ray") if n % 2 == 0 else ("ray", "local"):
                    runs[engine].append(_sweep(tmp, engine, n, cluster.address))
                    print(engine, runs[engine][-1], flush=True)
        finally:
            cluster.shutdown()
    local = median([r["wall_s"] for r in runs["local"]])
    remote = median([r["wall_s"] for r in runs["ray"]])
    result = {
        "machine": info,
        "load1_during": load.summary(),
        "cells": args.cells,
        "concurrency": args.concurrency,
        "rounds": args.rounds,
        "cluster_start_s": cluster_start,
        "runs": runs,
        "median_wall_s": {"local": local, "ray": remote},
        "median_start_s": {e: median([r["start_s"] for r in runs[e]]) for e in runs},
        "median_cells_s": {e: median([r["cells_s"] for r in runs[e]]) for e in runs},
        "median_close_s": {e: median([r["close_s"] for r in runs[e]]) for e in runs},
        "ray_over_local": remote / local - 1.0,
        "fresh_cluster_over_local": (remote + cluster_start) / local - 1.0,
    }
    out = write_result("ray", result)
    print(
        f"pre-started cluster: ray vs local {100 * (remote / local - 1):+.1f}% wall"
        f"  ({remote:.1f}s vs {local:.1f}s, medians of {args.rounds})"
    )
    print(
        f"cluster started for the sweep: {100 * result['fresh_cluster_over_local']:+.1f}%"
        f" (cluster start {cluster_start:.1f}s)"
    )
    print(out)


if __name__ == "__main__":
    main()
