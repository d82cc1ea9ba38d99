"""A submission: a run's trajectories and solver cards in one file, no grader data.

`export RUN_DIR -o FILE` writes it; `regrade --submission FILE` grades it anywhere the
suite is installed. JSON Lines: a `SubmissionHeader` first (schema, the solver cards),
then one `SubmittedCell` per cell (its identity and its trajectory's text). Read as data
from anyone: the file is size-capped, each line decoded alone, and a line that does not
decode is refused by number (`read_submission`), never the whole file.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import msgspec

from ..contract import CANARY
from ..records import Arm, cell_dir_name, latest_by_cell, read_rows
from ..records import trajectory as tj
from ..solver_cards import SolverCard, read_cards

SCHEMA = 1
MAX_FILE_BYTES = 1 << 30
MAX_CELL_BYTES = 64 << 20
_NAME = r"^[A-Za-z0-9][A-Za-z0-9._:+-]{0,127}$"
Name = Annotated[str, msgspec.Meta(pattern=_NAME)]


class SubmissionError(Exception):
    """The submission as a whole cannot be read (missing, too big, no header): one line."""


class SubmissionHeader(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    schema: int
    cards: tuple[SolverCard, ...] = ()


class SubmittedCell(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    task: Name
    solver: Name
    arm: Arm
    repeat: Annotated[int, msgspec.Meta(ge=0, le=10_000)] = 0
    trajectory: str  # the cell's trajectory.jsonl, as text


def export_run(run_dir: Path, out: Path) -> tuple[int, list[str]]:
    """Write `run_dir`'s trajectories (cells with a result) and cards to `out`; returns
    (cells written, one line per cell left out and why)."""
    cards = tuple(sorted(read_cards(run_dir).values(), key=lambda c: c.name))
    lines = [msgspec.json.encode(SubmissionHeader(schema=SCHEMA, cards=cards))]
    skipped = []
    for key, row in sorted(latest_by_cell(read_rows(run_dir / "manifest.jsonl")).items()):
        if row.result is None:
            continue
        path = run_dir / "cells" / cell_dir_name(key) / tj.FILE
        try:
            data = path.read_bytes()
            tj.parse(data, str(path))
        except OSError as exc:
            skipped.append(f"{key}: no trajectory ({exc.strerror})")
            continue
        except tj.TrajectoryError as exc:
            skipped.append(f"{key}: {exc}")
            continue
        if CANARY.encode() in data:  # grader data must never leave in a submission
            skipped.append(f"{key}: the trajectory holds the grader-only canary: not exported")
            continue
        cell = SubmittedCell(
            task=row.task,
            solver=row.solver,
            arm=row.arm,
            repeat=row.repeat,
            trajectory=data.decode("utf-8", errors="replace"),
        )
        lines.append(msgspec.json.encode(cell))
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_bytes(b"\n".join(lines) + b"\n")
    tmp.replace(out)
    return len(lines) - 1, skipped


def read_header(path: Path) -> SubmissionHeader:
    first = _read(path).split(b"\n", 1)[0]
    try:
        header = msgspec.json.decode(first, type=SubmissionHeader)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise SubmissionError(f"{path}:1: not a submission header ({exc})") from exc
    if header.schema != SCHEMA:
        raise SubmissionError(f"{path}:1: submission schema {header.schema}, expected {SCHEMA}")
    return header


def _read(path: Path) -> bytes:
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise SubmissionError(f"{path}: {size} bytes, more than {MAX_FILE_BYTES}")
        return path.read_bytes()
    except OSError as exc:
        raise SubmissionError(f"{path}: cannot read: {exc.strerror}") from exc


def read_submission(path: Path) -> Iterator[SubmittedCell | str]:
    """Each cell line decoded, or a one-line refusal naming the line and why."""
    read_header(path)
    dec = msgspec.json.Decoder(SubmittedCell)
    for n, line in enumerate(_read(path).split(b"\n")[1:], 2):
        if not line.strip():
            continue
        if len(line) > MAX_CELL_BYTES:
            yield f"{path.name}:{n}: a cell of {len(line)} bytes (more than {MAX_CELL_BYTES})"
            continue
        try:
            yield dec.decode(line)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            yield f"{path.name}:{n}: malformed record: {exc}"
