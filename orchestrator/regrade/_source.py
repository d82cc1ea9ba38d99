"""What a regrade grades: the cells of a run directory, or of a submission file.

Each cell becomes a `Planned`: its key and manifest template (the task's labels and
contract hash as they are now), its trajectory, or why it cannot be graded (`refusal`:
a malformed record, an unknown task, no trajectory); and, from a run directory, the row
and checkpoint verdicts it is compared with. A bad cell never stops the others.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import msgspec

from ..contract import TaskPackage
from ..events import Checkpoint, CheckpointSummary, read_events
from ..records import (
    Arm,
    Cancelled,
    ManifestRow,
    TaskLabels,
    cell_dir_name,
    latest_by_cell,
    read_rows,
)
from ..records import trajectory as tj
from ._submission import SubmittedCell, read_submission


class Planned(msgspec.Struct, frozen=True, kw_only=True):
    key: str
    template: ManifestRow
    trajectory: tj.Trajectory | None = None
    refusal: str = ""  # why the cell is not graded ("" = it is)
    old: ManifestRow | None = None  # the row it is compared with (a run directory)
    old_checkpoints: tuple[CheckpointSummary, ...] = ()


def labels_of(task: TaskPackage) -> TaskLabels:
    c = task.contract
    return TaskLabels(
        regime=c.regime,
        capability=c.capability,
        facet=c.facet,
        stack=c.stack,
        framework=c.framework,
    )


def _template(
    sweep: str,
    key: str,
    task_id: str,
    task: TaskPackage | None,
    solver: str,
    arm: Arm,
    repeat: int,
    config_hash: str,
    old: ManifestRow | None,
) -> ManifestRow:
    labels = labels_of(task) if task is not None else None
    if labels is None:
        labels = (
            old.labels
            if old is not None
            else TaskLabels(
                regime="change", capability="edit", facet="content", stack="", framework=""
            )
        )
    return ManifestRow(
        sweep=sweep,
        cell=key,
        task=task_id,
        labels=labels,
        contract_hash=task.contract_hash if task is not None else "",
        config_hash=config_hash,
        solver=solver,
        arm=arm,
        repeat=repeat,
        outcome=Cancelled(error="not run"),
    )


def _last_attempt(summaries: list[tuple[int, CheckpointSummary]]) -> tuple[CheckpointSummary, ...]:
    """The checkpoints of the cell's last attempt (its log goes on across attempts)."""
    out: list[CheckpointSummary] = []
    for index, summary in summaries:
        if index == 1:
            out = []
        out.append(summary)
    return tuple(out)


TaskOf = Callable[[str], TaskPackage | None]


def from_run_dir(run_dir: Path, tasks: TaskOf, sweep: str) -> list[Planned]:
    """Every cell of `run_dir` whose latest row carries a result."""
    planned = []
    for key, row in sorted(latest_by_cell(read_rows(run_dir / "manifest.jsonl")).items()):
        if row.result is None:
            continue
        task = tasks(row.task)
        template = _template(
            sweep, key, row.task, task, row.solver, row.arm, row.repeat, row.config_hash, row
        )
        cell_dir = run_dir / "cells" / cell_dir_name(key)
        events = read_events(cell_dir / "events.jsonl")
        old = _last_attempt(
            [(e.checkpoint.index, e.checkpoint) for e in events if isinstance(e, Checkpoint)]
        )
        base = Planned(key=key, template=template, old=row, old_checkpoints=old)
        if task is None:
            planned.append(msgspec.structs.replace(base, refusal=f"unknown task {row.task!r}"))
            continue
        try:
            traj = tj.read(cell_dir / tj.FILE)
        except tj.TrajectoryError as exc:
            planned.append(msgspec.structs.replace(base, refusal=str(exc)))
            continue
        planned.append(msgspec.structs.replace(base, trajectory=traj))
    return planned


def _check_identity(cell: SubmittedCell, traj: tj.Trajectory) -> str:
    h = traj.header
    if (h.task, h.arm) != (cell.task, cell.arm):
        return f"trajectory of {h.task}/{h.arm}, submitted as {cell.task}/{cell.arm}"
    return ""


def from_submission(path: Path, tasks: TaskOf, sweep: str) -> list[Planned]:
    """Every cell of a submission file; a cell that cannot be read is refused alone."""
    planned = []
    for n, item in enumerate(read_submission(path), 2):
        key = f"submission/line-{n}"
        if isinstance(item, str):  # a record that is not a cell: refused by line
            planned.append(
                Planned(
                    key=key,
                    template=_template(sweep, key, "?", None, "?", "staged", 0, "", None),
                    refusal=item,
                )
            )
            continue
        cell = item
        key = f"{cell.task}/{cell.solver}/{cell.arm}/{cell.repeat}"
        task = tasks(cell.task)
        template = _template(
            sweep, key, cell.task, task, cell.solver, cell.arm, cell.repeat, "submission", None
        )
        base = Planned(key=key, template=template)
        if task is None:
            planned.append(msgspec.structs.replace(base, refusal=f"unknown task {cell.task!r}"))
            continue
        try:
            traj = tj.parse(cell.trajectory.encode(), f"{path.name}:{n}: {key}")
        except tj.TrajectoryError as exc:
            planned.append(msgspec.structs.replace(base, refusal=str(exc)))
            continue
        why = _check_identity(cell, traj)
        planned.append(
            msgspec.structs.replace(base, refusal=why)
            if why
            else msgspec.structs.replace(base, trajectory=traj)
        )
    seen: dict[str, int] = {}
    out = []
    for p in planned:  # one cell per key: a repeated key is refused, the first kept
        seen[p.key] = seen.get(p.key, 0) + 1
        if seen[p.key] > 1:
            p = msgspec.structs.replace(
                p, key=f"{p.key}#{seen[p.key]}", trajectory=None, refusal="duplicate cell key"
            )
            p = msgspec.structs.replace(p, template=msgspec.structs.replace(p.template, cell=p.key))
        out.append(p)
    return out
