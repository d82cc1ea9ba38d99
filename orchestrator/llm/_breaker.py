"""Per-provider circuit breaker: a bad key stops the sweep instead of failing every cell.

Only refusals (401/403) and successes are recorded; a 429 or 500 says nothing about
the key. The breaker opens, for good, when its window is full of refusals: the first
N requests of a provider, or the last N after a key was revoked mid-sweep. An answer
that the account cannot pay (no quota, no credit) opens it at once: `trip`.
"""

from __future__ import annotations

from collections import deque

from ._errors import ProviderRefused


class Breaker:
    def __init__(self, provider: str, window: int) -> None:
        self.provider = provider
        self._recent: deque[bool] = deque(maxlen=window)  # True = refused
        self._open_reason = ""

    @property
    def is_open(self) -> bool:
        return bool(self._open_reason)

    @property
    def undecided(self) -> bool:
        """Nothing but refusals so far, and not yet enough of them to open."""
        return all(self._recent) and len(self._recent) < (self._recent.maxlen or 0)

    def record(self, *, refused: bool, status: int = 0) -> None:
        self._recent.append(refused)
        if len(self._recent) == self._recent.maxlen and all(self._recent):
            self._open_reason = (
                f"the last {len(self._recent)} requests were refused (HTTP {status})"
            )

    def trip(self, reason: str) -> None:
        if not self._open_reason:
            self._open_reason = reason

    def check(self) -> None:
        if self._open_reason:
            raise ProviderRefused(f"provider {self.provider!r}: breaker open: {self._open_reason}")
