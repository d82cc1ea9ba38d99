"""How much slower this machine runs a test right now than an idle one (issue #52).

A test's timeout (pytest-timeout) is a hang guard, not a speed target: on a machine that
loses half its CPU to steal, or shares its cores with a CPU hog, a heavy integration test
takes 3-9x its idle time and must not be cut off as hung. So each test's timeout is its
marked (or configured) one times `slowness()` at the moment it starts (tests/conftest.py),
and an idle machine keeps tight guards.

`slowness()` is the larger of two readings, clamped to [1, `CAP`]:
- **contention**: the wall time of a short single-thread loop over the CPU time it got.
  CPU stolen by the hypervisor or taken by other runnable processes stretches the first
  and not the second, so it sees steal, which the load average does not;
- **queue**: the 1-minute load average per core, which sees a hog that the short loop
  happened to dodge.

It is measured at most every `EVERY` seconds (a loop of ~20 ms CPU), so the fast tier's
1,400 tests pay for it a few times, not 1,400. `PWB_SLOWNESS=<factor>` sets it instead
(a machine known to be slow, or a test of the stretching itself).
"""

from __future__ import annotations

import os
import time

CAP = 6.0
EVERY = 30.0
LOOP_CPU_S = 0.02

_last: tuple[float, float] | None = None  # (monotonic time measured, slowness)


def contention(cpu_s: float = LOOP_CPU_S) -> float:
    """Wall over CPU time of a busy loop that runs until it has had `cpu_s` of CPU."""
    wall0, cpu0 = time.perf_counter(), time.thread_time()
    while time.thread_time() - cpu0 < cpu_s:
        sum(range(1000))
    wall, cpu = time.perf_counter() - wall0, time.thread_time() - cpu0
    return wall / cpu if cpu > 0 else 1.0


def queue() -> float:
    """The 1-minute load average per core."""
    return os.getloadavg()[0] / (os.cpu_count() or 1)


def slowness(now: float | None = None) -> float:
    """max(contention, queue) clamped to [1, CAP], remeasured every `EVERY` s."""
    global _last
    if os.environ.get("PWB_SLOWNESS"):
        return float(os.environ["PWB_SLOWNESS"])
    now = time.monotonic() if now is None else now
    if _last is None or now - _last[0] >= EVERY:
        _last = (now, min(CAP, max(1.0, contention(), queue())))
    return _last[1]


def scaled(timeout: float, factor: float) -> float:
    """`timeout` stretched by `factor` (0 or less: no timeout, left alone)."""
    return timeout * factor if timeout > 0 else timeout


def bound(seconds: float, wrong: float) -> float:
    """An upper bound for a wait that takes about `seconds` on an idle machine: stretched
    by `slowness()`, and kept under `wrong`, the time the bug the assertion guards would
    take (so a loaded machine neither flips the test nor lets that bug through)."""
    return min(seconds * slowness(), 0.9 * wrong)
