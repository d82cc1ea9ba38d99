"""Regrade against the sweep it regrades (#39): wall and CPU side by side.

Run: `python tests/perf/bench_regrade.py [--config bench.toml] [--tasks ID]` on an
otherwise idle machine. It runs the default run (`python -m orchestrator --config
bench.toml`: one shipped task, every solver kind, both arms) in a child process, then
`python -m orchestrator regrade RUN --out NEW` of it, and prints for each its wall, the
host's busy CPU-seconds over it (`/proc/stat`: the orchestrator, Chromium, Docker's
containers, the solvers' processes) and the CPU of the process and its reaped children,
then the regrade's share of the sweep. What the regrade skips is everything but grading:
no solver, no model, no agent image; it replays each checkpoint's work tree. Target:
the regrade costs no more than the sweep's checkpoints (`checkpoint_s`, summed from the
sweep's events) plus the regrade's fixed start. Writes
`tests/perf/results/regrade.json`.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.perf._common import ROOT, LoadSampler, host_busy_cpu_s, machine, write_result


def _timed(argv: list[str]) -> dict[str, Any]:
    """Run `argv`; its wall, the host's busy CPU over it and its own CPU (with children)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    host0, t0 = host_busy_cpu_s(), time.monotonic()
    with LoadSampler() as load:
        done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
    wall, host = time.monotonic() - t0, host_busy_cpu_s() - host0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}:\n{done.stderr[-2000:]}")
    own = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {
        "wall_s": round(wall, 1),
        "host_cpu_s": round(host, 1),
        "process_cpu_s": round(own, 1),
        "load": load.summary(),
        "stdout_tail": done.stdout[-600:],
    }


def _checkpoint_s(run_dir: Path) -> float:
    """Seconds the sweep's cells spent in checkpoints (build, serve, verify)."""
    total = 0.0
    for events in (run_dir / "cells").glob("*/events.jsonl"):
        for line in events.read_text().splitlines():
            rec = json.loads(line)
            if rec.get("kind") == "checkpoint":
                total += float(rec["checkpoint"].get("duration_s", 0.0))
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--config", default=str(ROOT / "bench.toml"))
    ap.add_argument("--tasks", default="", help="override the config's tasks (comma list)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="pwb-bench-regrade-") as tmp:
        run, again = Path(tmp) / "run", Path(tmp) / "again"
        py = [sys.executable, "-m", "orchestrator"]
        sweep_cmd = [*py, "--config", args.config, "--quiet", "--run-dir", str(run)]
        if args.tasks:
            sweep_cmd += ["--tasks", *args.tasks.split(",")]
        sweep = _timed(sweep_cmd)
        sweep["checkpoint_s"] = round(_checkpoint_s(run), 1)
        regrade = _timed(
            [*py, "regrade", str(run), "--out", str(again), "--config", args.config, "--quiet"]
        )
        regrade["checkpoint_s"] = round(_checkpoint_s(again), 1)
        cells = sum(1 for _ in (run / "cells").iterdir())
    result = {
        "config": args.config,
        "cells": cells,
        "sweep": sweep,
        "regrade": regrade,
        "wall_ratio": round(regrade["wall_s"] / sweep["wall_s"], 3),
        "host_cpu_ratio": round(regrade["host_cpu_s"] / max(sweep["host_cpu_s"], 1e-9), 3),
        "regrade_wall_vs_sweep_checkpoints": round(
            regrade["wall_s"] / max(sweep["checkpoint_s"], 1e-9), 3
        ),
        "machine": machine(),
    }
    print(f"{'':10} {'wall s':>8} {'host CPU s':>11} {'proc CPU s':>11} {'checkpoints s':>14}")
    for name in ("sweep", "regrade"):
        r = result[name]
        print(
            f"{name:10} {r['wall_s']:8.1f} {r['host_cpu_s']:11.1f} {r['process_cpu_s']:11.1f}"
            f" {r['checkpoint_s']:14.1f}"
        )
    print(
        f"regrade/sweep: wall {result['wall_ratio']:.2f}, host CPU {result['host_cpu_ratio']:.2f};"
        f" regrade wall / the sweep's checkpoint time {result['regrade_wall_vs_sweep_checkpoints']:.2f}"
        f" ({cells} cells)"
    )
    write_result("regrade", result)


if __name__ == "__main__":
    main()
