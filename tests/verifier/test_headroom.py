"""The browser pool's slots follow the CPU's headroom (`verifier/_browser/_headroom.py`), and the
CPU figures a sweep prints (`cpu.py`) are computed from /proc/stat the way `vmstat` does.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from orchestrator.commands.run import cpu_line
from orchestrator.cpu import CpuTimes, CpuUse, CpuWindow, parse_cpu, read_cpu
from orchestrator.sweep import StatesCpu, SweepOutcome
from orchestrator.verifier import BrowserPool
from orchestrator.verifier._browser._headroom import Headroom

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module", params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    """Both backends, as anyio's own default gives: the headroom is plain anyio, so the
    asyncio-only `anyio_backend` of this folder's conftest (Playwright's) is not for it."""
    return str(request.param)


# user nice system idle iowait irq softirq steal guest guest_nice
STAT = "cpu  100 5 20 300 10 1 4 60 7 0\ncpu0 50 2 10 150 5 0 2 30 3 0\nintr 1\n"


def test_parse_cpu_splits_busy_idle_and_steal() -> None:
    t = parse_cpu(STAT)
    # busy: user + nice + system + irq + softirq (guest is inside user already)
    assert t == CpuTimes(busy=100 + 5 + 20 + 1 + 4, idle=300 + 10, steal=60)
    with pytest.raises(ValueError, match="not a /proc/stat cpu line"):
        parse_cpu("intr 1 2 3\n")


def test_busy_share_leaves_stolen_time_out() -> None:
    # Of the 100 ticks the machine had (busy + idle), 75 were used; steal is apart.
    t = CpuTimes(busy=75, idle=25, steal=100)
    assert t.busy_share == pytest.approx(0.75)
    assert t.steal_share == pytest.approx(0.5)
    assert CpuTimes().busy_share == 0.0


def test_read_cpu_is_none_without_proc(tmp_path: Path) -> None:
    assert read_cpu(tmp_path / "missing") is None
    (tmp_path / "stat").write_text(STAT)
    assert read_cpu(tmp_path / "stat") == parse_cpu(STAT)


def test_the_real_proc_stat_reads() -> None:
    t = read_cpu()
    assert t is not None and t.busy > 0 and t.idle > 0


def test_cpu_window_is_the_difference() -> None:
    samples = iter([CpuTimes(10, 10, 0), CpuTimes(40, 20, 10)])
    use = CpuWindow(read=lambda: next(samples)).use()
    assert use is not None
    assert use.busy == pytest.approx(30 / 40) and use.steal == pytest.approx(10 / 50)


class Clock:
    """A fake /proc/stat: each tick spends `busy` of 100 ticks the machine had."""

    def __init__(self) -> None:
        self.now = CpuTimes()
        self.busy = 0.5

    def spend(self) -> None:
        used = int(100 * self.busy)
        self.now = self.now + CpuTimes(busy=used, idle=100 - used)

    def read(self) -> CpuTimes:
        return self.now


async def _waiting(limiter: anyio.CapacityLimiter, n: int, tg: anyio.abc.TaskGroup) -> None:
    for _ in range(n):
        tg.start_soon(_hold, limiter)
    await anyio.wait_all_tasks_blocked()


async def _hold(limiter: anyio.CapacityLimiter) -> None:
    async with limiter:
        await anyio.sleep_forever()


async def test_slots_open_while_states_wait_and_the_cpu_has_room() -> None:
    clock, limiter = Clock(), anyio.CapacityLimiter(1)
    room = Headroom(limiter, floor=2, ceiling=4, read=clock.read)
    assert limiter.total_tokens == 2
    async with anyio.create_task_group() as tg:
        await _waiting(limiter, 6, tg)  # 2 replay, 4 wait
        for _ in range(5):
            clock.spend()
            room.tick()
        assert limiter.total_tokens == 4  # the ceiling, never past it
        assert room.peak == 4
        waited = room.waiting_use()  # states waited in every period: 50 % busy
        assert waited is not None and waited.busy == pytest.approx(0.5) and waited.seconds == 2.5
        await anyio.wait_all_tasks_blocked()
        assert limiter.borrowed_tokens == 4
        tg.cancel_scope.cancel()


async def test_no_slot_opens_when_nothing_waits_or_the_cpu_is_busy() -> None:
    clock, limiter = Clock(), anyio.CapacityLimiter(1)
    room = Headroom(limiter, floor=2, ceiling=8, read=clock.read)
    clock.spend()
    room.tick()
    assert limiter.total_tokens == 2  # nothing waits
    async with anyio.create_task_group() as tg:
        await _waiting(limiter, 5, tg)
        clock.busy = 0.9  # between target and high: hold
        clock.spend()
        room.tick()
        assert limiter.total_tokens == 2
        tg.cancel_scope.cancel()


async def test_a_slot_closes_when_the_cpu_is_saturated_down_to_the_floor() -> None:
    clock, limiter = Clock(), anyio.CapacityLimiter(1)
    room = Headroom(limiter, floor=2, ceiling=8, read=clock.read)
    async with anyio.create_task_group() as tg:
        await _waiting(limiter, 8, tg)
        for _ in range(4):
            clock.spend()
            room.tick()
        assert limiter.total_tokens == 6
        clock.busy = 0.99
        for _ in range(10):
            clock.spend()
            room.tick()
        assert limiter.total_tokens == 2  # the floor
        tg.cancel_scope.cancel()


async def test_states_use_counts_only_periods_with_states() -> None:
    clock, limiter = Clock(), anyio.CapacityLimiter(1)
    room = Headroom(limiter, floor=1, ceiling=1, read=clock.read, period=0.5)
    clock.busy = 0.1
    clock.spend()
    room.tick()  # nothing replayed or waited: not counted
    assert room.states_use() is None
    async with anyio.create_task_group() as tg:
        await _waiting(limiter, 1, tg)
        clock.busy = 0.8
        clock.spend()
        room.tick()
        tg.cancel_scope.cancel()
    use = room.states_use()
    assert use is not None and use.busy == pytest.approx(0.8) and use.seconds == 0.5
    assert room.waiting_use() is None  # the one state replayed; none waited


def test_without_proc_stat_the_slots_stay_at_the_floor() -> None:
    limiter = anyio.CapacityLimiter(1)
    room = Headroom(limiter, floor=3, ceiling=9, read=lambda: None)
    room.tick()
    assert limiter.total_tokens == 3 and room.states_use() is None


def test_bad_bounds_are_refused() -> None:
    with pytest.raises(ValueError, match="floor <= ceiling"):
        Headroom(anyio.CapacityLimiter(1), floor=4, ceiling=2)


def test_pool_is_adaptive_unless_given_a_number() -> None:
    adaptive = BrowserPool()
    assert adaptive.headroom is not None
    assert adaptive.headroom.ceiling == BrowserPool.HEADROOM_CEILING * adaptive.headroom.floor
    fixed = BrowserPool(max_contexts=3)
    assert fixed.headroom is None and fixed.limiter.total_tokens == 3


def test_the_summary_line_names_both_figures(tmp_path: Path) -> None:
    out = SweepOutcome(
        tmp_path,
        [],
        cpu=CpuUse(busy=0.61, steal=0.05, seconds=400),
        states_cpu=StatesCpu(
            CpuUse(busy=0.83, steal=0.04, seconds=300),
            peak_slots=7,
            waited=CpuUse(busy=0.91, steal=0.02, seconds=40),
        ),
    )
    line = cpu_line(out)
    assert line.startswith("cpu: 83% busy over 300 s (4% stolen) while states replayed")
    assert "up to 7 browser states at once" in line
    assert "91% busy over 40 s (2% stolen) while a state waited for a browser slot" in line
    assert "61% busy over 400 s (5% stolen) over the whole run" in line
    assert cpu_line(SweepOutcome(tmp_path, [])) == ""
