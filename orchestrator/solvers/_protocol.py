"""The seam between the cell and a solver.

A solver sees a `Workspace` (file tools) and the user's messages; never the checks, the
reference or the evidence (the scaffold's agent runs in the sandbox it is bound to). One
call to `respond` is one *turn*.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Literal, Protocol

import msgspec

from ..events import SlipKind
from ..records.trajectory import Entry
from ..usage import SolverError as SolverError
from ..usage import Usage as Usage
from ..workspace import Workspace
from ._lifecycle import CellBinding, Verdict

MessageKind = Literal["reveal", "pushback", "answer", "full_spec"]
TurnEnd = Literal["edited", "question", "done", "idle"]


class UserMessage(msgspec.Struct, frozen=True, kw_only=True):
    kind: MessageKind
    text: str
    unit_id: str  # offline solvers key on it; an LLM is only shown `text`
    unit_index: int
    screenshots: tuple[Path, ...] = ()  # states after the last checkpoint (vision arm)


class ModelSlip(msgspec.Struct, frozen=True, kw_only=True):
    """One mistake of the model in a turn; the cell logs it as a `slip` event."""

    what: SlipKind
    text: str


class SolverTurn(msgspec.Struct, frozen=True, kw_only=True):
    """How a turn ended: edits made, a question for the user, done, or nothing."""

    end: TurnEnd
    question: str = ""
    note: str = ""  # the solver's own words, for the transcript
    usage: Usage = Usage()
    messages: tuple[Entry, ...] = ()  # the turn's conversation (LLM solvers), for the trajectory
    slips: tuple[ModelSlip, ...] = ()  # the model's own mistakes in this turn


class Solver(Protocol):
    """A solver's lifecycle (`_lifecycle`): bound to the cell for its delivery, one
    `respond` per turn, judged, closed by its owner."""

    name: str

    def bind(self, cell: CellBinding) -> AbstractAsyncContextManager[object]: ...

    def verdict(self) -> Verdict | None: ...

    async def respond(self, message: UserMessage, workspace: Workspace) -> SolverTurn: ...

    async def aclose(self) -> None: ...
