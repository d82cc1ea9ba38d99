"""Recorded run for issue #14: admission of the shipped suite, idle and under saturated cores.

    python tests/perf/verdicts_under_load.py [--repeat 3] [--idle-repeat 1] [TASK...]
    python tests/perf/verdicts_under_load.py --idle-from runs/verdicts-under-load/idle
    python tests/perf/verdicts_under_load.py --idle-from DIR --loaded-from DIR

`--idle-from DIR` / `--loaded-from DIR` reuse an admission already recorded in DIR (its
`admission.json`, and its wall time from `wall_s` if there) instead of running it again:
the idle and loaded passes can be run apart and compared afterwards.

1. `admit` every task (or the given ones) on an idle machine: the verdicts of record.
2. `admit --repeat K` again while one CPU-burning process per core runs (each with its
   own deadline, killed at the end whatever happens: tests/burn.py).
3. Compare, task by task: admitted or not, every control's outcome and failing gates, the
   reference's verdict on every check at every checkpoint, and the flaky checks (there must
   be none). Writes `tests/perf/results/verdicts-under-load.{json,md}`; exits 1 on any
   difference, so the run is a check and not only a measurement.
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import msgspec

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from orchestrator.admission import TaskAdmission  # noqa: E402
from tests.burn import cpu_burners  # noqa: E402

RESULTS = ROOT / "tests" / "perf" / "results"


def _admit(
    out: Path, repeat: int, tasks: list[str], burners: int
) -> tuple[list[TaskAdmission], float]:
    argv = [sys.executable, "-m", "orchestrator", "admit", "--out", str(out)]
    argv += ["--repeat", str(repeat), *tasks]
    t0 = time.monotonic()
    rc = subprocess.run(argv, cwd=ROOT, check=False, stdout=subprocess.DEVNULL).returncode
    if rc not in (0, 1):  # 1: a task not admitted, still a result; else no result of this run
        raise SystemExit(f"admit --out {out} exited {rc}: no admission recorded")
    took = time.monotonic() - t0
    (out / "wall_s").write_text(f"{took:.0f}\n")
    (out / "burners").write_text(f"{burners}\n")
    return _recorded(out)


def _burners(out: Path) -> int:
    """CPU burners during the admission recorded in `out` (older records: one per core)."""
    f = out / "burners"
    return int(f.read_text()) if f.is_file() else os.cpu_count() or 2


def _recorded(out: Path) -> tuple[list[TaskAdmission], float]:
    """An admission recorded in `out`, and its wall time in seconds (NaN if unknown)."""
    data = (out / "admission.json").read_bytes()
    wall = out / "wall_s"
    took = float(wall.read_text()) if wall.is_file() else float("nan")
    return msgspec.json.decode(data, type=list[TaskAdmission]), took


def _controls(a: TaskAdmission) -> list[tuple[str, bool, tuple[str, ...]]]:
    return [(c.control, c.ok, c.failing_gates) for c in a.controls]


def compare(idle: list[TaskAdmission], loaded: list[TaskAdmission]) -> list[str]:
    """Every difference between the two runs, one line each (empty: identical verdicts)."""
    problems: list[str] = []
    by_task = {a.task: a for a in loaded}
    for a in idle:
        b = by_task.get(a.task)
        if b is None:
            problems.append(f"{a.task}: missing from the loaded run")
            continue
        for run, adm in (("idle", a), ("loaded", b)):
            if adm.error:
                problems.append(f"{a.task}: no verdict ({run}): {adm.error}")
        if a.admitted != b.admitted:
            problems.append(f"{a.task}: admitted {a.admitted} idle, {b.admitted} loaded")
        if _controls(a) != _controls(b):
            problems.append(f"{a.task}: controls differ: {_controls(a)} vs {_controls(b)}")
        diff = sorted(
            k
            for k in a.reference_checks.keys() | b.reference_checks.keys()
            if a.reference_checks.get(k) != b.reference_checks.get(k)
        )
        if diff:
            problems.append(f"{a.task}: reference verdicts differ on {', '.join(diff)}")
        for run, adm in (("idle", a), ("loaded", b)):
            if adm.flaky_checks:
                problems.append(f"{a.task}: flaky checks ({run}): {', '.join(adm.flaky_checks)}")
            for c in adm.controls:
                if c.unstable_checks:
                    problems.append(
                        f"{a.task}: {c.control} unstable ({run}): {', '.join(c.unstable_checks)}"
                    )
    return problems


def _seconds(s: float) -> int | None:
    return None if math.isnan(s) else round(s)


def _minutes(s: float) -> str:
    return "recorded earlier" if math.isnan(s) else f"{s / 60:.1f} min"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tasks", nargs="*")
    ap.add_argument("--repeat", type=int, default=3, help="repeats of the loaded admission")
    ap.add_argument("--idle-repeat", type=int, default=1, help="repeats of the idle admission")
    ap.add_argument("--out", type=Path, default=Path("runs/verdicts-under-load"))
    ap.add_argument("--burn-seconds", type=int, default=3 * 3600)
    ap.add_argument("--idle-from", type=Path, help="reuse this recorded idle admission")
    ap.add_argument("--loaded-from", type=Path, help="reuse this recorded loaded admission")
    args = ap.parse_args()
    if args.idle_from:
        idle, idle_s = _recorded(args.idle_from)
    else:
        idle, idle_s = _admit(args.out / "idle", args.idle_repeat, args.tasks, burners=0)
    if args.loaded_from:
        loaded, loaded_s = _recorded(args.loaded_from)
        burners = _burners(args.loaded_from)
    else:
        with cpu_burners(args.burn_seconds) as burning:
            burners = len(burning)
            loaded, loaded_s = _admit(args.out / "loaded", args.repeat, args.tasks, burners)
    problems = compare(idle, loaded)
    checks = sum(len(a.reference_checks) for a in idle)
    controls = sum(len(a.controls) for a in idle)
    summary = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "commit": subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip(),
        "cores": os.cpu_count(),
        "burners": burners,
        "tasks": len(idle),
        "idle": {"repeat": args.idle_repeat, "seconds": _seconds(idle_s)},
        "loaded": {"repeat": args.repeat, "seconds": _seconds(loaded_s)},
        "admitted_idle": sum(a.admitted for a in idle),
        "admitted_loaded": sum(a.admitted for a in loaded),
        "controls": controls,
        "reference_check_verdicts": checks,
        "flaky_checks_loaded": sum(len(a.flaky_checks) for a in loaded),
        "differences": problems,
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "verdicts-under-load.json").write_bytes(
        msgspec.json.format(msgspec.json.encode(summary))
    )
    idle_wall, loaded_wall = _minutes(idle_s), _minutes(loaded_s)
    lines = [
        "# Verdicts under load (issue #14)",
        "",
        f"{summary['date']}, commit {summary['commit']}, {summary['cores']} cores, "
        f"{burners} CPU burners during the loaded run.",
        "",
        "| run | repeat | tasks admitted | wall |",
        "|---|---|---|---|",
        f"| idle | {args.idle_repeat} | {summary['admitted_idle']}/{len(idle)} | {idle_wall} |",
        f"| saturated cores | {args.repeat} | {summary['admitted_loaded']}/{len(loaded)} "
        f"| {loaded_wall} |",
        "",
        f"Compared: {controls} controls and {checks} reference (checkpoint, check) verdicts; "
        f"flaky checks under load: {summary['flaky_checks_loaded']}.",
        "",
        "Differences: " + ("none." if not problems else ""),
        *[f"- {p}" for p in problems],
    ]
    (RESULTS / "verdicts-under-load.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
