"""Read `RUN_DIR/manifest.jsonl` and keep the rows that still describe the current tasks.

Rows are read by the project's one JSONL reader (`orchestrator.records.read_jsonl`), the same one
resume uses, so both see the same rows: a torn last line (a sweep killed mid-write) is
dropped, and a line that is not a row is left out and *counted* (its line numbers are
printed in the report header, never skipped silently). When a cell has more
than one row (a resumed sweep re-ran it), the last row wins. A row is *stale* when its
task no longer loads from the tasks directory or its `contract_hash` differs from the
task's current hash; stale rows are left out and counted.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from .. import records
from ..contract import SAFE_ID_RULE, ContractError, TaskPackage, is_safe_id, load_task, shown
from ..records import JsonlRead, ManifestRow, cell_dir_name
from ..solver_cards import SolverCard, guess_card, read_cards


class ReportError(Exception):
    """The run directory cannot be reported on (missing or corrupt manifest)."""


class LoadStats(msgspec.Struct, frozen=True, kw_only=True):
    lines: int  # complete rows read
    torn: int  # 0 or 1: a torn last line was dropped
    unreadable: tuple[int, ...] = ()  # line numbers that are not a manifest row
    superseded: int  # earlier rows of a cell that was written again
    stale_hash: int  # contract_hash differs from the task's current hash
    missing_task: int  # task directory gone or no longer valid
    kept: int


class LoadedRun(msgspec.Struct, frozen=True, kw_only=True):
    rows: tuple[ManifestRow, ...]
    stats: LoadStats
    task_roots: dict[str, Path]  # task id -> its current package directory
    twins: dict[str, str] = {}  # greenfield twin's task id -> its source's (`twin_of`)
    cards: dict[str, SolverCard] = {}  # RUN_DIR/solvers.json: what each solver is
    # Earlier rows of cells written again (a resumed sweep re-ran them): not results, but
    # what they were charged was spent (the cost table counts it).
    superseded: tuple[ManifestRow, ...] = ()
    # RUN_DIR/run.json's `unadmitted`: tasks the sweep ran although their contract had no
    # recorded admission (`--allow-unadmitted`), one line each.
    unadmitted: tuple[str, ...] = ()

    def card(self, solver: str) -> SolverCard:
        return self.cards.get(solver) or guess_card(solver)


class _RunNotes(msgspec.Struct, frozen=True, kw_only=True):
    """What the report reads of `run.json` (the sweep's `RunSpec`); other fields ignored."""

    unadmitted: tuple[str, ...] = ()


def read_unadmitted(run_dir: Path) -> tuple[str, ...]:
    """The tasks the sweep was allowed to run unadmitted; a run.json that is missing or
    unreadable says nothing (the manifest is what the report is about)."""
    try:
        return msgspec.json.decode((run_dir / "run.json").read_bytes(), type=_RunNotes).unadmitted
    except (OSError, msgspec.DecodeError):
        return ()


def read_manifest(path: Path) -> JsonlRead[ManifestRow]:
    """All rows in file order, read exactly as `--resume` reads them."""
    if not path.is_file():
        raise ReportError(f"{path}: expected a manifest.jsonl, got none")
    return records.read_manifest(path)


def _unsafe(path: Path, row: ManifestRow) -> str | None:
    """Why the names of `row` must not become paths (the task id joins `--tasks-dir`,
    the cell key names the cell's directories), or None."""
    if not is_safe_id(row.task):
        return f"{path}: a row's task: expected {SAFE_ID_RULE}, got {shown(row.task)}"
    name = cell_dir_name(row.cell)
    if not name.isprintable() or name.startswith(".") or len(name.encode()) > 255:
        return f"{path}: a row's cell: expected a printable cell key, got {shown(row.cell)}"
    return None


def load_run(run_dir: Path, tasks_dir: Path) -> LoadedRun:
    read = read_manifest(run_dir / "manifest.jsonl")
    raw = read.items
    for row in raw:
        if (why := _unsafe(run_dir / "manifest.jsonl", row)) is not None:
            raise ReportError(why)
    latest: dict[str, ManifestRow] = {}
    earlier: list[ManifestRow] = []
    for row in raw:
        if (old := latest.pop(row.cell, None)) is not None:  # re-insert: last write's order
            earlier.append(old)
        latest[row.cell] = row
    hashes: dict[str, str | None] = {}
    roots: dict[str, Path] = {}
    twins: dict[str, str] = {}
    kept: list[ManifestRow] = []
    stale = missing = 0
    for row in latest.values():
        if row.task not in hashes:
            task = _current(tasks_dir / row.task)
            hashes[row.task] = task.contract_hash if task else None
            if task is not None:
                roots[row.task] = tasks_dir / row.task
                if task.contract.twin_of is not None:
                    twins[row.task] = task.contract.twin_of
        current = hashes[row.task]
        if current is None:
            missing += 1
        elif current != row.contract_hash:
            stale += 1
        else:
            kept.append(row)
    stats = LoadStats(
        lines=len(raw),
        torn=int(read.torn),
        unreadable=tuple(b.line for b in read.bad),
        superseded=len(raw) - len(latest),
        stale_hash=stale,
        missing_task=missing,
        kept=len(kept),
    )
    return LoadedRun(
        rows=tuple(kept),
        stats=stats,
        task_roots=roots,
        twins=twins,
        cards=read_cards(run_dir),
        superseded=tuple(earlier),
        unadmitted=read_unadmitted(run_dir),
    )


def _current(root: Path) -> TaskPackage | None:
    if not root.is_dir():
        return None
    try:
        return load_task(root)
    except ContractError:
        return None
