"""The cell event log: one JSON line per event, flushed as it happens.

A crashed cell's log is still readable up to its last complete line.
"""

from __future__ import annotations

import time
from pathlib import Path
from types import TracebackType
from typing import IO, Literal

import msgspec

from .results import CheckResult

EventKind = Literal[
    "start",
    "reveal",
    "turn",
    "edit",
    "question",
    "answer",
    "checkpoint",
    "pushback",
    "cleared",
    "flip",
    "repair",
    "cap",
    "final",
    "baseline",
    "budget",
    "disk_limit",
    "error",
    "end",
]


class CheckpointSummary(msgspec.Struct, frozen=True, kw_only=True):
    index: int
    unit: str  # "" for the final checkpoint
    build_ok: bool
    serve_ok: bool
    passed: int
    failed: int
    gates: dict[str, str]
    checks: tuple[CheckResult, ...] = ()
    screenshots: dict[str, str] = {}  # state id -> artifact path relative to the cell dir
    duration_s: float = 0.0


class Event(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    t: float
    kind: EventKind
    unit: str = ""
    turn: int = 0
    text: str = ""
    path: str = ""
    applied: bool | None = None
    check: str = ""
    passed_at: int | None = None
    failed_at: int | None = None
    checkpoint: CheckpointSummary | None = None
    tokens: int = 0
    cost_usd: float = 0.0


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

    def emit(self, kind: EventKind, **fields: object) -> Event:
        event = msgspec.convert({"t": time.time(), "kind": kind, **fields}, Event)
        self.events.append(event)
        if self._fh is not None:
            self._fh.write(self._enc.encode(event) + b"\n")
            self._fh.flush()
        return event


def read_events(path: Path) -> list[Event]:
    """Read a log, dropping a torn last line."""
    out = []
    dec = msgspec.json.Decoder(Event)
    for line in path.read_bytes().splitlines():
        try:
            out.append(dec.decode(line))
        except msgspec.DecodeError:
            break
    return out
