"""Check a sweep's inputs before anything is written, and remember its selection.

`run.json` in the run directory holds what the run was started with (task globs,
solver names, arms, repeats), so `--resume RUN_DIR` plans exactly the same cells
without the user retyping (or mistyping) the filters.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path

import msgspec

from ..config import BenchConfig
from ..contract import discover_tasks
from ..records import Arm

SPEC_FILE = "run.json"


class SweepInputError(Exception):
    """A sweep input that names nothing (a task glob, a solver, a directory): one line."""


class RunSpec(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    tasks: tuple[str, ...] = ()  # --tasks globs ("" = the config's sweep.tasks)
    solvers: tuple[str, ...] = ()  # --solvers names ("" = every solver)
    arms: tuple[Arm, ...]
    repeats: int
    # Tasks run although their contract had no recorded admission (--allow-unadmitted):
    # one line each, as `admission.unadmitted` words it; kept across resumes.
    unadmitted: tuple[str, ...] = ()


def is_run_dir(path: Path) -> bool:
    return (path / "manifest.jsonl").is_file() or (path / SPEC_FILE).is_file()


def read_spec(run_dir: Path) -> RunSpec | None:
    path = run_dir / SPEC_FILE
    if not path.is_file():
        return None  # a run from before run.json existed
    try:
        return msgspec.json.decode(path.read_bytes(), type=RunSpec)
    except msgspec.DecodeError as exc:
        raise SweepInputError(f"{path}: not a run spec ({exc})") from exc


def write_spec(run_dir: Path, spec: RunSpec) -> None:
    tmp = run_dir / (SPEC_FILE + ".tmp")
    tmp.write_bytes(msgspec.json.format(msgspec.json.encode(spec)) + b"\n")
    tmp.replace(run_dir / SPEC_FILE)


def check_selection(cfg: BenchConfig, tasks: tuple[str, ...], solvers: tuple[str, ...]) -> None:
    """Every directory, task glob and solver name must name something."""
    tasks_dir = Path(cfg.sweep.tasks_dir)
    if not tasks_dir.is_dir():
        raise SweepInputError(f"sweep.tasks_dir: no such directory: {tasks_dir}")
    names = [r.name for r in discover_tasks(tasks_dir)]
    where = "--tasks" if tasks else "sweep.tasks"
    for pattern in tasks or cfg.sweep.tasks:
        if not any(fnmatch.fnmatch(n, pattern) for n in names):
            known = ", ".join(names[:12]) + (" ..." if len(names) > 12 else "")
            raise SweepInputError(
                f"{where}: {pattern!r} matches no task in {tasks_dir} (tasks: {known or 'none'})"
            )
    known_solvers = [s.name for s in cfg.solvers]
    for name in solvers:
        if name not in known_solvers:
            raise SweepInputError(
                f"--solvers: unknown solver {name!r} (configured: {', '.join(known_solvers)})"
            )
