"""Ray's overhead against sweep length (#41, item 4): the same sweep of 4, 16 and 64 cells
on `--engine local` and `--engine ray`, printed side by side.

Run: `nice python tests/perf/bench_ray_sizes.py [--sizes 4,16,64] [--concurrency C]
[--rounds R]` (CPU heavy: a cluster, two Chromiums; minutes per size).

The sweeps, the workload and the cluster are `bench_ray.py`'s (one head without cell
capacity plus ONE worker node declaring `pwb_cells = C` on this host, the 1-unit tiny
task, reference solver, local backend, each sweep a fresh `python -m orchestrator`
process), with one untimed warm-up per engine; then for each size R rounds of local
then ray. The table gives per size the median walls, their ratio, the fixed part of
each (start until the first cell + after the last) and the wall per cell once running
(cells phase / cells): a fixed cost shows as a ratio that falls as the sweep grows, a
per-cell cost as a ratio that does not. Writes `tests/perf/results/ray_sizes.json`.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.perf._common import ROOT, LoadSampler, machine, median, write_result
from tests.perf.bench_ray import BENCH, CPU, _sweep


def _row(size: int, runs: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    def med(engine: str, key: str) -> float:
        return median([r[key] for r in runs[engine]])

    out: dict[str, Any] = {"cells": size}
    for e in ("local", "ray"):
        out[f"{e}_wall_s"] = med(e, "wall_s")
        out[f"{e}_fixed_s"] = median([r["start_s"] + r["close_s"] for r in runs[e]])
        out[f"{e}_per_cell_s"] = med(e, "cells_s") / size
    out["wall_ratio"] = out["ray_wall_s"] / out["local_wall_s"] - 1.0
    out["per_cell_ratio"] = out["ray_per_cell_s"] / out["local_per_cell_s"] - 1.0
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="4,16,64")
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    from tests.fixtures.raycluster import add_worker, start_head
    from tests.perf._common import make_one_unit_task

    info = machine()
    table: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as d, LoadSampler() as load:
        tmp = Path(d)
        make_one_unit_task(tmp / "tasks")

        def config(cells: int) -> Path:
            path = tmp / f"bench-{cells}.toml"
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

        os.environ["PYTHONPATH"] = str(ROOT)  # the nodes' workers import this tree
        CPU.start()
        t0 = time.perf_counter()
        cluster = start_head()
        add_worker(cluster, {"pwb_cells": args.concurrency, "pwb_browser_contexts": 1})
        cluster.wait_for_nodes()
        print(f"cluster started in {time.perf_counter() - t0:.1f}s", flush=True)
        try:
            for engine in ("local", "ray"):
                _sweep(tmp, config(2), engine, "warm", cluster.address)
            for size in sizes:
                runs: dict[str, list[dict[str, Any]]] = {"local": [], "ray": []}
                for n in range(args.rounds):
                    for engine in ("local", "ray"):
                        runs[engine].append(
                            _sweep(tmp, config(size), engine, f"{size}-{n}", cluster.address)
                        )
                table.append(_row(size, runs) | {"runs": runs})
                print(f"{size} cells done", flush=True)
        finally:
            cluster.shutdown()
            CPU.close()
    print(
        f"{'cells':>5} | {'local s':>8} {'ray s':>8} {'wall':>7} | {'fixed L':>7} {'fixed R':>7}"
        f" | {'s/cell L':>8} {'s/cell R':>8} {'per cell':>8}"
    )
    for r in table:
        print(
            f"{r['cells']:>5} | {r['local_wall_s']:>8.1f} {r['ray_wall_s']:>8.1f}"
            f" {100 * r['wall_ratio']:>+6.1f}% | {r['local_fixed_s']:>7.1f}"
            f" {r['ray_fixed_s']:>7.1f} | {r['local_per_cell_s']:>8.2f}"
            f" {r['ray_per_cell_s']:>8.2f} {100 * r['per_cell_ratio']:>+7.1f}%"
        )
    result = {
        "machine": info,
        "load1_during": load.summary(),
        "concurrency": args.concurrency,
        "rounds": args.rounds,
        "sizes": table,
    }
    print(write_result("ray_sizes", result))


if __name__ == "__main__":
    main()
