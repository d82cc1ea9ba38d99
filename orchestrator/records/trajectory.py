"""A cell's trajectory (`cells/<cell>/trajectory.jsonl`): what the solver did, turn by
turn, recorded as the cell runs, so that the cell can be graded again without the solver.

Versioned by `SCHEMA` (in the header, the first line). One JSON record per line, a tagged
union on `kind`:

    header      task id, contract hash, arm, solver, attempt, R0's tree id, allowed paths,
                the verifier's version and the rendering environment's fingerprint
    message     what the simulated user said (a unit's reveal, the full spec, a pushback,
                an answer) with the unit and the number of the turn it opens
    turn        one solver turn: how it ended, its question and note, its usage, the tree
                before and after it, the patch between the two (`git diff-tree -p
                --binary` of the snapshot trees, empty when nothing changed), and the
                solver's messages and tool calls (the LLM solver's; a scaffold agent's
                run is summarised in `note`)
    checkpoint  a checkpoint's index, unit, label and the tree id it verified
    stop        why the solver stopped early (a budget: its kind and message)
    end         the cell's turns and total usage

Self-contained: with the task package it is everything `regrade` needs. It holds what
the solver saw and wrote, never a grader-only byte (no check, evidence or reference:
verdicts stay in `events.jsonl`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Literal

import msgspec

from ..budget import BudgetKind
from ..usage import Usage

SCHEMA = 1
FILE = "trajectory.jsonl"
MessageKind = Literal["reveal", "pushback", "answer", "full_spec"]
TurnEnd = Literal["edited", "question", "done", "idle"]


class _Rec(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="kind"):
    pass


class ToolCallEntry(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    id: str
    name: str
    arguments_json: str


class Entry(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One message of the solver's conversation (images are not recorded, only counted)."""

    role: Literal["user", "assistant", "tool"]
    text: str = ""
    tool_calls: tuple[ToolCallEntry, ...] = ()
    call_id: str = ""  # role "tool": the call it answers
    name: str = ""  # role "tool": the tool
    is_error: bool = False
    images: int = 0


class Header(_Rec, frozen=True, kw_only=True, tag="header"):
    schema: int = SCHEMA
    task: str
    contract_hash: str
    arm: Literal["staged", "full-spec"]
    solver: str
    attempt: int = 1
    r0_tree: str
    allowed_paths: tuple[str, ...]
    verifier: str = ""  # the verifier's version (a digest of its source) that graded it
    render_env: str = ""  # the rendering environment's fingerprint ("" with no browser)


class Message(_Rec, frozen=True, kw_only=True, tag="message"):
    type: MessageKind
    unit: str
    unit_index: int
    turn: int  # the turn this message opens (1-based over the cell)
    text: str


class Turn(_Rec, frozen=True, kw_only=True, tag="turn"):
    turn: int
    unit: str
    end: TurnEnd
    question: str = ""
    note: str = ""
    usage: Usage = Usage()
    tree_before: str
    tree_after: str
    patch: bytes = b""  # tree_before -> tree_after; base64 in the JSON
    messages: tuple[Entry, ...] = ()


class Checkpoint(_Rec, frozen=True, kw_only=True, tag="checkpoint"):
    index: int
    unit: str  # "" for the final checkpoint
    after_turn: int
    tree: str


class Stop(_Rec, frozen=True, kw_only=True, tag="stop"):
    """The solver was stopped by a budget during turn `turn`."""

    turn: int
    budget: BudgetKind
    text: str


class End(_Rec, frozen=True, kw_only=True, tag="end"):
    turns: int
    usage: Usage


Record = Header | Message | Turn | Checkpoint | Stop | End
_ENCODER = msgspec.json.Encoder()
_DECODER = msgspec.json.Decoder(Record)


class TrajectoryError(Exception):
    """A trajectory that cannot be read: one line naming the file, the line and why."""


class TrajectoryWriter:
    """Appends records to a trajectory file, one line each, flushed at once (a killed cell
    leaves every record written so far). A new attempt starts a new file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._f = path.open("wb")

    def write(self, record: Record) -> None:
        self._f.write(_ENCODER.encode(record) + b"\n")
        self._f.flush()

    def close(self) -> None:
        self._f.close()

    def __enter__(self) -> TrajectoryWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class Trajectory(msgspec.Struct, frozen=True, kw_only=True):
    """A whole trajectory, read and checked: one header first, then the rest in order."""

    header: Header
    records: tuple[Record, ...]

    def turns(self) -> Iterator[Turn]:
        return (r for r in self.records if isinstance(r, Turn))

    def checkpoints(self) -> Iterator[Checkpoint]:
        return (r for r in self.records if isinstance(r, Checkpoint))

    def stop(self) -> Stop | None:
        return next((r for r in self.records if isinstance(r, Stop)), None)

    def end(self) -> End | None:
        return next((r for r in self.records if isinstance(r, End)), None)


def parse(data: bytes, where: str) -> Trajectory:
    """Decode and check a trajectory; `TrajectoryError` names `where`, the line and why."""
    records: list[Record] = []
    for n, line in enumerate(data.splitlines(), 1):
        if not line.strip():
            continue
        try:
            records.append(_DECODER.decode(line))
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise TrajectoryError(f"{where}:{n}: malformed record: {exc}") from exc
    if not records or not isinstance(records[0], Header):
        raise TrajectoryError(f"{where}:1: expected a header record first")
    header = records[0]
    if header.schema != SCHEMA:
        raise TrajectoryError(f"{where}:1: schema {header.schema}, this harness reads {SCHEMA}")
    if any(isinstance(r, Header) for r in records[1:]):
        raise TrajectoryError(f"{where}: more than one header")
    turns = [r.turn for r in records if isinstance(r, Turn)]
    if turns != list(range(1, len(turns) + 1)):
        raise TrajectoryError(f"{where}: turns out of order ({turns[:8]})")
    return Trajectory(header=header, records=tuple(records[1:]))


def read(path: Path) -> Trajectory:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise TrajectoryError(f"{path}: cannot read: {exc.strerror}") from exc
    return parse(data, str(path))
