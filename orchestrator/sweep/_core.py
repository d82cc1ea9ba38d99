"""The scheduling core: limiter, per-cell deadline, retries, budgets, one row per cell.

Written against anyio only (its tests run on asyncio and trio). It knows jobs, rows and
budgets — not Docker, browsers or gates: the attempt function does the work and
translates its own failures into `CellFailure(outcome, retryable=...)`.

Every job ends in exactly one row, whatever happens:

- the attempt returns the cell's `CellReport` → `ok`;
- `CellFailure` → its outcome; retried while `retryable` (infrastructure) and attempts
  remain, with a backoff that grows per attempt up to `retry_max_delay_s`;
- a `CellReport` whose `end` says a budget stopped the solver (its final checkpoint
  ran, or found the tree flooded or broken) → `budget` with the delivered result;
- `BudgetExceeded` (a cap the user set: money, tokens, turns, the cell's wall time plus
  its grace for the final checkpoint) → `budget` without a result; a library's
  `TimeoutError` is *not* a budget: it is an infrastructure fault;
- `StopSweep` (the provider refused the setup: no credit, no key, a rejected parameter)
  → `config_error` for this cell (no result, re-run by `--resume`), the sweep is
  cancelled and `stopped_reason` says why;
- any other exception is a bug of ours → `harness_error`, and the sweep carries on;
- cancellation → `cancelled`.
"""

from __future__ import annotations

import math
import time
import traceback
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import anyio
import msgspec

from ..budget import BudgetExceeded, BudgetKind, Ledger, cell_deadline
from ..cell import CellReport, budget_stop
from ..cpu import CpuUse
from ..records import (
    BackendName,
    BudgetStop,
    Cancelled,
    ConfigRefusal,
    HarnessError,
    InfraError,
    ManifestRow,
    Ok,
    Outcome,
    Spend,
)


class CellFailure(Exception):
    """A classified end of one attempt; `retryable` only for infrastructure faults."""

    def __init__(self, outcome: Outcome, *, retryable: bool = False) -> None:
        self.outcome = outcome
        self.retryable = retryable
        super().__init__(getattr(outcome, "error", outcome.status))


class StopSweep(Exception):
    """Raised by an attempt when the whole sweep must stop (e.g. every LLM request refused)."""


class Job(msgspec.Struct, frozen=True, kw_only=True):
    key: str  # the cell id
    template: ManifestRow  # identity fields filled; outcome etc. set on completion


# (job, attempt number from 1, the cell's own ledger) -> the finished cell: its scored
# result, the image it ran, the budget that stopped its solver, its wait for the baseline.
Attempt = Callable[[Job, int, Ledger], Awaitable[CellReport]]


class EngineUnavailable(Exception):
    """The chosen engine cannot run cells (Ray missing, no worker node, ...)."""


@dataclass(frozen=True, slots=True)
class StatesCpu:
    """The browser pool's CPU figure for the sweep's summary line."""

    use: CpuUse
    peak_slots: int
    waited: CpuUse | None = None  # over the periods a state waited for a slot


@dataclass(frozen=True)
class Engine:
    """Where a sweep's cells run (`_engine`): the backend recorded on every row, and the
    attempt function the Scheduler calls."""

    backend: BackendName
    attempt: Attempt
    # Why the engine could run no more cells ('' = it could): e.g. a cluster without a
    # live worker node for longer than its bound. The sweep then stops, resumable.
    stopped: Callable[[], str] = lambda: ""
    # How busy the CPU was while states replayed or waited for a browser slot, and the
    # most slots open at once (`verifier/_browser/_headroom.py`); None where not measured here.
    states_cpu: Callable[[], StatesCpu | None] = lambda: None


class Progress(Protocol):
    def started(self, job: Job) -> None: ...

    def finished(self, row: ManifestRow) -> None: ...


class _NoProgress:
    def started(self, job: Job) -> None:
        return None

    def finished(self, row: ManifestRow) -> None:
        return None


@dataclass
class _CellRun:
    ledger: Ledger
    t0: float = field(default_factory=time.time)
    attempts: int = 0
    image: str = ""
    baseline_wait_s: float = 0.0


