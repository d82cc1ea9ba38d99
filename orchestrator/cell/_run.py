"""One cell end to end: a fresh R0 work tree, its event log and trajectory, the delivery
(`_deliver`), then its grading (`_grade`)."""

from __future__ import annotations

import anyio

from .. import events as ev
from ..contract import ContractError
from ..events import EventLog
from ..faults import TaskProblem, classify, decisive, describe, format_traceback, leaves
from ..records import Arm
from ..records import trajectory as tj
from ..solvers import Solver
from ..verifier import verifier_version
from ..workspace import Workspace, discard_under
from ._context import CellContext, CellReport
from ._deliver import deliver
from ._grade import grade


async def run_cell(ctx: CellContext, solver: Solver, arm: Arm = "staged") -> CellReport:
    """Run one cell end to end; infrastructure, provider and budget errors propagate.

    Whatever ends the cell is logged to its events, classified (`orchestrator.faults`),
    with its traceback. Task groups inside (sandbox, browser) wrap errors in exception
    groups: each member is logged on its own, and the decisive member (a bug before a
    provider error before an infrastructure fault) is what the caller gets.
    """
    try:
        return await _run_cell(ctx, solver, arm)
    except BaseException as exc:
        _log_failure(ctx, exc)
        if isinstance(exc, BaseExceptionGroup):
            raise decisive(exc) from None
        raise


def _log_failure(ctx: CellContext, exc: BaseException) -> None:
    members = [e for e in leaves(exc) if classify(e) != "cancelled"]
    if not members or not ctx.cell_dir.is_dir():
        return
    with EventLog(ctx.cell_dir / "events.jsonl") as log:
        for e in members:
            log.emit(
                ev.Error(
                    cause=classify(e),
                    error=describe(e),
                    attempt=ctx.attempt,
                    traceback=format_traceback(e),
                )
            )


async def _run_cell(ctx: CellContext, solver: Solver, arm: Arm) -> CellReport:
    task = ctx.task
    ctx.cell_dir.mkdir(parents=True, exist_ok=True)
    try:  # before the solver spends anything: a broken package is the task's problem
        await ctx.a11y_evidence()
    except ContractError as exc:
        raise TaskProblem(str(exc)) from exc
    await ctx.resolve_image()
    # A retried attempt starts from R0 again.
    await anyio.to_thread.run_sync(discard_under, ctx.cell_dir)
    ws = await Workspace.create(task.repo, ctx.cell_dir / "workspace", task.contract.allowed_paths)
    with (
        EventLog(ctx.cell_dir / "events.jsonl") as log,
        tj.TrajectoryWriter(ctx.cell_dir / tj.FILE) as traj,
    ):
        log.emit(ev.Start(text=f"{task.contract.id} {solver.name} {arm} attempt {ctx.attempt}"))
        traj.write(await _header(ctx, solver, arm, ws.r0_tree))
        delivery = await deliver(ctx, solver, arm, ws, log, traj)
        report = await grade(ctx, arm, delivery, log)
        traj.write(tj.End(turns=delivery.turns, usage=delivery.usage))
        return report


async def _header(ctx: CellContext, solver: Solver, arm: Arm, r0_tree: str) -> tj.Header:
    task = ctx.task
    return tj.Header(
        task=task.contract.id,
        contract_hash=task.contract_hash,
        arm=arm,
        solver=solver.name,
        attempt=ctx.attempt,
        r0_tree=r0_tree,
        allowed_paths=tuple(task.contract.allowed_paths),
        verifier=ctx.verifier_version or verifier_version(),
        render_env=await ctx.render_env(),
    )
