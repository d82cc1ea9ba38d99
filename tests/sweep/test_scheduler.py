"""The scheduling core on asyncio and trio: rows, retries, budgets, cancellation."""

from __future__ import annotations

from collections import Counter

import anyio
import pytest

from orchestrator.budget import BudgetExceeded, Ledger, solver_phase
from orchestrator.cell import BudgetStopped, CellReport
from orchestrator.records import InfraError, LlmError, ManifestRow
from orchestrator.solvers import Usage
from orchestrator.sweep import CellFailure, Job, Scheduler, StopSweep
from tests.rows import result, row

DONE = CellReport(result=result(), usage=Usage())

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def jobs(n: int) -> list[Job]:
    return [Job(key=f"c{i}", template=row(f"c{i}")) for i in range(n)]


async def test_64_cells_at_concurrency_64_give_exactly_one_row_each() -> None:
    written: list[ManifestRow] = []
    peak = running = 0

    async def attempt(job: Job, n: int, ledger: Ledger) -> CellReport:
        nonlocal peak, running
        running += 1
        peak = max(peak, running)
        await anyio.sleep(0.05)
        running -= 1
        return DONE

    await Scheduler(written.append, concurrency=64).run(jobs(64), attempt)
    assert Counter(r.cell for r in written) == Counter(f"c{i}" for i in range(64))
    assert all(r.status == "ok" for r in written)
    assert peak == 64


async def test_concurrency_limit_is_respected() -> None:
    peak = running = 0

    async def attempt(job: Job, n: int, ledger: Ledger) -> CellReport:
        nonlocal peak, running
        running += 1
        peak = max(peak, running)
        await anyio.sleep(0.01)
        running -= 1
        return DONE

    await Scheduler(lambda r: None, concurrency=3).run(jobs(20), attempt)
    assert peak == 3


async def test_infrastructure_fault_twice_then_ok() -> None:
    calls: Counter[str] = Counter()

    async def attempt(job: Job, n: int, ledger: Ledger) -> CellReport:
        calls[job.key] += 1
        if job.key == "c0" and n <= 2:
            raise CellFailure(InfraError(error="container died"), retryable=True)
        return DONE

    written: list[ManifestRow] = []
    sched = Scheduler(written.append, concurrency=4, infra_retries=2, retry_delay_s=0)
    await sched.run(jobs(3), attempt)
    by_cell = {r.cell: r for r in written}
    assert by_cell["c0"].status == "ok" and by_cell["c0"].attempts == 3
    assert calls["c0"] == 3 and calls["c1"] == 1


async def test_retries_are_bounded_then_infra_error() -> None:
    async def attempt(job: Job, n: int, ledger: Ledger) -> CellReport:
        raise CellFailure(InfraError(error="daemon gone"), retryable=True)

    written: list[ManifestRow] = []
    await Scheduler(written.append, concurrency=2, infra_retries=1, retry_delay_s=0).run(
        jobs(2), attempt
    )
    assert [(r.status, r.attempts) for r in written] == [("infra_error", 2)] * 2
    assert written[0].error == "daemon gone"


async def test_money_cap_stops_new_cells_and_ends_running_ones_with_budget() -> None:
    ledger = Ledger(max_usd=1.0)

    async def attempt(job: Job, n: int, ledger: Ledger) -> CellReport:
        for _ in range(10):
            ledger.check()
            ledger.charge(tokens=100, usd=0.2)
            await anyio.sleep(0.01)
        return DONE

    written: list[ManifestRow] = []
    await Scheduler(written.append, concurrency=2, ledger=ledger).run(jobs(6), attempt)
    assert len(written) == 6
    assert {r.status for r in written} == {"budget"}
    assert sum(r.attempts == 0 for r in written) == 4  # never started


async def test_per_cell_deadline_is_a_budget_row() -> None:
    async def attempt(job: Job, n: int, ledger: Ledger) -> CellReport:
        await anyio.sleep(10)
        return DONE

    written: list[ManifestRow] = []
    await Scheduler(written.append, concurrency=2, cell_timeout_s=0.05).run(jobs(2), attempt)
    assert [r.status for r in written] == ["budget", "budget"]
    assert "wall-time" in written[0].error


