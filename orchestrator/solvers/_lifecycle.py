"""A solver's lifecycle in one cell: bound to the cell's sandbox, event log and gateway
for the cell's delivery (`async with solver.bind(cell)`), judged afterwards
(`verdict()`), closed by its owner (`aclose()`).

The cell binds every solver the same way, never asking what kind it is: a solver that
acts only through the workspace (the offline controls, the LLM agent, a regrade's
replay) inherits `WorkspaceSolver`, whose binding does nothing and whose verdict is None; the
scaffold solver keeps what it is bound to for its turns and lets go of it on exit.
"""

from __future__ import annotations

import contextlib
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..budget import BudgetExceeded
from ..llm import LLMError, ProviderOutage, ProviderRefused

if TYPE_CHECKING:
    from sandbox import Sandbox

    from ..events import EventLog
    from ..gateway import Gateway

# How an agent's run ended when it was not its own clean finish: a cap, a provider error,
# a provider outage (then the cell ends `outage` and `--resume` runs it again) or a setup
# the provider refused (`config_error`: the sweep stops, `--resume` runs it again).
Verdict = BudgetExceeded | LLMError | ProviderOutage | ProviderRefused


@dataclass(frozen=True)
class GatewayBinding:
    """The sweep's LLM gateway as one cell's agent reaches it."""

    gateway: Gateway
    host: str  # its address as the sandbox reaches it ('' = loopback)
    account: str  # the cell's account name (its key)


@dataclass(frozen=True)
class CellBinding:
    """What a cell binds its solver to for the delivery."""

    sandbox: Sandbox
    log: EventLog
    gateway: GatewayBinding | None = None  # None: no gateway (offline, `cell` command)


class WorkspaceSolver:
    """The no-op lifecycle of a solver that acts only through the workspace."""

    def bind(self, cell: CellBinding) -> AbstractAsyncContextManager[object]:
        del cell
        return contextlib.nullcontext()

    def verdict(self) -> Verdict | None:
        return None
