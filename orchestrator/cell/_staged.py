"""The solver driven through a task: the staged protocol (DESIGN.md §5), unit by unit
with reveals, checkpoints, flips and the simulated user's replies, and the full-spec
arm; every turn and checkpoint recorded in the trajectory."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from .. import events as ev
from ..budget import BudgetKind
from ..checkpoint import Checkpointer
from ..contract import TaskPackage, Unit
from ..events import CheckpointSummary, EventLog
from ..persona import SimulatedUser
from ..records import CheckResult, StateRun, UnitOutcome, VerifyReport
from ..records import trajectory as tj
from ..solvers import MessageKind, Solver, SolverTurn, Usage, UserMessage
from ..workspace import (
    DiskLimitExceeded,
    EditEvent,
    Workspace,
    WorkspaceError,
)
from ._context import CellContext
from ._delivery import Delivery
from ._end import CellEnd
from ._flips import FlipTracker


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

    def delivered(
        self, end: CellEnd, units: Sequence[UnitOutcome], final: VerifyReport | None
    ) -> Delivery:
        """The delivery as it ended (`_deliver.deliver` decides `end`): what grading reads."""
        return Delivery(
            end=end,
            units=tuple(units),
            final=final,
            flips=tuple(self.flips.flips),
            history=tuple(self.history),
            checkpoints=self.cp.count,
            turns=self.counters.turns,
            usage=self.counters.usage,
            edits_applied=self.counters.applied,
            edits_refused=self.counters.refused,
        )

    def on_edit(self, e: EditEvent) -> None:
        """The workspace's listener: every edit the solver tried, applied or refused."""
        if e.applied:
            self.counters.applied += 1
        else:
            self.counters.refused += 1
        self.log.emit(ev.Edit(path=e.path, applied=e.applied, text=e.reason))

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
            message = self._reply(index, unit, result, failures)
        self.log.emit(ev.Cap(unit=unit.id, turn=self.task.contract.turns_per_unit))
        return UnitOutcome(
            id=unit.id,
            kind=unit.kind,
            cleared=False,
            capped=True,
            turns=self.task.contract.turns_per_unit,
        )

    def _reply(
        self, index: int, unit: Unit, result: SolverTurn, failures: list[CheckResult]
    ) -> UserMessage:
        """The simulated user's next message on `unit`: the answer to the solver's
        question, push-back on what still fails, or else a nudge."""
        reply: list[str] = []
        kind: MessageKind = "pushback"
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
        return UserMessage(
            kind=kind, text=text, unit_id=unit.id, unit_index=index, screenshots=self._screens()
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
