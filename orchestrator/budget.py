"""Budgets: typed `BudgetExceeded`, and a sweep-wide ledger of tokens and money.

The ledger is an object passed to whoever spends (no process global), so tests and
concurrent sweeps never share one.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Literal

import anyio

BudgetKind = Literal["turns", "tokens", "money", "wall_time"]


class BudgetExceeded(Exception):
    def __init__(self, kind: BudgetKind, detail: str = "") -> None:
        self.kind = kind
        super().__init__(f"{kind} budget exceeded{': ' + detail if detail else ''}")


@dataclass
class Ledger:
    """Spend. `charge` records spend; `check` raises once a cap is reached.

    A cell spends through `child()`, a ledger of its own that forwards every charge to
    the sweep's: the cell's row then carries what that cell was charged, whatever its end.
    """

    max_usd: float | None = None
    max_tokens: int | None = None
    spent_usd: float = 0.0
    spent_tokens: int = 0
    estimated_requests: int = 0  # charged responses whose usage was estimated
    # Spend past a per-cell money cap (the gateway's `max_usd`): a call's real usage beyond
    # the worst case it was let through on. Kept on the cell's row and in the report.
    overshoot_usd: float = 0.0
    stopped: bool = field(default=False)
    parent: Ledger | None = None

    def child(self) -> Ledger:
        return Ledger(parent=self)

    def charge(self, tokens: int, usd: float, *, estimated: bool = False) -> None:
        """Charge one response; `estimated`: the provider sent no usage, so the tokens
        are an estimate (counted, so a row can say its spend is not exact)."""
        self.spent_tokens += tokens
        self.spent_usd += usd
        self.estimated_requests += estimated
        if self.parent is not None:
            self.parent.charge(tokens, usd, estimated=estimated)
        if self.exhausted:
            self.stopped = True

    def overshoot(self, usd: float) -> None:
        """The cell's spend is `usd` past its own money cap (not forwarded: per cell)."""
        self.overshoot_usd = max(self.overshoot_usd, usd)

    @property
    def exhausted(self) -> bool:
        return (
            (self.max_usd is not None and self.spent_usd >= self.max_usd)
            or (self.max_tokens is not None and self.spent_tokens >= self.max_tokens)
            or (self.parent is not None and self.parent.exhausted)
        )

    def check(self) -> None:
        if self.parent is not None:
            self.parent.check()
        self._check_caps()

    async def acheck(self) -> None:
        """`check` for async callers: a ledger whose totals live elsewhere (the Ray
        engine's `ClusterLedger`) awaits them instead of blocking the event loop."""
        if self.parent is not None:
            await self.parent.acheck()
        self._check_caps()

    def _check_caps(self) -> None:
        if self.max_usd is not None and self.spent_usd >= self.max_usd:
            raise BudgetExceeded("money", f"${self.spent_usd:.4f} of ${self.max_usd:.2f}")
        if self.max_tokens is not None and self.spent_tokens >= self.max_tokens:
            raise BudgetExceeded("tokens", f"{self.spent_tokens} of {self.max_tokens} tokens")


# The running cell's deadline scope, set by the scheduler around each attempt; the grace
# it reserves for the final checkpoint; and the solver phase's own (earlier) deadline.
_CELL_SCOPE: ContextVar[anyio.CancelScope | None] = ContextVar("pwb_cell_scope", default=None)
_GRACE_S: ContextVar[float] = ContextVar("pwb_grace_s", default=0.0)
_WORK_SCOPE: ContextVar[anyio.CancelScope | None] = ContextVar("pwb_work_scope", default=None)


