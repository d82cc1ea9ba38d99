"""Budgets: typed `BudgetExceeded`, and a sweep-wide ledger of tokens and money.

The ledger is an object passed to whoever spends (no process global), so tests and
concurrent sweeps never share one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

BudgetKind = Literal["turns", "tokens", "money", "wall_time"]


class BudgetExceeded(Exception):
    def __init__(self, kind: BudgetKind, detail: str = "") -> None:
        self.kind = kind
        super().__init__(f"{kind} budget exceeded{': ' + detail if detail else ''}")


@dataclass
class Ledger:
    """Sweep-wide spend. `charge` records spend; `check` raises once a cap is reached."""

    max_usd: float | None = None
    max_tokens: int | None = None
    spent_usd: float = 0.0
    spent_tokens: int = 0
    stopped: bool = field(default=False)

    def charge(self, tokens: int, usd: float) -> None:
        self.spent_tokens += tokens
        self.spent_usd += usd
        if self.exhausted:
            self.stopped = True

    @property
    def exhausted(self) -> bool:
        return (self.max_usd is not None and self.spent_usd >= self.max_usd) or (
            self.max_tokens is not None and self.spent_tokens >= self.max_tokens
        )

    def check(self) -> None:
        if self.max_usd is not None and self.spent_usd >= self.max_usd:
            raise BudgetExceeded("money", f"${self.spent_usd:.4f} of ${self.max_usd:.2f}")
        if self.max_tokens is not None and self.spent_tokens >= self.max_tokens:
            raise BudgetExceeded("tokens", f"{self.spent_tokens} of {self.max_tokens} tokens")
