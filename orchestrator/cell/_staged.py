"""One cell: the staged protocol (DESIGN.md §5) and the full-spec arm."""

from __future__ import annotations

import contextlib
from collections import Counter
from contextlib import AsyncExitStack
from pathlib import Path

import anyio

from .. import events as ev
from .. import trajectory as tj
from ..budget import BudgetExceeded, BudgetKind, solver_phase
from ..checkpoint import Checkpointer
from ..contract import GATES, Gate, TaskPackage, Unit
from ..events import CheckpointSummary, EventLog
from ..faults import TaskProblem, classify, decisive, describe, format_traceback, leaves
from ..persona import SimulatedUser
from ..records import Arm, CellResult, UnitOutcome
from ..results import CheckResult, GateStatus, StateRun, VerifyReport
from ..scoring import baseline_regressions, score_cell
from ..solvers import MessageKind, SandboxedSolver, Solver, SolverTurn, Usage, UserMessage
from ..verifier import A11Y_ID, verifier_version, with_a11y_continuity
from ..workspace import (
    DiskLimitExceeded,
    EditEvent,
    Workspace,
    WorkspaceError,
    discard_under,
)
from ._baseline import BaselineResult, baseline_key
from ._context import CellContext, CellReport
from ._disk import disk_watch
from ._flips import FlipTracker
from ._suite import open_sandbox, run_baseline


class SolverBrokeWorkspace(Exception):
    """The workspace cannot be read back (e.g. the solver wrote git metadata): the
    solver's doing, so the cell ends and is graded on it, never retried as infra."""


def summarize(index: int, unit: str, report: VerifyReport, duration_s: float) -> CheckpointSummary:
    build = report.gate("build").status != "fail"
    serve = report.gate("serve").status != "fail"
    shots = {s.state: s.screenshot for s in report.states if s.screenshot}
    return CheckpointSummary(
        index=index,
        unit=unit,
        build_ok=build,
        serve_ok=serve,
        passed=sum(c.applicable and c.passed for c in report.checks),
        failed=sum(c.applicable and not c.passed for c in report.checks),
        gates={g.gate: g.status for g in report.gates},
        checks=report.checks,
        screenshots=shots,
        duration_s=duration_s,
        reused={s.state: s.reused for s in report.states if s.reused},
        replayed={s.state: s.replayed for s in report.states if s.replayed},
        replays=dict(Counter(_how(s) for s in report.states)),
        warm_fallbacks=dict(Counter(report.warm_discarded)),
    )


def _how(s: StateRun) -> str:
    if s.reused:
        return "reused"
    if s.shared_with:
        return "shared"
    return s.context or "failed"  # no replay finished (a crash after the retry)


class _Counters:
    def __init__(self) -> None:
        self.applied = 0
        self.refused = 0
        self.turns = 0
        self.usage = Usage()


