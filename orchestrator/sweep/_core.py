"""The scheduling core: limiter, per-cell deadline, retries, budgets, one row per cell.

Written against anyio only (its tests run on asyncio and trio). It knows jobs, rows and
budgets — not Docker, browsers or gates: the attempt function does the work and
translates its own infrastructure errors into `CellFailure`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol

import anyio
import msgspec

from ..budget import BudgetExceeded, Ledger, cell_deadline
from ..records import ManifestRow, Status


class CellFailure(Exception):
    """A classified failure of one attempt; `retryable` only for infrastructure faults."""

    def __init__(self, status: Status, message: str, *, retryable: bool = False) -> None:
        self.status: Status = status
        self.retryable = retryable
        super().__init__(message)


class StopSweep(Exception):
    """Raised by an attempt when the whole sweep must stop (e.g. every LLM request refused)."""


class Job(msgspec.Struct, frozen=True, kw_only=True):
    key: str  # the cell id
    template: ManifestRow  # identity fields filled; status etc. set on completion


Attempt = Callable[[Job, int], Awaitable[ManifestRow]]


class Progress(Protocol):
    def started(self, job: Job) -> None: ...

    def finished(self, row: ManifestRow) -> None: ...


class _NoProgress:
    def started(self, job: Job) -> None:
        return None

    def finished(self, row: ManifestRow) -> None:
        return None


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
        final_grace_s: float = 0.0,
    ) -> None:
        self._write = write
        self._limiter = anyio.CapacityLimiter(concurrency)
        self.cell_timeout_s = cell_timeout_s
        self.final_grace_s = final_grace_s
        self.infra_retries = infra_retries
        self.ledger = ledger or Ledger()
        self.progress: Progress = progress or _NoProgress()
        self.retry_delay_s = retry_delay_s
        self.stopped_reason = ""
        self.rows: list[ManifestRow] = []

    def _finish(self, job: Job, **fields: object) -> ManifestRow:
        row = msgspec.structs.replace(job.template, finished_at=time.time(), **fields)
        self._write(row)
        self.rows.append(row)
        self.progress.finished(row)
        return row

    async def run(self, jobs: Sequence[Job], attempt: Attempt) -> list[ManifestRow]:
        async with anyio.create_task_group() as tg:
            for job in jobs:
                tg.start_soon(self._run_job, job, attempt, tg.cancel_scope)
        return self.rows

    async def _run_job(self, job: Job, attempt: Attempt, sweep: anyio.CancelScope) -> None:
        started = False
        try:
            async with self._limiter:
                if self.ledger.stopped or self.stopped_reason:
                    why = self.stopped_reason or "sweep money/token cap reached before start"
                    status: Status = "budget" if self.ledger.stopped else "cancelled"
                    self._finish(job, status=status, error=why, attempts=0)
                    return
                started = True
                self.progress.started(job)
                await self._attempts(job, attempt, sweep)
        except anyio.get_cancelled_exc_class():
            # Writing the row is synchronous, so cancellation cannot interrupt it.
            self._finish(
                job,
                status="cancelled",
                error="sweep cancelled" if started else "sweep cancelled before start",
                attempts=1 if started else 0,
            )
            raise

    async def _attempts(self, job: Job, attempt: Attempt, sweep: anyio.CancelScope) -> None:
        t0 = time.time()
        for n in range(1, self.infra_retries + 2):
            try:
                with cell_deadline(self.cell_timeout_s, self.final_grace_s):
                    row = await attempt(job, n)
                self._finish(job, **_row_fields(row), attempts=n, started_at=t0)
                return
            except TimeoutError:
                error = (
                    f"cell exceeded its wall-time budget of {self.cell_timeout_s:g} s"
                    f" and {self.final_grace_s:g} s of grace for its final checkpoint"
                )
                self._finish(job, status="budget", error=error, attempts=n, started_at=t0)
                return
            except BudgetExceeded as exc:
                self._finish(job, status="budget", error=str(exc), attempts=n, started_at=t0)
                return
            except StopSweep as exc:
                self.stopped_reason = f"sweep stopped: {exc}"
                self._finish(job, status="llm_error", error=str(exc), attempts=n, started_at=t0)
                sweep.cancel()
                return
            except CellFailure as exc:
                if not exc.retryable or n > self.infra_retries:
                    self._finish(job, status=exc.status, error=str(exc), attempts=n, started_at=t0)
                    return
                await anyio.sleep(self.retry_delay_s * n)


def _row_fields(row: ManifestRow) -> dict[str, object]:
    # Everything the attempt computed; identity fields come from the job's template.
    skip = {
        "sweep",
        "cell",
        "task",
        "labels",
        "contract_hash",
        "config_hash",
        "solver",
        "arm",
        "repeat",
        "attempts",
        "started_at",
        "finished_at",
    }
    return {f: getattr(row, f) for f in row.__struct_fields__ if f not in skip}
