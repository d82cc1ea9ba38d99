"""How a cell's delivery ended: one tagged union, decided once where the delivery ends
(`_deliver.deliver`) and carried as it is by the `Delivery` and the `CellReport`.

    Finished        the solver finished (every unit reached, or it said it was done);
                    its final checkpoint ran
    BudgetStopped   a budget (turns, tokens, money, wall time) stopped the solver; its
                    final checkpoint ran, and it is scored on what it delivered
    DiskLimitHit    the work tree went past its disk limit: the solver's doing, its tree
                    is not verified (every gate fails)
    TreeBroken      the solver broke the work tree (git cannot read it back): as above

The last two may come after a budget stopped the solver (its final checkpoint found the
flood or the breakage): `stop` keeps that budget, so the row is still `budget`.

The on-disk records keep their strings (`CellResult.broken`, a `budget` row's `kind` and
`error`): they are derived from the end where they are written (`broken_text`,
`budget_stop`), never stored beside it.
"""

from __future__ import annotations

import msgspec

from ..budget import BudgetKind


class _End(msgspec.Struct, frozen=True, kw_only=True, tag_field="end"):
    pass


class Finished(_End, frozen=True, kw_only=True, tag="finished"):
    """The solver finished; its final checkpoint ran."""


class BudgetStopped(_End, frozen=True, kw_only=True, tag="budget"):
    """A budget stopped the solver; `reason` is the budget's message."""

    kind: BudgetKind
    reason: str


class DiskLimitHit(_End, frozen=True, kw_only=True, tag="disk_limit"):
    """The work tree went past its disk limit; its tree is not verified."""

    reason: str
    stop: BudgetStopped | None = None  # a budget stopped the solver before


class TreeBroken(_End, frozen=True, kw_only=True, tag="broken"):
    """The solver broke the work tree (`SolverBrokeWorkspace`); it is not verified."""

    reason: str
    stop: BudgetStopped | None = None  # a budget stopped the solver before


CellEnd = Finished | BudgetStopped | DiskLimitHit | TreeBroken


def budget_stop(end: CellEnd) -> BudgetStopped | None:
    """The budget that stopped the solver, if one did (whatever ended the cell after)."""
    match end:
        case BudgetStopped():
            return end
        case DiskLimitHit(stop=stop) | TreeBroken(stop=stop):
            return stop
        case Finished():
            return None


def broken_text(end: CellEnd) -> str:
    """Why the work tree is not verified ('' when its final checkpoint ran): what
    `CellResult.broken` records."""
    match end:
        case DiskLimitHit(reason=reason) | TreeBroken(reason=reason):
            return reason
        case Finished() | BudgetStopped():
            return ""