def harness_error(exc: BaseException, log: str = "") -> HarnessError:
    """The row outcome of a bug of ours, pointing at where it was raised."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = f"{frames[-1].filename}:{frames[-1].lineno} in {frames[-1].name}" if frames else ""
    return HarnessError(error=f"{type(exc).__name__}: {exc}", where=where, log=log)


class Scheduler:
    def __init__(
        self,
        write: Callable[[ManifestRow], None],
        *,
        concurrency: int,
        cell_timeout_s: float = math.inf,
        infra_retries: int = 2,
        ledger: Ledger | None = None,
        progress: Progress | None = None,
        retry_delay_s: float = 0.5,
        retry_max_delay_s: float = 30.0,
        final_grace_s: float = 0.0,
    ) -> None:
        if concurrency < 1 or infra_retries < 0:
            raise ValueError("concurrency must be >= 1 and infra_retries >= 0")
        self._write = write
        self._limiter = anyio.CapacityLimiter(concurrency)
        self.cell_timeout_s = cell_timeout_s
        self.final_grace_s = final_grace_s  # after the solver's wall time: final checkpoint
        self.infra_retries = infra_retries
        self.ledger = ledger or Ledger()
        self.progress: Progress = progress or _NoProgress()
        self.retry_delay_s = retry_delay_s
        self.retry_max_delay_s = retry_max_delay_s
        self.stopped_reason = ""
        self.rows: list[ManifestRow] = []

    def _finish(self, job: Job, run: _CellRun, outcome: Outcome) -> ManifestRow:
        now = time.time()
        row = msgspec.structs.replace(
            job.template,
            outcome=outcome,
            image=run.image or job.template.image,
            spend=Spend(
                tokens=run.ledger.spent_tokens,
                cost_usd=run.ledger.spent_usd,
                estimated_requests=run.ledger.estimated_requests,
                overshoot_usd=run.ledger.overshoot_usd,
            ),
            attempts=run.attempts,
            wall_s=now - run.t0 if run.attempts else 0.0,
            baseline_wait_s=run.baseline_wait_s,
            started_at=run.t0 if run.attempts else 0.0,
            finished_at=now,
        )
        self._write(row)  # synchronous: cancellation cannot interrupt it
        self.rows.append(row)
        self.progress.finished(row)
        return row

    async def run(self, jobs: Sequence[Job], attempt: Attempt) -> list[ManifestRow]:
        async with anyio.create_task_group() as tg:
            for job in jobs:
                tg.start_soon(self._run_job, job, attempt, tg.cancel_scope)
        return self.rows

    def retry_delay(self, n: int) -> float:
        """Backoff after failed attempt `n`: doubles, bounded by `retry_max_delay_s`."""
        return min(self.retry_max_delay_s, self.retry_delay_s * 2.0 ** (n - 1))

    async def _run_job(self, job: Job, attempt: Attempt, sweep: anyio.CancelScope) -> None:
        run = _CellRun(ledger=self.ledger.child())
        try:
            async with self._limiter:
                if self.ledger.stopped or self.stopped_reason:
                    if self.ledger.stopped:
                        why = "sweep money/token cap reached before start"
                        kind: BudgetKind = "money" if self.ledger.max_usd is not None else "tokens"
                        self._finish(job, run, BudgetStop(kind=kind, error=why))
                    else:
                        self._finish(job, run, Cancelled(error=self.stopped_reason))
                    return
                run.t0 = time.time()
                self.progress.started(job)
                self._finish(job, run, await self._attempts(job, attempt, run, sweep))
        except anyio.get_cancelled_exc_class():
            why = "sweep cancelled" if run.attempts else "sweep cancelled before start"
            self._finish(job, run, Cancelled(error=why))
            raise

    async def _attempts(
        self, job: Job, attempt: Attempt, run: _CellRun, sweep: anyio.CancelScope
    ) -> Outcome:
        while True:
            run.attempts += 1
            n = run.attempts
            outcome, retryable = await self._one(job, attempt, run)
            if isinstance(outcome, ConfigRefusal) and self.stopped_reason:
                sweep.cancel()
            if not retryable or n > self.infra_retries:
                return outcome
            await anyio.sleep(self.retry_delay(n))

    async def _one(self, job: Job, attempt: Attempt, run: _CellRun) -> tuple[Outcome, bool]:
        try:
            with cell_deadline(self.cell_timeout_s, self.final_grace_s):
                got = await attempt(job, run.attempts, run.ledger)
            run.image = got.image
            run.baseline_wait_s += got.baseline_wait_s
            stop = budget_stop(got.end)  # the row's strings, from the cell's one end
            if stop is not None:
                return BudgetStop(kind=stop.kind, error=stop.reason, result=got.result), False
            return Ok(result=got.result), False
        except BudgetExceeded as exc:
            return BudgetStop(kind=exc.kind, error=str(exc)), False
        except StopSweep as exc:
            self.stopped_reason = f"sweep stopped: {exc}"
            return ConfigRefusal(error=str(exc)), False
        except CellFailure as exc:
            return exc.outcome, exc.retryable
        except TimeoutError as exc:  # a library's timeout leaked untranslated: infra
            return InfraError(error=f"TimeoutError: {exc or 'timed out'}"), True
        except Exception as exc:  # a bug of ours: one harness_error row, never retried
            return harness_error(exc), False