class StagedRun:
    """Drives one solver through a task's units against one sandbox."""

    def __init__(
        self,
        ctx: CellContext,
        solver: Solver,
        ws: Workspace,
        cp: Checkpointer,
        log: EventLog,
        traj: tj.TrajectoryWriter | None = None,
    ) -> None:
        self.ctx = ctx
        self.task: TaskPackage = ctx.task
        self.solver = solver
        self.ws = ws
        self.cp = cp
        self.log = log
        self.user = SimulatedUser(self.task.contract, ctx.wording)
        self.flips = FlipTracker()
        self.protected: set[str] = set()
        self.preservation = set(self.task.contract.preservation_check_ids())
        self.counters = _Counters()
        self.last_report: VerifyReport | None = None
        self.history: list[CheckpointSummary] = []
        self.traj = traj
        self._turn_start = ""  # the tree as the turn in progress began (its partial edits)
        self.last_tree = ws.r0_tree  # the tree of the last checkpoint (R0 before one)

    def record(self, record: tj.Record) -> None:
        if self.traj is not None:
            self.traj.write(record)

    # ------------------------------------------------------------ one turn
    async def _turn(self, message: UserMessage, unit: Unit) -> tuple[SolverTurn, str, str]:
        """One solver turn; returns it with the tree before and after it."""
        n = self.counters.turns + 1
        self.record(
            tj.Message(
                type=message.kind,
                unit=message.unit_id,
                unit_index=message.unit_index,
                turn=n,
                text=message.text,
            )
        )
        before = self._turn_start = await self.tree_id()
        # Provider waits (retries, queues, an outage's pause) were credited to the wall
        # time as they happened (`orchestrator.llm`); `usage.wait_s` records them.
        result = await self.solver.respond(message, self.ws)
        after = await self.tree_id()
        self.record(
            tj.Turn(
                turn=n,
                unit=unit.id,
                end=result.end,
                question=result.question,
                note=result.note,
                usage=result.usage,
                tree_before=before,
                tree_after=after,
                patch=await self.ws.patch_between(before, after),
                messages=result.messages,
            )
        )
        self._turn_start = ""
        self.counters.turns += 1
        self.counters.usage = self.counters.usage + result.usage
        self.log.emit(
            ev.Turn(
                unit=unit.id,
                turn=self.counters.turns,
                text=f"{result.end}: {result.note}"[:2000],
                tokens=result.usage.input_tokens + result.usage.output_tokens,
                cost_usd=result.usage.cost_usd,
            )
        )
        for slip in result.slips:  # the model's own mistakes: its mess, the row stays `ok`
            self.log.emit(
                ev.Slip(unit=unit.id, turn=self.counters.turns, what=slip.what, text=slip.text)
            )
        return result, before, after

    async def record_stop(self, kind: BudgetKind, text: str) -> None:
        """A budget stopped the solver inside a turn: record the edits it made in that turn
        (the final checkpoint grades them) and why it stopped."""
        n = self.counters.turns + 1
        try:
            after = await self.ws.tree_id() if self._turn_start else ""
        except WorkspaceError:
            after = ""  # broken: the final checkpoint says so, as without a trajectory
        if after:
            self.record(
                tj.Turn(
                    turn=n,
                    unit="",
                    end="idle",
                    tree_before=self._turn_start,
                    tree_after=after,
                    patch=await self.ws.patch_between(self._turn_start, after),
                )
            )
        self.record(tj.Stop(turn=n, budget=kind, text=text))

    async def tree_id(self) -> str:
        """The workspace's content id; a workspace git cannot read is the solver's breakage."""
        try:
            return await self.ws.tree_id()
        except WorkspaceError as exc:
            raise SolverBrokeWorkspace(str(exc)) from exc

    async def checkpoint(
        self, unit_id: str, check_ids: set[str] | None
    ) -> tuple[int, VerifyReport]:
        try:
            await self.ws.check_disk(self.ctx.disk_limit_mb << 20)
            tree = await self.ws.tree_id()
            index, report, took = await self.cp.run(
                unit_id, check_ids, label="" if unit_id else "-final"
            )
        except DiskLimitExceeded:
            raise
        except WorkspaceError as exc:  # only reads of the work tree raise it here
            raise SolverBrokeWorkspace(str(exc)) from exc
        self.last_tree = tree
        self.record(
            tj.Checkpoint(index=index, unit=unit_id, after_turn=self.counters.turns, tree=tree)
        )
        summary = summarize(index, unit_id, report, took)
        self.history.append(summary)
        self.log.emit(ev.Checkpoint(unit=unit_id, checkpoint=summary))
        new, repaired = self.flips.observe(index, report, self.protected | self.preservation)
        for f in new:
            self.log.emit(
                ev.FlipEvent(
                    unit=unit_id, check=f.check, passed_at=f.passed_at, failed_at=f.failed_at
                )
            )
        for f in repaired:
            self.log.emit(
                ev.Repair(
                    unit=unit_id,
                    check=f.check,
                    passed_at=f.passed_at,
                    failed_at=f.failed_at,
                    repaired_at=index,
                )
            )
        self.last_report = report
        return index, report

    def _clearing(self, unit: Unit) -> set[str]:
        """What must pass at one checkpoint for `unit` to clear: a stage, its own checks; a
        rework "verifies every earlier stage again" (paper J.1), so also every protected
        check: the assertions of every unit cleared so far (paper §5's protected set).
        Preservation checks are not required here: on a Build task they may describe
        states a later stage creates."""
        if unit.kind == "rework":
            return set(unit.checks) | self.protected
        return set(unit.checks)

    def _screens(self) -> tuple[Path, ...]:
        if self.last_report is None:
            return ()
        base = self.cp.artifacts
        return tuple(base / s.screenshot for s in self.last_report.states if s.screenshot)

    # ------------------------------------------------------------ one unit
    async def run_unit(self, index: int, unit: Unit) -> UnitOutcome:
        unit_checks = set(unit.checks)
        text = self.user.reveal(unit, index)
        self.log.emit(ev.Reveal(unit=unit.id, text=text))
        message = UserMessage(kind="reveal", text=text, unit_id=unit.id, unit_index=index)
        verified_tree: str | None = None
        failures: list[CheckResult] = []
        for turn_no in range(1, self.task.contract.turns_per_unit + 1):
            result, before, after = await self._turn(message, unit)
            reply: list[str] = []
            kind: MessageKind = "pushback"
            if after != before or (result.end in ("done", "idle") and after != verified_tree):
                k, report = await self.checkpoint(
                    unit.id, unit_checks | self.protected | self.preservation
                )
                verified_tree = after
                if all(_passed(report, c) for c in self._clearing(unit)):
                    self.protected |= unit_checks
                    self.log.emit(ev.Cleared(unit=unit.id, turn=turn_no))
                    return UnitOutcome(
                        id=unit.id,
                        kind=unit.kind,
                        cleared=True,
                        capped=False,
                        turns=turn_no,
                        cleared_at=k,
                    )
                failures = list(report.failed)
            if result.end == "question":
                self.log.emit(ev.Question(unit=unit.id, text=result.question))
                answer = self.user.answer(result.question, self.task.contract.units[: index + 1])
                self.log.emit(ev.Answer(unit=unit.id, text=answer))
                reply.append(answer)
                kind = "answer"
            if failures:
                reply.append(self.user.pushback(failures))
            elif not reply:
                reply.append(self.user.nudge())
            text = "\n\n".join(reply)
            if kind == "pushback":
                self.log.emit(ev.Pushback(unit=unit.id, text=text))
            message = UserMessage(
                kind=kind, text=text, unit_id=unit.id, unit_index=index, screenshots=self._screens()
            )
        self.log.emit(ev.Cap(unit=unit.id, turn=self.task.contract.turns_per_unit))
        return UnitOutcome(
            id=unit.id,
            kind=unit.kind,
            cleared=False,
            capped=True,
            turns=self.task.contract.turns_per_unit,
        )

    async def run_full_spec(self) -> None:
        units = self.task.contract.units
        text = self.user.full_spec()
        self.log.emit(ev.Reveal(text=text))
        message = UserMessage(
            kind="full_spec", text=text, unit_id=units[-1].id, unit_index=len(units) - 1
        )
        for _ in range(self.task.contract.turns_per_unit * len(units)):
            result, _, _ = await self._turn(message, units[-1])
            if result.end != "question":
                if result.end in ("done", "idle"):
                    return
                message = UserMessage(
                    kind="pushback",
                    text=self.user.nudge(),
                    unit_id=units[-1].id,
                    unit_index=len(units) - 1,
                )
                continue
            self.log.emit(ev.Question(text=result.question))
            answer = self.user.answer(result.question, units)
            self.log.emit(ev.Answer(text=answer))
            message = UserMessage(
                kind="answer", text=answer, unit_id=units[-1].id, unit_index=len(units) - 1
            )