@contextmanager
def cell_deadline(seconds: float, grace_s: float = 0.0) -> Iterator[anyio.CancelScope]:
    """A cell's wall-time budget, which `credit_wait` can push back.

    The solver works for `seconds` (see `solver_phase`); the cell then has `grace_s` more
    to take its final checkpoint before it is cut off without scores. Raises
    `BudgetExceeded("wall_time")` when, and only when, this deadline cancelled the block
    (`fail_after` would re-check the clock after a late credit and swallow the
    cancellation; a library's own `TimeoutError` passes through untouched).
    """
    with anyio.CancelScope(deadline=anyio.current_time() + seconds + grace_s) as scope:
        token = _CELL_SCOPE.set(scope)
        grace = _GRACE_S.set(grace_s)
        try:
            yield scope
        finally:
            _GRACE_S.reset(grace)
            _CELL_SCOPE.reset(token)
    if scope.cancelled_caught:
        raise BudgetExceeded(
            "wall_time",
            f"the cell exceeded its wall-time budget of {seconds:g} s"
            f" and {grace_s:g} s of grace for its final checkpoint",
        )


@contextmanager
def solver_phase() -> Iterator[anyio.CancelScope]:
    """The part of a cell the wall-time budget stops: it ends the grace time before the
    cell's deadline, so the final checkpoint still fits. `cancelled_caught` on the scope
    says the budget ran out (no deadline outside a scheduled cell)."""
    outer = _CELL_SCOPE.get()
    deadline = math.inf if outer is None else outer.deadline - _GRACE_S.get()
    with anyio.CancelScope(deadline=deadline) as scope:
        token = _WORK_SCOPE.set(scope)
        try:
            yield scope
        finally:
            _WORK_SCOPE.reset(token)


def time_left() -> float:
    """Seconds the running solver phase (else the cell) has left; inf outside a cell."""
    scope = _WORK_SCOPE.get() or _CELL_SCOPE.get()
    if scope is None:
        return math.inf
    return scope.deadline - anyio.current_time()


def credit_wait(seconds: float) -> None:
    """Time spent waiting (retries, provider queues, limiters) is not working time.

    Once a deadline has fired, crediting can no longer revive the cell.
    """
    if seconds <= 0:
        return
    for var in (_CELL_SCOPE, _WORK_SCOPE):
        scope = var.get()
        if scope is not None and not scope.cancel_called:
            scope.deadline += seconds


@contextmanager
def waiting() -> Iterator[None]:
    """Time inside this block (queueing on a limiter, a provider outage's pause, a lost
    daemon) is not the cell's: its deadlines are suspended while the block runs (a wait
    longer than the time left must not fire them) and pushed back by its length after.
    Each wait is bounded by its own limit, not by the cell's."""
    t0 = anyio.current_time()
    held: list[tuple[anyio.CancelScope, float]] = []
    for var in (_CELL_SCOPE, _WORK_SCOPE):
        scope = var.get()
        if scope is not None and not scope.cancel_called:
            held.append((scope, scope.deadline))
            scope.deadline = math.inf
    try:
        yield
    finally:
        waited = anyio.current_time() - t0
        for scope, deadline in held:
            if not scope.cancel_called:
                scope.deadline = deadline + waited


@contextmanager
def provider_call() -> Iterator[anyio.CancelScope]:
    """A request to a model provider: it has the time the solver has left, and no more.

    The cell's deadlines do not fire inside the block (one firing mid-request would make
    a provider's hang the cell's budget stop); the block's own scope does, at the same
    instant. Answered in time, the request was the solver's work: the deadlines are as
    they were. Cut off by its scope (`cancelled_caught`: the provider hung past the
    cell's time, to be judged like a read timeout) or ended by an error, its time is
    credited like any wait on a failing provider."""
    t0 = anyio.current_time()
    bound = t0 + time_left()
    held: list[tuple[anyio.CancelScope, float]] = []
    for var in (_CELL_SCOPE, _WORK_SCOPE):
        scope = var.get()
        if scope is not None and not scope.cancel_called:
            held.append((scope, scope.deadline))
            scope.deadline = math.inf
    answered = False
    try:
        with anyio.CancelScope(deadline=bound) as call:
            yield call
        answered = not call.cancelled_caught
    finally:
        waited = 0.0 if answered else anyio.current_time() - t0
        for scope, deadline in held:
            if not scope.cancel_called:
                scope.deadline = deadline + waited
