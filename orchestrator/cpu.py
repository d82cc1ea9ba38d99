"""The host's CPU use, read from /proc/stat: what the browser pool's slots follow
(`verifier/_browser/_headroom.py`) and what a sweep prints at its end.

*Busy* is the share of the CPU time the machine had that was used: time the hypervisor
stole is neither busy nor idle, it was never ours (these machines lose 35-60 % to steal).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

PROC_STAT = Path("/proc/stat")


@dataclass(frozen=True, slots=True)
class CpuTimes:
    """The host's cumulative CPU time (all cores, clock ticks) by what it was spent on."""

    busy: int = 0
    idle: int = 0
    steal: int = 0

    def __sub__(self, other: CpuTimes) -> CpuTimes:
        return CpuTimes(
            busy=self.busy - other.busy,
            idle=self.idle - other.idle,
            steal=self.steal - other.steal,
        )

    def __add__(self, other: CpuTimes) -> CpuTimes:
        return CpuTimes(
            busy=self.busy + other.busy,
            idle=self.idle + other.idle,
            steal=self.steal + other.steal,
        )

    @property
    def busy_share(self) -> float:
        """Used / (used + idle): of the time the machine had, the share it used."""
        had = self.busy + self.idle
        return self.busy / had if had > 0 else 0.0

    @property
    def steal_share(self) -> float:
        total = self.busy + self.idle + self.steal
        return self.steal / total if total > 0 else 0.0


def parse_cpu(stat: str) -> CpuTimes:
    """The `cpu` line of /proc/stat: user nice system idle iowait irq softirq steal ...
    (guest time is already inside user and nice)."""
    first = stat.split("\n", 1)[0].split()
    if not first or first[0] != "cpu" or len(first) < 5:
        raise ValueError(f"not a /proc/stat cpu line: {first[:1]}")
    n = [int(x) for x in first[1:]] + [0] * 8
    user, nice, system, idle, iowait, irq, softirq, steal = n[:8]
    return CpuTimes(busy=user + nice + system + irq + softirq, idle=idle + iowait, steal=steal)


def read_cpu(path: Path = PROC_STAT) -> CpuTimes | None:
    """The host's CPU times; None where there is no /proc/stat. A procfs read is served
    from kernel memory in microseconds: no thread is worth its hop on the event loop."""
    try:
        return parse_cpu(path.read_text())
    except (OSError, ValueError):
        return None


@dataclass(frozen=True, slots=True)
class CpuUse:
    """CPU use over a window: `busy` of what the machine had, `steal` of all its time."""

    busy: float
    steal: float
    seconds: float

    @staticmethod
    def of(times: CpuTimes, seconds: float) -> CpuUse:
        return CpuUse(busy=times.busy_share, steal=times.steal_share, seconds=seconds)

    def describe(self) -> str:
        return f"{self.busy:.0%} busy over {self.seconds:.0f} s ({self.steal:.0%} stolen)"


class CpuWindow:
    """CPU use from its creation to each `use()` (the sweep's whole run)."""

    def __init__(self, read: Callable[[], CpuTimes | None] = read_cpu) -> None:
        self._read = read
        self._start = read()
        self._t0 = time.monotonic()

    def use(self) -> CpuUse | None:
        now = self._read()
        if now is None or self._start is None:
            return None
        return CpuUse.of(now - self._start, time.monotonic() - self._t0)
