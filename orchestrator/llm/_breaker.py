"""Per-provider circuit breaker: a bad key stops the sweep; an outage pauses its cells.

Two states, both shared by every cell of the sweep that uses the provider:

- **Refused** (for good): only refusals (401/403) and successes count. The breaker opens
  when its window is full of refusals: the first N requests of a provider, or the last N
  after a key was revoked mid-sweep. An answer that the account cannot pay (no quota,
  no credit) opens it at once: `trip`. `check` then raises `ProviderRefused`.
- **Outage** (a pause): `outage_after` transient failures in a row (429, 5xx, malformed
  bodies, transport errors and timeouts, from any cell, with no success between) say
  the provider is down, not one request. Requests then wait in `admit` instead of
  failing; one of them goes out every `probe_s` as a probe, and the first success ends
  the pause for all. An outage longer than `max_pause_s` latches `ProviderOutage`: the
  provider's cells end `outage`, which `--resume` re-runs.
"""

from __future__ import annotations

import math
from collections import deque

import anyio

from ._errors import ProviderOutage, ProviderRefused


class Breaker:
    def __init__(
        self,
        provider: str,
        window: int,
        *,
        outage_after: int = 5,
        probe_s: float = 5.0,
        max_pause_s: float = 900.0,
    ) -> None:
        self.provider = provider
        self._recent: deque[bool] = deque(maxlen=window)  # True = refused
        self._open_reason = ""
        self._outage_after = outage_after
        self._probe_s = probe_s
        self._max_pause_s = max_pause_s
        self._failures = 0  # transient failures in a row, provider-wide
        self._outage_since: float | None = None
        self._outage_reason = ""
        self._next_probe = 0.0
        self._down = ""  # the outage outlasted `max_pause_s`: latched for the sweep
        self._changed: anyio.Event | None = None
        self.outages = 0  # how many outages have begun (a request's failures may span one)

    @property
    def paused(self) -> bool:
        """The provider is in an outage: requests wait in `admit` instead of failing."""
        return self._outage_since is not None or bool(self._down)

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
        if not refused:  # an answer: the provider is up
            self._failures = 0
            if self._outage_since is not None:
                self._outage_since = None
                self._wake()

    def record_transient(self, reason: str) -> None:
        """A request failed in a way another attempt may fix (429, 5xx, timeout...)."""
        self._failures += 1
        self._outage_reason = reason
        if self._outage_since is None and self._failures >= self._outage_after:
            now = anyio.current_time()
            self.outages += 1
            self._outage_since = now
            self._next_probe = now + self._probe_s
            self._wake()

    def trip(self, reason: str) -> None:
        if not self._open_reason:
            self._open_reason = reason

    def check(self) -> None:
        if self._open_reason:
            raise ProviderRefused(f"provider {self.provider!r}: breaker open: {self._open_reason}")

    async def admit(self) -> None:
        """Return when a request may go out; wait while the provider is in an outage (one
        request leaves every `probe_s` as a probe). Raises `ProviderOutage` once the
        outage has lasted `max_pause_s`."""
        while True:
            if self._down:
                raise ProviderOutage(self._down)
            since = self._outage_since
            if since is None:
                return
            now = anyio.current_time()
            if now - since >= self._max_pause_s:
                self._down = (
                    f"provider {self.provider!r}: outage longer than the "
                    f"{self._max_pause_s:g} s pause bound (last failure: {self._outage_reason})"
                )
                self._wake()
                continue
            if now >= self._next_probe:
                self._next_probe = now + self._probe_s
                return  # this request is the probe
            until = min(self._next_probe, since + self._max_pause_s)
            if self._changed is None:
                self._changed = anyio.Event()
            changed = self._changed
            with anyio.move_on_after(max(0.0, until - now) if until < math.inf else None):
                await changed.wait()

    def _wake(self) -> None:
        if self._changed is not None:
            self._changed.set()
            self._changed = None
