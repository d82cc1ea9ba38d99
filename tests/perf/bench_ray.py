"""Per-cell overhead of `--engine ray` vs the single-host engine on the same sweep (#22).

Run: `python tests/perf/bench_ray.py [--cells N] [--concurrency C] [--rounds R]`.

The workload: N cells of the 1-unit tiny task (`_common.make_one_unit_task`) with the
offline `reference` solver on the LOCAL sandbox backend. The ray engine runs on a Ray
cluster started on this host (`ray.cluster_utils.Cluster`: a head without cell capacity
plus ONE worker node declaring `pwb_cells = C`), so both engines have one Chromium and
the same concurrency; what differs is the remote attempt (actor call, object store,
ledger round trips). Engines alternate round by round, each sweep in this process.

Reported per engine: sweep wall (without the cluster's start, which is paid once per
cluster, not per sweep; reported apart) and the median of the rows' `wall_s` (a cell's
time seen by the driver's scheduler, remote round trip included). Target: ray ≤ 5 %
more wall. Writes `tests/perf/results/ray.json`. On a loaded host the numbers are noisy:
the load average is reported with them.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine, median, write_result

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

BENCH = """
[sweep]
name = "perf-{engine}"
runs_dir = "{runs}"
tasks_dir = "{tasks}"
arms = ["staged"]
repeats = {cells}
concurrency = {concurrency}
engine = "{engine}"
backend = "local"
baseline = false
browser_contexts = 1

[[solvers]]
name = "reference"
kind = "reference"
"""


def _sweep(tmp: Path, engine: str, n: int, args: argparse.Namespace) -> dict[str, Any]:
    import anyio

    from orchestrator.config import load_config
    from orchestrator.sweep import SweepOptions, run_sweep

    path = tmp / f"bench-{engine}-{n}.toml"
    path.write_text(
        BENCH.format(
            engine=engine,
            runs=tmp / "runs",
            tasks=tmp / "tasks",
            cells=args.cells,
            concurrency=args.concurrency,
        )
    )
    cfg = load_config(path)
    t0, w0 = time.perf_counter(), time.time()
    _, rows = anyio.run(
        run_sweep, cfg, SweepOptions(run_dir=tmp / f"run-{engine}-{n}", progress="quiet")
    )
    wall = time.perf_counter() - t0
    w1 = time.time()
    return {
        "wall_s": wall,
        # Where the wall goes: until the first cell started (engine start: for ray the
        # node actors' processes and their resources), cells running, after the last one
        # ended (engine close).
        "start_s": min(r.started_at for r in rows) - w0,
        "cells_s": max(r.finished_at for r in rows) - min(r.started_at for r in rows),
        "close_s": w1 - max(r.finished_at for r in rows),
        "cell_wall_s_median": median([r.wall_s for r in rows]),
        "statuses": sorted({r.status for r in rows}),
        "load1": os.getloadavg()[0],
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cells", type=int, default=4)
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    import ray
    from _common import make_one_unit_task
    from ray.cluster_utils import Cluster

    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        make_one_unit_task(tmp / "tasks")
        t0 = time.perf_counter()
        cluster = Cluster(
            initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False}
        )
        cluster.add_node(num_cpus=0, resources={"pwb_cells": args.concurrency})
        cluster.wait_for_nodes()
        ray.init(address=cluster.address, include_dashboard=False, log_to_driver=False)
        cluster_start = time.perf_counter() - t0
        runs: dict[str, list[dict[str, Any]]] = {"local": [], "ray": []}
        try:
            for n in range(args.rounds):
                for engine in ("local", "ray") if n % 2 == 0 else ("ray", "local"):
                    runs[engine].append(_sweep(tmp, engine, n, args))
                    print(engine, runs[engine][-1], flush=True)
        finally:
            ray.shutdown()
            cluster.shutdown()
    local = median([r["wall_s"] for r in runs["local"]])
    remote = median([r["wall_s"] for r in runs["ray"]])
    result = {
        "machine": machine(),
        "cells": args.cells,
        "concurrency": args.concurrency,
        "cluster_start_s": cluster_start,
        "runs": runs,
        "median_wall_s": {"local": local, "ray": remote},
        "ray_over_local": remote / local - 1.0,
    }
    out = write_result("ray", result)
    print(f"ray vs local: {100 * (remote / local - 1):+.1f}% wall  ({remote:.1f}s vs {local:.1f}s)")
    print(out)


if __name__ == "__main__":
    main()
