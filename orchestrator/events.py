"""The cell event log: one JSON line per event, flushed as it happens.

Events are a msgspec tagged union on `kind`: each kind is a Struct with its own typed
fields, so a misspelled field is a type error when written and a decode error when
read. A crashed cell's log is still readable up to its last complete line
(`read_events` uses the project's one JSONL reader, `read_jsonl` of `orchestrator.records`).
"""

from __future__ import annotations

import time
from pathlib import Path
from types import TracebackType
from typing import IO, Literal

import msgspec

from .contract import Gate
from .gateway import RequestRecord
from .records import CheckResult, GateStatus, read_jsonl

# Why an attempt (or one member of an exception group) ended; see `orchestrator.faults`.
FaultClass = Literal[
    "infra", "llm", "outage", "budget", "stop", "task", "solver", "harness", "cancelled"
]


class CheckpointSummary(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    index: int
    unit: str  # "" for the final checkpoint
    build_ok: bool
    serve_ok: bool
    passed: int
    failed: int
    gates: dict[Gate, GateStatus]
    checks: tuple[CheckResult, ...] = ()
    screenshots: dict[str, str] = {}  # state id -> artifact path relative to the cell dir
    duration_s: float = 0.0
    # Replay reuse (`verifier/_reuse/_cache.py`): state -> why its earlier observation was kept,
    # and state -> why it was replayed at this checkpoint.
    reused: dict[str, str] = {}
    replayed: dict[str, str] = {}
    # How the states were obtained: "reused", replayed on a "warm" or a "fresh" context,
    # or "shared" (evaluated on an identical replay's page); and why warm contexts were
    # closed instead of reused (reason -> how often).
    replays: dict[str, int] = {}
    warm_fallbacks: dict[str, int] = {}


class _Event(
    msgspec.Struct,
    frozen=True,
    kw_only=True,
    forbid_unknown_fields=True,
    omit_defaults=True,
    tag_field="kind",
):
    t: float = msgspec.field(default_factory=time.time)
    unit: str = ""

    @property
    def kind(self) -> str:
        tag = self.__struct_config__.tag
        assert isinstance(tag, str)
        return tag


class Start(_Event, frozen=True, kw_only=True, tag="start"):
    text: str


class Reveal(_Event, frozen=True, kw_only=True, tag="reveal"):
    text: str


class Turn(_Event, frozen=True, kw_only=True, tag="turn"):
    turn: int
    text: str = ""
    tokens: int = 0
    cost_usd: float = 0.0


# A model's own mistake in one reply (the LLM agent's turns): it stays the solver's mess,
# so the cell's row is `ok` with its score; the event says what went wrong.
SlipKind = Literal[
    "bad_arguments",  # a tool call whose arguments are not a JSON object of strings
    "unknown_tool",  # a tool call naming a tool the model was not offered
    "no_call",  # text where a tool call was expected: the turn ends
    "empty",  # no text and no tool call
    "repeat",  # the same call(s) in consecutive replies, past the limit: the turn ends
    "truncated",  # the reply was cut at max_output_tokens (finish_reason "length")
    "context_window",  # the reply was cut at the model's context window
]


class Slip(_Event, frozen=True, kw_only=True, tag="slip"):
    """One mistake of the model in a turn of the LLM agent, classified (`SlipKind`)."""

    turn: int
    what: SlipKind
    text: str


class Edit(_Event, frozen=True, kw_only=True, tag="edit"):
    path: str
    applied: bool
    text: str = ""  # why it was refused


class Question(_Event, frozen=True, kw_only=True, tag="question"):
    text: str


class Answer(_Event, frozen=True, kw_only=True, tag="answer"):
    text: str


class Pushback(_Event, frozen=True, kw_only=True, tag="pushback"):
    text: str


class Checkpoint(_Event, frozen=True, kw_only=True, tag="checkpoint"):
    checkpoint: CheckpointSummary


class Cleared(_Event, frozen=True, kw_only=True, tag="cleared"):
    turn: int


class Cap(_Event, frozen=True, kw_only=True, tag="cap"):
    turn: int


class FlipEvent(_Event, frozen=True, kw_only=True, tag="flip"):
    check: str
    passed_at: int
    failed_at: int


class Repair(_Event, frozen=True, kw_only=True, tag="repair"):
    check: str
    passed_at: int
    failed_at: int
    repaired_at: int


class Final(_Event, frozen=True, kw_only=True, tag="final"):
    gates: dict[Gate, GateStatus]
    # The accessibility continuity checks that failed (graded after the final
    # checkpoint, against R0: `verifier/_a11y/_gate.py`), with their grounded messages.
    a11y_failed: tuple[CheckResult, ...] = ()


class Baseline(_Event, frozen=True, kw_only=True, tag="baseline"):
    gates: dict[Gate, GateStatus]


class BudgetEvent(_Event, frozen=True, kw_only=True, tag="budget"):
    text: str


class Broken(_Event, frozen=True, kw_only=True, tag="broken"):
    """The solver broke its own workspace; the cell ends and is graded on it."""

    text: str


class DiskLimit(_Event, frozen=True, kw_only=True, tag="disk_limit"):
    """The work tree went past its disk limit; the cell ends and is graded on it."""

    text: str


class Error(_Event, frozen=True, kw_only=True, tag="error"):
    """One failure (every member of an exception group gets its own), classified."""

    cause: FaultClass
    error: str  # "<ExceptionType>: message"
    attempt: int = 0
    traceback: str = ""


class AgentRun(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One run of a scaffold's CLI agent (also on timeouts and budget stops)."""

    exit_code: int
    timed_out: bool = False
    killed: bool = False  # stopped by the harness after a budget refusal
    duration_s: float = 0.0
    timeout_s: float = 0.0  # the time it was given
    verdict: str = ""  # "" = ok; else why the cell is not `ok`
    output: tuple[str, ...] = ()  # the last lines of its output
    requests: tuple[RequestRecord, ...] = ()  # the gateway's log of its model calls
    tokens: int = 0
    cost_usd: float = 0.0


class Agent(_Event, frozen=True, kw_only=True, tag="agent"):
    """A scaffold's CLI agent ran: its output tail and the gateway's log of its calls."""

    run: AgentRun


class End(_Event, frozen=True, kw_only=True, tag="end"):
    text: str


Event = (
    Start
    | Reveal
    | Turn
    | Slip
    | Edit
    | Question
    | Answer
    | Pushback
    | Checkpoint
    | Cleared
    | Cap
    | FlipEvent
    | Repair
    | Final
    | Baseline
    | BudgetEvent
    | Broken
    | DiskLimit
    | Agent
    | Error
    | End
)


class EventLog:
    """Append-only JSONL writer owned by one cell (`with EventLog(path) as log`)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fh: IO[bytes] | None = None
        self._enc = msgspec.json.Encoder()
        self.events: list[Event] = []

    def __enter__(self) -> EventLog:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = self.path.open("ab")
        return self

    def __exit__(
        self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def emit(self, event: Event) -> Event:
        self.events.append(event)
        if self._fh is not None:
            self._fh.write(self._enc.encode(event) + b"\n")
            self._fh.flush()
        return event


def append_event(path: Path, event: Event) -> None:
    """Append one event to a cell's log outside a running cell (e.g. a harness error)."""
    with EventLog(path) as log:
        log.emit(event)


def read_events(path: Path) -> list[Event]:
    """Read a log with the project's JSONL policy (torn last line and bad lines skipped)."""
    items: list[Event] = read_jsonl(path, Event).items
    return items
