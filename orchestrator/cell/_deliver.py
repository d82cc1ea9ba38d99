"""A cell's delivery: the solver at work in the cell's sandbox, unit by unit (staged) or
on the whole spec, within its budgets and its disk limit; then the final checkpoint.

How it ended is decided here, once, as a `CellEnd` (`_end`), and handed on in a frozen
`Delivery` that `_grade` scores.
"""

from __future__ import annotations

import contextlib
from contextlib import AsyncExitStack

from .. import events as ev
from ..budget import BudgetExceeded, solver_phase
from ..checkpoint import Checkpointer
from ..events import EventLog
from ..records import Arm, UnitOutcome, VerifyReport
from ..records import trajectory as tj
from ..solvers import CellBinding, Solver
from ..workspace import DiskLimitExceeded, Workspace, WorkspaceError
from ._context import CellContext
from ._delivery import Delivery
from ._disk import disk_watch
from ._end import BudgetStopped, CellEnd, DiskLimitHit, Finished, TreeBroken
from ._staged import SolverBrokeWorkspace, StagedRun
from ._suite import open_sandbox

_OUT_OF_TIME = "wall_time budget exceeded: the solver ran out of cell time"


async def deliver(
    ctx: CellContext,
    solver: Solver,
    arm: Arm,
    ws: Workspace,
    log: EventLog,
    traj: tj.TrajectoryWriter,
) -> Delivery:
    """Run the solver in the cell's sandbox, then the final checkpoint. A budget that
    stops the solver, the disk limit and a broken work tree end the delivery (its
    `end`); infrastructure and provider errors propagate."""
    units: list[UnitOutcome] = []
    stop: BudgetStopped | None = None
    final: VerifyReport | None = None
    ended: DiskLimitHit | TreeBroken | None = None
    async with AsyncExitStack() as stack:
        sb = await open_sandbox(ctx, ws, stack)
        cp = Checkpointer(ctx.task, ws, sb, ctx.verifier, ctx.cell_dir / "artifacts")
        # The solver is bound to the cell (its sandbox, log, gateway) for the delivery and
        # let go before the sandbox closes.
        await stack.enter_async_context(
            solver.bind(CellBinding(sandbox=sb, log=log, gateway=ctx.gateway))
        )
        run = StagedRun(ctx, solver, ws, cp, log, traj)
        ws.listener = run.on_edit
        try:
            # The tree's disk use is watched while the solver works, not only at
            # checkpoints: a flood ends the cell within seconds (`DiskLimitExceeded`).
            async with disk_watch(ws, ctx.disk_limit_mb << 20):
                with solver_phase() as phase:
                    stop = await _solve(run, arm, units)
            if phase.cancelled_caught:
                stop = BudgetStopped(kind=stop.kind if stop else "wall_time", reason=_OUT_OF_TIME)
            if stop is not None:
                # Scored on what it delivered: the units it did not reach are not cleared.
                log.emit(ev.BudgetEvent(text=stop.reason))
                await run.record_stop(stop.kind, stop.reason)
            _, final = await run.checkpoint("", None)
        except DiskLimitExceeded as exc:
            ended = DiskLimitHit(reason=str(exc))
            log.emit(ev.DiskLimit(text=ended.reason))
        except SolverBrokeWorkspace as exc:
            ended = TreeBroken(reason=str(exc))
            log.emit(ev.Broken(text=ended.reason))
    if isinstance(ended, DiskLimitHit):  # the sandbox is closed: give the flood back,
        with contextlib.suppress(WorkspaceError):  # keep the last graded tree (else `gc`
            await ws.restore(run.last_tree)  # removes it with its run)
    return run.delivered(_end(stop or _judged_stop(solver), ended), units, final)


async def _solve(run: StagedRun, arm: Arm, units: list[UnitOutcome]) -> BudgetStopped | None:
    """The solver's turns (the units reached go to `units`); the budget that stopped it."""
    try:
        if arm == "staged":
            for i, unit in enumerate(run.task.contract.units):
                units.append(await run.run_unit(i, unit))
        else:
            await run.run_full_spec()
    except BudgetExceeded as exc:
        return BudgetStopped(kind=exc.kind, reason=str(exc))
    return None


def _judged_stop(solver: Solver) -> BudgetStopped | None:
    """A budget the solver's own judge says stopped it (a scaffold's agent refused by the
    gateway, or out of its time): its turn ended normally, so only its verdict says so.
    Not logged: the agent's event has it."""
    verdict = solver.verdict()
    if isinstance(verdict, BudgetExceeded):
        return BudgetStopped(kind=verdict.kind, reason=str(verdict))
    return None


def _end(stop: BudgetStopped | None, ended: DiskLimitHit | TreeBroken | None) -> CellEnd:
    """One end: the flood or the breakage (after the budget that stopped the solver, if
    one did), else that budget, else finished."""
    match ended:
        case DiskLimitHit(reason=reason):
            return DiskLimitHit(reason=reason, stop=stop)
        case TreeBroken(reason=reason):
            return TreeBroken(reason=reason, stop=stop)
        case None:
            return stop or Finished()