def _passed(report: VerifyReport, check_id: str) -> bool:
    """Cleared: passed, or not applicable (never blocks; never counts as a pass either)."""
    result = report.check(check_id)
    return result is not None and (result.passed or not result.applicable)


def _gates(report: VerifyReport) -> dict[Gate, GateStatus]:
    return {g.gate: g.status for g in report.gates}


def _failed_by_gate(report: VerifyReport) -> dict[Gate, tuple[str, ...]]:
    out: dict[Gate, list[str]] = {}
    for c in report.failed:
        out.setdefault(c.gate, []).append(c.id)
    return {g: tuple(ids) for g, ids in out.items()}


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


def _not_reached(task: TaskPackage, outcomes: list[UnitOutcome]) -> list[UnitOutcome]:
    done = {o.id for o in outcomes}
    return [
        UnitOutcome(id=u.id, kind=u.kind, cleared=False, capped=False, turns=0)
        for u in task.contract.units
        if u.id not in done
    ]


async def _run_cell(ctx: CellContext, solver: Solver, arm: Arm) -> CellReport:
    task = ctx.task
    ctx.cell_dir.mkdir(parents=True, exist_ok=True)
    await ctx.resolve_image()
    ws_dir = ctx.cell_dir / "workspace"
    # A retried attempt starts from R0 again.
    await anyio.to_thread.run_sync(discard_under, ctx.cell_dir)
    ws = await Workspace.create(task.repo, ws_dir, task.contract.allowed_paths)
    with (
        EventLog(ctx.cell_dir / "events.jsonl") as log,
        tj.TrajectoryWriter(ctx.cell_dir / tj.FILE) as traj,
    ):
        log.emit(ev.Start(text=f"{task.contract.id} {solver.name} {arm} attempt {ctx.attempt}"))
        traj.write(
            tj.Header(
                task=task.contract.id,
                contract_hash=task.contract_hash,
                arm=arm,
                solver=solver.name,
                attempt=ctx.attempt,
                r0_tree=ws.r0_tree,
                allowed_paths=tuple(task.contract.allowed_paths),
                verifier=ctx.verifier_version or verifier_version(),
                render_env=await ctx.render_env(),
            )
        )
        run: StagedRun

        def on_edit(e: EditEvent) -> None:
            if e.applied:
                run.counters.applied += 1
            else:
                run.counters.refused += 1
            log.emit(ev.Edit(path=e.path, applied=e.applied, text=e.reason))

        ws.listener = on_edit
        broken = ""
        async with AsyncExitStack() as stack:
            sb = await open_sandbox(ctx, ws, stack)
            cp = Checkpointer(task, ws, sb, ctx.verifier, ctx.cell_dir / "artifacts")
            if isinstance(solver, SandboxedSolver):
                solver.attach_sandbox(sb, log)
            run = StagedRun(ctx, solver, ws, cp, log, traj)
            outcomes: list[UnitOutcome] = []
            final: VerifyReport | None = None
            stopped = ""
            ended = ""  # the disk limit: the solver's doing, its tree is not verified
            stopped_by: BudgetKind = "wall_time"
            try:
                # The tree's disk use is watched while the solver works, not only at
                # checkpoints: a flood ends the cell within seconds (`DiskLimitExceeded`).
                async with disk_watch(ws, ctx.disk_limit_mb << 20):
                    with solver_phase() as phase:
                        try:
                            if arm == "staged":
                                for i, unit in enumerate(task.contract.units):
                                    outcomes.append(await run.run_unit(i, unit))
                            else:
                                await run.run_full_spec()
                        except BudgetExceeded as exc:
                            stopped, stopped_by = str(exc), exc.kind
                if phase.cancelled_caught:
                    stopped = "wall_time budget exceeded: the solver ran out of cell time"
                if stopped:
                    # Scored on what it delivered: the units it did not reach are not cleared.
                    log.emit(ev.BudgetEvent(text=stopped))
                    await run.record_stop(stopped_by, stopped)
                _, final = await run.checkpoint("", None)
            except DiskLimitExceeded as exc:
                ended = str(exc)
                log.emit(ev.DiskLimit(text=ended))
            except SolverBrokeWorkspace as exc:
                broken = str(exc)
                log.emit(ev.Broken(text=broken))
        if ended:  # the sandbox is closed: give the flood back, keep the last graded tree
            with contextlib.suppress(WorkspaceError):  # else `gc` removes it with its run
                await ws.restore(run.last_tree)
        if arm == "full-spec":
            outcomes = [
                UnitOutcome(
                    id=u.id,
                    kind=u.kind,
                    cleared=final is not None and all(_passed(final, c) for c in u.checks),
                    capped=False,
                    turns=run.counters.turns,
                )
                for u in task.contract.units
            ]
        outcomes += _not_reached(task, outcomes)
        baseline: BaselineResult | None = None
        baseline_wait_s = 0.0
        if ctx.baseline is not None:
            key = baseline_key(task.contract_hash, ctx.backend.name, ctx.image)
            t_baseline = anyio.current_time()
            baseline = await ctx.baseline.get(key, lambda: run_baseline(ctx))
            baseline_wait_s = anyio.current_time() - t_baseline
            log.emit(ev.Baseline(gates=baseline.gates))
            if not baseline.covered:  # R0 must be runnable (DESIGN §2): not the solver's
                cannot = " or ".join(
                    g for g in ("build", "serve") if baseline.gates.get(g) == "fail"
                )
                raise TaskProblem(
                    f"the task's untouched R0 cannot {cannot}: a task problem, not graded"
                )
        if final is not None:
            # Accessibility continuity: the final against R0's snapshots (admission's
            # reference gets them from its own R0 run, `ctx.a11y_r0`).
            r0_a11y = ctx.a11y_r0
            if r0_a11y is None and baseline is not None and baseline.covered:
                r0_a11y = baseline.a11y
            if r0_a11y:
                final = with_a11y_continuity(final, task.contract, [("R0", r0_a11y)])
        # A work tree the solver flooded or broke is not verified: every gate fails.
        final_gates: dict[Gate, GateStatus] = (
            _gates(final) if final is not None else {g: "fail" for g in GATES}
        )
        a11y_failed = tuple(
            c
            for c in (final.checks if final is not None else ())
            if A11Y_ID.match(c.id) and c.failed
        )
        log.emit(ev.Final(gates=final_gates, a11y_failed=a11y_failed))
        regressions = (
            baseline_regressions(baseline.gates, final_gates, _failed_by_gate(final))
            if baseline and baseline.covered and final is not None
            else ()
        )
        flips = tuple(run.flips.flips)
        scores = score_cell(tuple(outcomes), final_gates, flips, ctx.weights)
        log.emit(ev.End(text=f"wcs={scores.wcs:.3f} whole_task={scores.whole_task}"))
        traj.write(tj.End(turns=run.counters.turns, usage=run.counters.usage))
        result = CellResult(
            units=tuple(outcomes),
            final_gates=final_gates,
            scores=scores,
            flips=flips,
            baseline_regressions=regressions,
            baseline_covered=baseline is not None and baseline.covered,
            edits_applied=run.counters.applied,
            edits_refused=run.counters.refused,
            turns=run.counters.turns,
            checkpoints=cp.count,
            broken=broken or ended,
            not_applicable={g.gate: g.reason for g in final.gates if g.status == "n/a" and g.reason}
            if final is not None
            else {},
        )
        return CellReport(
            result=result,
            image=ctx.image,
            usage=run.counters.usage,
            history=tuple(run.history),
            stopped=stopped,
            stopped_by=stopped_by,
            ended=ended,
            baseline_wait_s=baseline_wait_s,
            final_a11y=final.a11y if final is not None else {},
        )