async def test_wall_time_stops_the_solver_phase_and_leaves_grace_for_the_final_checkpoint() -> None:
    phases: list[str] = []

    async def attempt(job: Job, n: int, ledger: Ledger) -> CellReport:
        with solver_phase() as phase:
            await anyio.sleep(10)  # a solver that would run past its wall time
        assert phase.cancelled_caught
        phases.append("stopped")
        await anyio.sleep(0.1)  # the final checkpoint, inside the grace time
        phases.append("checkpointed")
        stop = BudgetStopped(kind="wall_time", reason="wall_time")
        return CellReport(result=result(), usage=Usage(), end=stop)

    written: list[ManifestRow] = []
    sched = Scheduler(written.append, concurrency=1, cell_timeout_s=0.1, final_grace_s=2.0)
    await sched.run(jobs(1), attempt)
    assert phases == ["stopped", "checkpointed"]
    assert [(r.status, r.error) for r in written] == [("budget", "wall_time")]
    assert written[0].result is not None  # scored on what it delivered


async def test_a_final_checkpoint_past_the_grace_time_is_cut_off() -> None:
    async def attempt(job: Job, n: int, ledger: Ledger) -> CellReport:
        with solver_phase():
            await anyio.sleep(10)
        await anyio.sleep(10)  # the final checkpoint hangs: the grace is bounded
        return DONE

    written: list[ManifestRow] = []
    with anyio.fail_after(5):
        await Scheduler(written.append, concurrency=1, cell_timeout_s=0.05, final_grace_s=0.1).run(
            jobs(1), attempt
        )
    assert [r.status for r in written] == ["budget"]
    assert "grace" in written[0].error


async def test_budget_exceeded_and_llm_error_are_scored_apart() -> None:
    async def attempt(job: Job, n: int, ledger: Ledger) -> CellReport:
        if job.key == "c0":
            raise BudgetExceeded("tokens", "cap")
        raise CellFailure(LlmError(error="provider kept failing"))

    written: list[ManifestRow] = []
    await Scheduler(written.append, concurrency=2).run(jobs(2), attempt)
    assert {r.cell: r.status for r in written} == {"c0": "budget", "c1": "llm_error"}


async def test_cancellation_leaves_one_cancelled_row_per_cell() -> None:
    written: list[ManifestRow] = []

    async def attempt(job: Job, n: int, ledger: Ledger) -> CellReport:
        await anyio.sleep(10)
        return DONE

    with anyio.move_on_after(0.1):
        await Scheduler(written.append, concurrency=2).run(jobs(5), attempt)
    assert Counter(r.cell for r in written) == Counter(f"c{i}" for i in range(5))
    assert {r.status for r in written} == {"cancelled"}


async def test_stop_sweep_cancels_the_rest() -> None:
    written: list[ManifestRow] = []

    async def attempt(job: Job, n: int, ledger: Ledger) -> CellReport:
        if job.key == "c0":
            raise StopSweep("every request refused (401)")
        await anyio.sleep(10)
        return DONE

    sched = Scheduler(written.append, concurrency=8)
    with anyio.fail_after(5):
        await sched.run(jobs(4), attempt)
    assert len(written) == 4
    # The setup's fault, not the model's (#41): config_error, no result (was llm_error).
    assert {r.cell: r.status for r in written}["c0"] == "config_error"
    assert "refused" in sched.stopped_reason


async def test_a_library_timeout_is_infrastructure_retried_never_budget() -> None:
    """aiodocker re-raises its own timeouts as asyncio.TimeoutError (= TimeoutError)."""

    async def attempt(job: Job, n: int, ledger: Ledger) -> CellReport:
        if n == 1:
            raise TimeoutError  # what aiohttp/aiodocker raise on a slow daemon
        return DONE

    written: list[ManifestRow] = []
    await Scheduler(written.append, concurrency=1, retry_delay_s=0).run(jobs(1), attempt)
    assert [(r.status, r.attempts) for r in written] == [("ok", 2)]


async def test_a_library_timeout_every_time_ends_infra_error_not_budget() -> None:
    async def attempt(job: Job, n: int, ledger: Ledger) -> CellReport:
        raise TimeoutError

    written: list[ManifestRow] = []
    await Scheduler(written.append, concurrency=1, infra_retries=1, retry_delay_s=0).run(
        jobs(1), attempt
    )
    assert [(r.status, r.attempts) for r in written] == [("infra_error", 2)]
    assert "budget" not in written[0].error


