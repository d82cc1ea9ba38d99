"""A cell's delivery: the solver at work in the cell's sandbox, unit by unit (staged) or
on the whole spec, within its budgets and its disk limit; then the final checkpoint.

How it ended stays on the `StagedRun` (`outcomes`, `final`, `stopped`, `ended`,
`broken`), which `_grade` scores.
"""

from __future__ import annotations

import contextlib
from contextlib import AsyncExitStack

from .. import events as ev
from .. import trajectory as tj
from ..budget import BudgetExceeded, solver_phase
from ..checkpoint import Checkpointer
from ..events import EventLog
from ..records import Arm
from ..solvers import SandboxedSolver, Solver
from ..workspace import DiskLimitExceeded, Workspace, WorkspaceError
from ._context import CellContext
from ._disk import disk_watch
from ._staged import SolverBrokeWorkspace, StagedRun
from ._suite import open_sandbox


async def deliver(
    ctx: CellContext,
    solver: Solver,
    arm: Arm,
    ws: Workspace,
    log: EventLog,
    traj: tj.TrajectoryWriter,
) -> StagedRun:
    """Run the solver in the cell's sandbox, then the final checkpoint. A budget that
    stops the solver, the disk limit and a broken work tree end the delivery (recorded on
    the run); infrastructure and provider errors propagate."""
    async with AsyncExitStack() as stack:
        sb = await open_sandbox(ctx, ws, stack)
        cp = Checkpointer(ctx.task, ws, sb, ctx.verifier, ctx.cell_dir / "artifacts")
        if isinstance(solver, SandboxedSolver):
            solver.attach_sandbox(sb, log)
        run = StagedRun(ctx, solver, ws, cp, log, traj)
        ws.listener = run.on_edit
        try:
            # The tree's disk use is watched while the solver works, not only at
            # checkpoints: a flood ends the cell within seconds (`DiskLimitExceeded`).
            async with disk_watch(ws, ctx.disk_limit_mb << 20):
                with solver_phase() as phase:
                    await _solve(run, arm)
            if phase.cancelled_caught:
                run.stopped = "wall_time budget exceeded: the solver ran out of cell time"
            if run.stopped:
                # Scored on what it delivered: the units it did not reach are not cleared.
                log.emit(ev.BudgetEvent(text=run.stopped))
                await run.record_stop(run.stopped_by, run.stopped)
            _, run.final = await run.checkpoint("", None)
        except DiskLimitExceeded as exc:
            run.ended = str(exc)
            log.emit(ev.DiskLimit(text=run.ended))
        except SolverBrokeWorkspace as exc:
            run.broken = str(exc)
            log.emit(ev.Broken(text=run.broken))
    if run.ended:  # the sandbox is closed: give the flood back, keep the last graded tree
        with contextlib.suppress(WorkspaceError):  # else `gc` removes it with its run
            await ws.restore(run.last_tree)
    return run


async def _solve(run: StagedRun, arm: Arm) -> None:
    """The solver's turns; a budget that stops it is recorded on the run."""
    try:
        if arm == "staged":
            for i, unit in enumerate(run.task.contract.units):
                run.outcomes.append(await run.run_unit(i, unit))
        else:
            await run.run_full_spec()
    except BudgetExceeded as exc:
        run.stopped, run.stopped_by = str(exc), exc.kind
