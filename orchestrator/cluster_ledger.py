"""The sweep's cluster-wide spend for the `ray` engine (issue #22): one `LedgerActor`
on the head node, charged by every node as spend happens, settled by the driver.

Kept apart from `orchestrator.sweep` on purpose: Ray starts the actor in a fresh worker
process that imports only this module (the budget ledger and msgspec), not the whole
harness, so it costs the cluster's start a fraction of a node actor's CPU.
"""

from __future__ import annotations

import time

import msgspec

from .budget import Ledger


class Charge(msgspec.Struct, frozen=True, kw_only=True):
    """One response charged to the cluster ledger (a line of the run's `ledger.jsonl`)."""

    t: float  # when the ledger actor recorded it
    node: str
    cell: str
    tokens: int
    usd: float


class LedgerActor:
    """The sweep's cluster-wide spend: every node charges it, the driver settles from it."""

    def __init__(self, max_usd: float | None, max_tokens: int | None) -> None:
        self.ledger = Ledger(max_usd=max_usd, max_tokens=max_tokens)
        self.cells: dict[str, tuple[int, float, int]] = {}
        self.log: list[Charge] = []

    def charge(
        self, cell: str, node: str, tokens: int, usd: float, estimated: bool
    ) -> tuple[int, float]:
        self.ledger.charge(tokens, usd, estimated=estimated)
        t, u, e = self.cells.get(cell, (0, 0.0, 0))
        self.cells[cell] = (t + tokens, u + usd, e + estimated)
        self.log.append(Charge(t=time.time(), node=node, cell=cell, tokens=tokens, usd=usd))
        return self.totals()

    def history(self) -> list[Charge]:
        return self.log

    def totals(self) -> tuple[int, float]:
        return self.ledger.spent_tokens, self.ledger.spent_usd

    def take(self, cell: str) -> tuple[int, float, int]:
        """What `cell` was charged since the last take (tokens, usd, estimated responses)."""
        return self.cells.pop(cell, (0, 0.0, 0))
