"""Checkpoint cost: `--replay full` vs `states` vs the default (`reuse`), side by side.

Run (as root: it makes cpuacct cgroups): `python tests/perf/bench_checkpoints.py
[--tasks T ... | --tasks '*'] [--modes full states reuse] [--backend auto|local]
[--name checkpoints]`.

For each task (default: `DEFAULT_TASKS`, one per stack plus a second static one: static,
node, php, vite), the staged `reference` cell runs once per mode in a fresh child process
(`python -m orchestrator cell TASK --no-baseline --replay MODE`), the modes interleaved
task by task, their order rotated, so machine noise hits all alike: `full` (every state
replayed, each in a fresh context: the audit, as before #21), `states` (unchanged states
reused, identical replays shared, a fresh context per replayed state) and `reuse` (the
same, the replays on the reset tab of a warm context). Per cell:

- **verifier CPU-s** (`cpu_s`, the figure the ratios use): the cell's own cpuacct cgroup
  (the child starts inside it, so every descendant is counted, wherever it is reparented)
  plus the cpuacct of its task containers (Docker's `docker/<id>` cgroups whose
  workspace mount is under the cell's `TMPDIR`), see `_cgroup.py`. Other load on the
  host does not enter it. Secondary columns: the host's busy CPU over the cell
  (`/proc/stat`, polluted on a shared host) and `RUSAGE_CHILDREN` of the tree (this
  process is a child subreaper, so orphans are reaped here);
- each checkpoint's wall time and how many states it replayed / reused (events.jsonl);
- the verdicts at every checkpoint (every check's passed/applicable, every gate's
  status), which must be identical in every mode (exit 1 otherwise);
- where the tree's CPU went: the process tree is sampled from `/proc` every 0.2 s and
  each process's own CPU (utime+stime, the last sample before it exits) summed by kind
  (orchestrator, Playwright driver, Chromium browser, renderers, other Chromium
  processes, the rest); `unsampled` is what short-lived processes spent between samples.

Prints a table, the CPU and checkpoint-wall ratios per mode against `full` (target for
CPU <= 0.33), writes `tests/perf/results/<name>.json` (after every task) and, for
`--plot-task` (default the 7-unit `build-bakery-site`) when it is run, a plot of
checkpoint wall time and replayed states against the checkpoint index,
`tests/perf/results/<name>.png`.
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
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.perf._cgroup import CpuMeter, available
from tests.perf._common import RESULTS_DIR, LoadSampler, host_busy_cpu_s, machine, write_result

ROOT = Path(__file__).resolve().parents[2]
MODES = ("full", "states", "reuse")
# One task per stack, two static (the stack where per-URL reuse applies): --tasks '*' for all.
DEFAULT_TASKS = (
    "fernhill-save-tools",
    "bikeshare-faq-content",
    "recipes-shared-components",
    "library-events-tokens",
    "plantcare-mobile-nav",
)
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


def _kind(cmdline: bytes) -> str:
    # Chromium rewrites its process title (one string, no NULs): search the whole line.
    if b"--type=renderer" in cmdline:
        return "renderer"
    if b"--type=" in cmdline:
        return "chromium-other"
    if b"node" in cmdline and b"playwright" in cmdline:
        return "playwright-driver"
    if b"-m\0orchestrator" in cmdline:
        return "orchestrator"
    return "browser" if b"chrom" in cmdline else "other"


class TreeSampler:
    """Own CPU per process of our descendants, by kind (see the module docstring)."""

    def __init__(self, period: float = 0.2) -> None:
        self.period = period
        self.last: dict[tuple[int, bytes], tuple[str, float]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._tick = os.sysconf("SC_CLK_TCK")

    def __enter__(self) -> TreeSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _sample(self) -> None:
        parent: dict[int, int] = {}
        stats: dict[int, tuple[bytes, float]] = {}
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                stat = Path(f"/proc/{name}/stat").read_bytes()
            except OSError:
                continue
            fields = stat[stat.rfind(b")") + 2 :].split()
            parent[int(name)] = int(fields[1])
            stats[int(name)] = (fields[19], (int(fields[11]) + int(fields[12])) / self._tick)
        me = os.getpid()
        for pid, (start, cpu) in stats.items():
            p, hops = parent.get(pid, 0), 0
            while p not in (0, 1, me) and hops < 64:
                p, hops = parent.get(p, 0), hops + 1
            if p != me:
                continue
            key = (pid, start)
            if key not in self.last:
                try:
                    kind = _kind(Path(f"/proc/{pid}/cmdline").read_bytes())
                except OSError:
                    continue
            else:
                kind = self.last[key][0]
            self.last[key] = (kind, cpu)

    def _run(self) -> None:
        while not self._stop.wait(self.period):
            self._sample()

    def by_kind(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for kind, cpu in self.last.values():
            out[kind] = out.get(kind, 0.0) + cpu
        return out


def _verdicts(events: Path) -> list[dict[str, Any]]:
    out = []
    for line in events.read_text().splitlines():
        e = json.loads(line)
        if e["kind"] != "checkpoint":
            continue
        c = e["checkpoint"]
        how = c.get("replays", {})
        out.append(
            {
                "index": c["index"],
                "unit": c["unit"],
                "wall_s": c.get("duration_s", 0.0),
                # Browser replays (a shared state rode on another's replay).
                "replayed": len(c.get("replayed", {})) - how.get("shared", 0),
                "reused": len(c.get("reused", {})),
                "replays": how,
                "warm_fallbacks": c.get("warm_fallbacks", {}),
                "gates": c["gates"],
                "checks": sorted(
                    (k["id"], k.get("passed", False), k.get("applicable", True))
                    for k in c["checks"]
                ),
            }
        )
    return out


def _run_cell(task: str, mode: str, out: Path, backend: str) -> dict[str, Any]:
    tmp = out.parent / f"{out.name}-tmp"
    tmp.mkdir(parents=True)
    # TMPDIR: the cell's workspaces (and so its containers' bind mounts) land under `tmp`.
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp)}
    argv = [sys.executable, "-m", "orchestrator", "cell", task, "--no-baseline"]
    argv += ["--replay", mode, "--backend", backend, "--out", str(out)]
    meter = CpuMeter(f"{task}-{mode}", owned_prefix=tmp)
    cpu0, host0, t0 = _children_cpu(), host_busy_cpu_s(), time.monotonic()
    try:
        with TreeSampler() as sampler, meter:
            proc = subprocess.run(
                meter.wrap(argv), cwd=ROOT, env=env, capture_output=True, text=True
            )
            _reap_orphans()
        wall = time.monotonic() - t0
        tree_cpu, host_cpu = _children_cpu() - cpu0, host_busy_cpu_s() - host0
        cg_tree, cg_containers = meter.tree_s(), meter.containers_s()
    finally:
        meter.close()
    kinds = {k: round(v, 1) for k, v in sorted(sampler.by_kind().items())}
    kinds["unsampled"] = round(tree_cpu - sum(sampler.by_kind().values()), 1)
    if proc.returncode != 0:
        raise SystemExit(f"{task} ({mode}) failed:\n{proc.stderr[-2000:]}")
    return {
        "task": task,
        "mode": mode,
        "wall_s": round(wall, 1),
        # The verifier CPU-s of the cell: its own cgroup plus its task containers.
        "cpu_s": round(cg_tree + cg_containers, 1),
        "cgroup_tree_cpu_s": round(cg_tree, 1),
        "containers_cpu_s": round(cg_containers, 1),
        "containers": len(meter.containers),
        "tree_cpu_s": round(tree_cpu, 1),
        "host_cpu_s": round(host_cpu, 1),
        "cpu_by_kind": kinds,
        "checkpoints": _verdicts(out / "events.jsonl"),
    }


def _same_verdicts(a: dict[str, Any], *others: dict[str, Any]) -> bool:
    strip = [(c["gates"], c["checks"]) for c in a["checkpoints"]]
    return all(strip == [(c["gates"], c["checks"]) for c in b["checkpoints"]] for b in others)


def _plot(pair: dict[str, dict[str, Any]], task: str, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    for mode, style in (("full", "o-"), ("states", "^-"), ("reuse", "s-")):
        if mode not in pair:
            continue
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


def _page_loads(cell: dict[str, Any]) -> int:
    """Pages the cell really loaded: states replayed on a warm or a fresh context (a
    reused state loads nothing, a shared one rides on another's page)."""
    return sum(
        c["replays"].get("warm", 0) + c["replays"].get("fresh", 0) for c in cell["checkpoints"]
    )


def _print_task(
    task: str, pair: dict[str, dict[str, Any]], modes: tuple[str, ...], same: bool
) -> None:
    f = pair["full"]["cpu_s"]
    line = " ".join(
        f"{m} {pair[m]['cpu_s']:6.1f}s ({pair[m]['cpu_s'] / max(f, 1e-9):.2f})" for m in modes
    )
    hosts = " ".join(f"{pair[m]['host_cpu_s']:6.1f}" for m in modes)
    print(f"{task:26} cpu {line} | /proc/stat {hosts} | same verdicts: {same}", flush=True)
    for mode in modes:
        r = pair[mode]
        walls = " ".join(f"{c['wall_s']:.0f}" for c in r["checkpoints"])
        reps = " ".join(str(c["replayed"]) for c in r["checkpoints"])
        kinds = " ".join(f"{k}={v}" for k, v in r["cpu_by_kind"].items())
        how: dict[str, int] = {}
        for c in r["checkpoints"]:
            for k, v in c["replays"].items():
                how[k] = how.get(k, 0) + v
        ways = " ".join(f"{k}={v}" for k, v in sorted(how.items()))
        print(
            f"    {mode:6} checkpoint wall s: {walls}   states replayed: {reps}   ({ways})"
            f"   page loads: {_page_loads(r)}"
        )
        print(
            f"           cgroup {r['cgroup_tree_cpu_s']} + {r['containers']} container(s)"
            f" {r['containers_cpu_s']} CPU-s; by kind: {kinds}"
        )


def _summary(rows: list[dict[str, Any]], modes: tuple[str, ...]) -> dict[str, Any]:
    n = len(rows)
    per_cell = {m: sum(r[m]["cpu_s"] for r in rows) / n for m in modes}
    tree = {m: sum(r[m]["tree_cpu_s"] for r in rows) / n for m in modes}
    host = {m: sum(r[m]["host_cpu_s"] for r in rows) for m in modes}
    walls = {m: sum(c["wall_s"] for r in rows for c in r[m]["checkpoints"]) for m in modes}
    loads = {m: sum(_page_loads(r[m]) for r in rows) / n for m in modes}
    kinds: dict[str, dict[str, float]] = {}
    for m in modes:
        for r in rows:
            for k, v in r[m]["cpu_by_kind"].items():
                kinds.setdefault(m, {})[k] = round(kinds.get(m, {}).get(k, 0.0) + v / n, 1)
    return {
        "cells": n,
        "cpu_per_cell": {m: round(v, 1) for m, v in per_cell.items()},
        "ratio_cpu": {m: round(per_cell[m] / per_cell["full"], 3) for m in modes},
        "checkpoint_wall_s": {m: round(v, 1) for m, v in walls.items()},
        "ratio_checkpoint_wall": {m: round(walls[m] / walls["full"], 3) for m in modes},
        # What the CPU ratio would be if a page load cost the same in every mode: what
        # the tasks' own edits leave to replay (a changed shared file replays every page).
        "page_loads_per_cell": {m: round(v, 1) for m, v in loads.items()},
        "ratio_page_loads": {m: round(loads[m] / max(loads["full"], 1e-9), 3) for m in modes},
        "tree_cpu_per_cell": {m: round(v, 1) for m, v in tree.items()},
        "ratio_host_cpu": {m: round(host[m] / host["full"], 3) for m in modes},
        "cpu_by_kind_per_cell": kinds,
        "identical_verdicts": all(r["same_verdicts"] for r in rows),
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tasks", nargs="+", help=f"task ids, '*' for all (default: {DEFAULT_TASKS})")
    ap.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    ap.add_argument("--backend", default="auto", choices=("auto", "docker", "local"))
    ap.add_argument("--plot-task", default="build-bakery-site")
    ap.add_argument("--name", default="checkpoints", help="results/<name>.json (and .png)")
    args = ap.parse_args()
    why = available()
    if why:
        raise SystemExit(f"bench_checkpoints: cannot account CPU per cell: {why}")
    modes = tuple(m for m in MODES if m in args.modes)
    if "full" not in modes or len(modes) < 2:
        raise SystemExit("bench_checkpoints: --modes needs full and at least one other mode")
    tasks = args.tasks or list(DEFAULT_TASKS)
    if tasks == ["*"]:
        tasks = sorted(p.parent.name for p in (ROOT / "tasks").glob("*/task.toml"))
    _become_subreaper()
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="pwb-bench-cp-") as tmp, LoadSampler() as load:
        for i, task in enumerate(tasks):
            k = i % len(modes)
            order = modes[k:] + modes[:k]
            pair = {m: _run_cell(task, m, Path(tmp) / f"{task}-{m}", args.backend) for m in order}
            same = _same_verdicts(pair["full"], *(pair[m] for m in modes if m != "full"))
            rows.append({"task": task, "order": list(order), "same_verdicts": same, **pair})
            _print_task(task, pair, modes, same)
            # Written after every task: a run cut short still leaves its numbers.
            partial = {"machine": machine(), "load_1min": load.summary(), "partial": True}
            write_result(args.name, {**partial, "summary": _summary(rows, modes), "cells": rows})
            if task == args.plot_task:
                _plot(pair, task, RESULTS_DIR / f"{args.name}.png")
        summary = {**_summary(rows, modes), "load_1min": load.summary()}
    print(json.dumps(summary, indent=1))
    write_result(args.name, {"machine": machine(), "summary": summary, "cells": rows})
    return 0 if summary["identical_verdicts"] else 1


if __name__ == "__main__":
    sys.exit(main())
