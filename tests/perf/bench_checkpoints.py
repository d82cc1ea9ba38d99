"""Checkpoint cost: `--replay full` vs the default (`reuse`), side by side, same verdicts.

Run: `python tests/perf/bench_checkpoints.py [--tasks T ...] [--backend auto|local]`.

For each shipped task (default: all), the staged `reference` cell runs twice in a fresh
child process (`python -m orchestrator cell TASK --no-baseline --replay MODE`), the two
modes interleaved task by task so machine noise hits both alike. Per cell it records:

- verifier CPU-s two ways: the host's busy CPU time over the cell (`/proc/stat`, as
  `bench_sweep.py`; on a shared host this includes other agents' work), and the cell's
  own process tree (this process is a child subreaper, so Chromium's renderers and every
  other orphan are reaped here and their CPU lands in `RUSAGE_CHILDREN`);
- each checkpoint's wall time and how many states it replayed / reused (events.jsonl);
- the verdicts at every checkpoint (every check's passed/applicable, every gate's
  status), which must be identical between the two modes.

Prints a table and the CPU ratio reuse/full (target <= 0.33), writes
`tests/perf/results/checkpoints.json` and, for `--plot-task` (default the 7-unit
`build-bakery-site`), a plot of checkpoint wall time and replayed states against the
checkpoint index, `tests/perf/results/checkpoints.png`.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS_DIR, LoadSampler, host_busy_cpu_s, machine, write_result

ROOT = Path(__file__).resolve().parents[2]
MODES = ("full", "reuse")
_PR_SET_CHILD_SUBREAPER = 36


def _become_subreaper() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _reap_orphans(timeout: float = 30.0) -> None:
    """Reap every orphan reparented to us (Chromium's zygote and renderers)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.2)


def _verdicts(events: Path) -> list[dict[str, Any]]:
    out = []
    for line in events.read_text().splitlines():
        e = json.loads(line)
        if e["kind"] != "checkpoint":
            continue
        c = e["checkpoint"]
        out.append(
            {
                "index": c["index"],
                "unit": c["unit"],
                "wall_s": c.get("duration_s", 0.0),
                "replayed": len(c.get("replayed", {})),
                "reused": len(c.get("reused", {})),
                "gates": c["gates"],
                "checks": sorted(
                    (k["id"], k.get("passed", False), k.get("applicable", True))
                    for k in c["checks"]
                ),
            }
        )
    return out


def _run_cell(task: str, mode: str, out: Path, backend: str) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "orchestrator", "cell", task, "--no-baseline"]
    argv += ["--replay", mode, "--backend", backend, "--out", str(out)]
    cpu0, host0, t0 = _children_cpu(), host_busy_cpu_s(), time.monotonic()
    proc = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True)
    _reap_orphans()
    wall = time.monotonic() - t0
    tree_cpu, host_cpu = _children_cpu() - cpu0, host_busy_cpu_s() - host0
    if proc.returncode != 0:
        raise SystemExit(f"{task} ({mode}) failed:\n{proc.stderr[-2000:]}")
    return {
        "task": task,
        "mode": mode,
        "wall_s": round(wall, 1),
        "tree_cpu_s": round(tree_cpu, 1),
        "host_cpu_s": round(host_cpu, 1),
        "checkpoints": _verdicts(out / "events.jsonl"),
    }


def _same_verdicts(a: dict[str, Any], b: dict[str, Any]) -> bool:
    strip = [(c["gates"], c["checks"]) for c in a["checkpoints"]]
    return strip == [(c["gates"], c["checks"]) for c in b["checkpoints"]]


def _plot(pair: dict[str, dict[str, Any]], task: str, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    for mode, style in (("full", "o-"), ("reuse", "s-")):
        cps = pair[mode]["checkpoints"]
        idx = [c["index"] for c in cps]
        ax1.plot(idx, [c["wall_s"] for c in cps], style, label=f"--replay {mode}")
        ax2.plot(idx, [c["replayed"] for c in cps], style, label=f"--replay {mode}")
    ax1.set(xlabel="checkpoint index", ylabel="checkpoint wall time (s)", title=task)
    ax2.set(xlabel="checkpoint index", ylabel="states replayed", title=f"{task}: replays")
    for ax in (ax1, ax2):
        ax.legend()
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tasks", nargs="+", help="task ids (default: every shipped task)")
    ap.add_argument("--backend", default="auto", choices=("auto", "docker", "local"))
    ap.add_argument("--plot-task", default="build-bakery-site")
    args = ap.parse_args()
    tasks = args.tasks or sorted(p.parent.name for p in (ROOT / "tasks").glob("*/task.toml"))
    _become_subreaper()
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="pwb-bench-cp-") as tmp, LoadSampler() as load:
        for i, task in enumerate(tasks):
            order = MODES if i % 2 == 0 else MODES[::-1]
            pair = {m: _run_cell(task, m, Path(tmp) / f"{task}-{m}", args.backend) for m in order}
            same = _same_verdicts(pair["full"], pair["reuse"])
            rows.append({"task": task, "same_verdicts": same, **pair})
            f, r = pair["full"], pair["reuse"]
            print(
                f"{task:28} cpu(tree) full {f['tree_cpu_s']:7.1f}s reuse {r['tree_cpu_s']:7.1f}s"
                f" ratio {r['tree_cpu_s'] / max(f['tree_cpu_s'], 1e-9):.2f} | cpu(/proc/stat)"
                f" {f['host_cpu_s']:7.1f}s {r['host_cpu_s']:7.1f}s | same verdicts: {same}",
                flush=True,
            )
            for mode in MODES:
                walls = " ".join(f"{c['wall_s']:.0f}" for c in pair[mode]["checkpoints"])
                reps = " ".join(str(c["replayed"]) for c in pair[mode]["checkpoints"])
                print(f"    {mode:5} checkpoint wall s: {walls}   states replayed: {reps}")
            # Written after every task: a run cut short still leaves its numbers.
            write_result("checkpoints", {"machine": machine(), "cells": rows, "partial": True})
            if task == args.plot_task:
                _plot(pair, task, RESULTS_DIR / "checkpoints.png")
    full = sum(r["full"]["tree_cpu_s"] for r in rows)
    reuse = sum(r["reuse"]["tree_cpu_s"] for r in rows)
    host_full = sum(r["full"]["host_cpu_s"] for r in rows)
    host_reuse = sum(r["reuse"]["host_cpu_s"] for r in rows)
    summary = {
        "cells": len(rows),
        "tree_cpu_per_cell_full": round(full / len(rows), 1),
        "tree_cpu_per_cell_reuse": round(reuse / len(rows), 1),
        "ratio_tree_cpu": round(reuse / full, 3),
        "ratio_host_cpu": round(host_reuse / host_full, 3),
        "identical_verdicts": all(r["same_verdicts"] for r in rows),
        "load_1min": load.summary(),
    }
    print(json.dumps(summary, indent=1))
    write_result("checkpoints", {"machine": machine(), "summary": summary, "cells": rows})
    return 0 if summary["identical_verdicts"] else 1


if __name__ == "__main__":
    sys.exit(main())
