"""The full suite, once, on a tree of its own: R0 for the baseline channel, and the
controls admission runs (R0, R0 + a negative)."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AsyncExitStack
from pathlib import Path

import anyio
import msgspec

from sandbox import Sandbox

from ..budget import waiting
from ..checkpoint import Checkpointer
from ..records import VerifyReport
from ..verifier import with_a11y_continuity
from ..workspace import Workspace, discard
from ._baseline import BaselineRun
from ._context import CellContext


async def open_sandbox(
    ctx: CellContext, ws: Workspace, stack: AsyncExitStack, tag: str = ""
) -> Sandbox:
    """Open the cell's sandbox; only the start is limited (it is the CPU-heavy part)."""
    labels = msgspec.structs.replace(ctx.labels, cell=ctx.labels.cell + tag)
    opening = ctx.backend.open(ws.root, ctx.serve_spec, labels, ctx.limits)
    if ctx.sandbox_limiter is None:
        return await stack.enter_async_context(opening)
    with waiting():
        await ctx.sandbox_limiter.acquire()
    try:
        return await stack.enter_async_context(opening)
    finally:
        ctx.sandbox_limiter.release()


async def run_suite(
    ctx: CellContext,
    root: Path,
    label: str,
    patches: Sequence[Path] = (),
    tag: str = "",
    *,
    a11y: bool = True,
) -> VerifyReport:
    """The full suite on the task's R0 with `patches` applied in order, in a sandbox of
    its own (labelled with `tag`): the tree at `root/workspace`, artifacts under
    `root/artifacts` (their names end with `label`). `a11y` False: no accessibility
    snapshots (R0 of a task whose evidence has them)."""
    await anyio.to_thread.run_sync(discard, root / "workspace")
    ws = await Workspace.create(ctx.task.repo, root / "workspace", ctx.task.contract.allowed_paths)
    for patch in patches:
        await ws.apply_patch(patch)
    async with AsyncExitStack() as stack:
        sb = await open_sandbox(ctx, ws, stack, tag)
        cp = Checkpointer(ctx.task, ws, sb, ctx.verifier, root / "artifacts")
        _, report, _ = await cp.run("", None, label=label, a11y=a11y)
    return report


async def run_baseline(ctx: CellContext) -> BaselineRun:
    """The full suite on untouched R0, in a sandbox of its own: its gates, and each
    state's accessibility snapshot (the base of the accessibility continuity rules).

    A task with accessibility evidence (`evidence/a11y.json`) has R0's snapshots
    already: R0 then replays without taking them (less browser work per sweep), its
    gates are graded on the evidence's, and it hands no snapshot on (the cells take
    their bases from the evidence)."""
    evidence = await ctx.a11y_evidence()
    report = await run_suite(
        ctx, ctx.cell_dir / "baseline", "-r0", tag="-baseline", a11y=evidence is None
    )
    # R0 against itself passes every accessibility continuity check: its gates then say
    # "pass" where the final's may fail, so the baseline channel reports such a regression.
    if evidence is None:
        report = with_a11y_continuity(report, ctx.task.contract, [("R0", report.a11y)])
        return BaselineRun(gates={g.gate: g.status for g in report.gates}, a11y=report.a11y)
    if report.states and evidence.r0:  # R0 was served: the evidence speaks for it
        seen = msgspec.structs.replace(report, a11y=evidence.r0)
        report = with_a11y_continuity(seen, ctx.task.contract, [("R0", evidence.r0)])
    return BaselineRun(gates={g.gate: g.status for g in report.gates})