async def test_one_unexpected_exception_in_8_cells_is_one_harness_error_row() -> None:
    calls: Counter[str] = Counter()

    async def attempt(job: Job, n: int, ledger: Ledger) -> CellReport:
        calls[job.key] += 1
        await anyio.sleep(0.01)
        if job.key == "c3":
            empty: dict[str, int] = {}
            empty["missing"]  # a bug of ours
        return DONE

    written: list[ManifestRow] = []
    await Scheduler(written.append, concurrency=4, retry_delay_s=0).run(jobs(8), attempt)
    assert len(written) == 8 and len({r.cell for r in written}) == 8
    statuses = Counter(r.status for r in written)
    assert statuses == Counter({"ok": 7, "harness_error": 1})
    (bad,) = [r for r in written if r.status == "harness_error"]
    assert bad.cell == "c3" and bad.error.startswith("KeyError")
    assert "test_scheduler.py" in bad.outcome.where  # type: ignore[union-attr]
    assert calls["c3"] == 1  # a bug is never retried as infrastructure


async def test_every_row_carries_what_the_cell_was_charged_over_all_attempts() -> None:
    sweep = Ledger()

    async def attempt(job: Job, n: int, ledger: Ledger) -> CellReport:
        ledger.charge(tokens=10, usd=0.01)
        if job.key == "c0" and n == 1:
            raise CellFailure(InfraError(error="container died"), retryable=True)
        if job.key == "c1":
            raise CellFailure(LlmError(error="provider kept failing"))
        return DONE

    written: list[ManifestRow] = []
    await Scheduler(written.append, concurrency=3, ledger=sweep, retry_delay_s=0).run(
        jobs(3), attempt
    )
    spend = {r.cell: (r.status, r.spend.tokens) for r in written}
    assert spend == {"c0": ("ok", 20), "c1": ("llm_error", 10), "c2": ("ok", 10)}
    assert sweep.spent_tokens == 40
    assert abs(sum(r.spend.cost_usd for r in written) - sweep.spent_usd) < 1e-9


async def test_deadline_expiring_after_a_wait_is_a_budget_row_not_a_crash() -> None:
    """The wait is credited (the deadline moves), then the work runs out of time: the
    cell ends `budget`, never a crash."""
    from orchestrator.budget import waiting

    async def attempt(job: Job, n: int, ledger: Ledger) -> CellReport:
        with waiting():
            await anyio.sleep(0.3)  # e.g. queueing for a sandbox start
        await anyio.sleep(10)  # work: past the (moved) deadline
        return DONE

    written: list[ManifestRow] = []
    with anyio.fail_after(5):
        await Scheduler(written.append, concurrency=2, cell_timeout_s=0.1).run(jobs(2), attempt)
    assert [r.status for r in written] == ["budget", "budget"]
    assert all(r.outcome.kind == "wall_time" for r in written)  # type: ignore[union-attr]
    assert all(r.wall_s >= 0.4 for r in written)  # 0.1 s of work after 0.3 s of waiting


async def test_a_wait_longer_than_the_time_left_does_not_end_the_cell() -> None:
    """A wait (an outage's pause, a lost daemon, a queue) suspends the cell's deadline:
    it is not cut off by it, however long it is (each wait has its own bound)."""
    from orchestrator.budget import waiting

    async def attempt(job: Job, n: int, ledger: Ledger) -> CellReport:
        await anyio.sleep(0.1)  # a tenth of the budget is spent working
        with waiting():
            await anyio.sleep(3.0)  # three times the whole budget
        await anyio.sleep(0.05)
        return DONE

    written: list[ManifestRow] = []
    with anyio.fail_after(20):  # a loaded machine's scheduling delays stay under the budget
        await Scheduler(written.append, concurrency=2, cell_timeout_s=1.0).run(jobs(2), attempt)
    assert [r.status for r in written] == ["ok", "ok"]


def test_retry_backoff_grows_and_is_bounded() -> None:
    s = Scheduler(lambda r: None, concurrency=1, retry_delay_s=1.0, retry_max_delay_s=20.0)
    assert [s.retry_delay(n) for n in range(1, 7)] == [1.0, 2.0, 4.0, 8.0, 16.0, 20.0]
