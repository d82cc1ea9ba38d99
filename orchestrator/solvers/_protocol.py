"""The seam between the cell and a solver.

A solver sees a `Workspace` (file tools) and the user's messages; never the sandbox,
the checks, the reference or the evidence. One call to `respond` is one *turn*.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, Protocol

import msgspec

from ..workspace import Workspace

MessageKind = Literal["reveal", "pushback", "answer", "full_spec"]
TurnEnd = Literal["edited", "question", "done", "idle"]


class UserMessage(msgspec.Struct, frozen=True, kw_only=True):
    kind: MessageKind
    text: str
    unit_id: str  # offline solvers key on it; an LLM is only shown `text`
    unit_index: int
    screenshots: tuple[Path, ...] = ()  # states after the last checkpoint (vision arm)


class Usage(msgspec.Struct, frozen=True, kw_only=True):
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    requests: int = 0
    # Seconds spent waiting on retries and provider queues: not charged to working time.
    wait_s: float = 0.0
    cache_read_tokens: int = 0  # of input_tokens: served from the provider's prompt cache
    estimated_requests: int = 0  # responses without usage: their tokens are estimates

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cost_usd=self.cost_usd + other.cost_usd,
            requests=self.requests + other.requests,
            wait_s=self.wait_s + other.wait_s,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            estimated_requests=self.estimated_requests + other.estimated_requests,
        )


class SolverTurn(msgspec.Struct, frozen=True, kw_only=True):
    """How a turn ended: edits made, a question for the user, done, or nothing."""

    end: TurnEnd
    question: str = ""
    note: str = ""  # the solver's own words, for the transcript
    usage: Usage = Usage()


class SolverError(Exception):
    """The solver failed for a reason that is not the sandbox's (e.g. the LLM provider)."""


class Solver(Protocol):
    name: str

    async def respond(self, message: UserMessage, workspace: Workspace) -> SolverTurn: ...

    async def aclose(self) -> None: ...
