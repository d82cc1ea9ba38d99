"""How many states replay at once: what the CPU has room for, not the core count.

A replay spends most of its wall time waiting on its page (the quiet windows of
`_replay/_drive.py`, the server, fonts and frames), so one replay per core left the cores idle
while states queued for a slot (#51: the default job's CPU 54-94 % idle behind two
slots). `Headroom` watches the host's CPU and moves the pool's `CapacityLimiter`:

- every `period` while a state waits for a slot, and the CPU was under `target` busy over
  the last period, one more slot opens (up to `ceiling`);
- whenever the CPU was over `high` busy, one slot closes (down to `floor`; a replay
  holding a slot keeps it, the next one waits).

*Busy* is `cpu.py`'s: the share of the CPU time the machine had (steal excluded) that
was used. Where `/proc/stat` cannot be read the slots stay at `floor`.

No verdict depends on the slot count: a replay's patience is its own (a state that timed
out replays with three times the patience, `_replay/_transient.py`), and `verdicts_under_load.py`
checks the verdicts idle against loaded. `states_use()` is what the sweep prints at its
end: how busy the CPU was while states replayed or waited for a slot.
"""

from __future__ import annotations

from collections.abc import Callable

import anyio

from ...cpu import CpuTimes, CpuUse, read_cpu


class Headroom:
    """Moves `limiter`'s slots between `floor` and `ceiling` by CPU headroom (see the
    module docstring); `run()` is its loop, owned by the pool's task group."""

    def __init__(
        self,
        limiter: anyio.CapacityLimiter,
        *,
        floor: int,
        ceiling: int,
        target: float = 0.8,
        high: float = 0.95,
        period: float = 0.5,
        read: Callable[[], CpuTimes | None] = read_cpu,
    ) -> None:
        if not 1 <= floor <= ceiling:
            raise ValueError(f"Headroom: expected 1 <= floor <= ceiling, got {floor}, {ceiling}")
        self.limiter = limiter
        self.floor, self.ceiling = floor, ceiling
        self.target, self.high, self.period = target, high, period
        self._read = read
        self._last = read()
        self.peak = floor
        # CPU time over the periods in which a state replayed or waited for a slot, and
        # over those in which one waited (the periods the slots decided the pace).
        self._states = CpuTimes()
        self._states_s = 0.0
        self._waiting = CpuTimes()
        self._waiting_s = 0.0
        limiter.total_tokens = floor

    async def run(self) -> None:
        while True:
            await anyio.sleep(self.period)
            self.tick()

    def tick(self) -> None:
        """One period: account the CPU, then open or close a slot."""
        now = self._read()
        if now is None or self._last is None:
            return
        spent, self._last = now - self._last, now
        stats = self.limiter.statistics()
        waiting = stats.tasks_waiting > 0
        if waiting or stats.borrowed_tokens > 0:
            self._states += spent
            self._states_s += self.period
        if waiting:
            self._waiting += spent
            self._waiting_s += self.period
        slots = int(self.limiter.total_tokens)
        busy = spent.busy_share
        if busy > self.high and slots > self.floor:
            self.limiter.total_tokens = slots - 1
        elif waiting and busy < self.target and slots < self.ceiling:
            self.limiter.total_tokens = slots + 1
            self.peak = max(self.peak, slots + 1)

    def states_use(self) -> CpuUse | None:
        """CPU use while states replayed or waited (None before the first such period)."""
        if self._states_s <= 0:
            return None
        return CpuUse.of(self._states, self._states_s)

    def waiting_use(self) -> CpuUse | None:
        """CPU use while a state waited for a slot (None if none ever did)."""
        if self._waiting_s <= 0:
            return None
        return CpuUse.of(self._waiting, self._waiting_s)
