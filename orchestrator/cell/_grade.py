"""A cell's grading: its delivery (`_deliver`) scored. The units cleared, the final
checkpoint's gates (with accessibility continuity against the task's evidence, else
against R0's live run), the baseline channel's regressions against R0's verdicts, the
flips, and the scores."""

from __future__ import annotations

import anyio

from .. import events as ev
from ..contract import GATES, Gate, TaskPackage
from ..events import EventLog
from ..faults import TaskProblem
from ..records import Arm, CellResult, GateStatus, UnitOutcome, VerifyReport
from ..scoring import baseline_regressions, score_cell
from ..verifier import A11Y_ID, A11yEvidence, with_a11y_continuity
from ._baseline import BaselineResult, baseline_key
from ._context import CellContext, CellReport
from ._delivery import Delivery
from ._end import broken_text
from ._staged import _passed
from ._suite import run_baseline


async def grade(ctx: CellContext, arm: Arm, run: Delivery, log: EventLog) -> CellReport:
    """Score the delivery (it and R0's baseline only); a task whose untouched R0 cannot
    run raises `TaskProblem`."""
    outcomes = _unit_outcomes(ctx.task, arm, run)
    baseline, baseline_wait_s = await _baseline(ctx, log)
    final = _with_continuity(ctx, run.final, baseline, await ctx.a11y_evidence())
    # A work tree the solver flooded or broke is not verified: every gate fails.
    final_gates: dict[Gate, GateStatus] = (
        _gates(final) if final is not None else {g: "fail" for g in GATES}
    )
    a11y_failed = tuple(
        c for c in (final.checks if final is not None else ()) if A11Y_ID.match(c.id) and c.failed
    )
    log.emit(ev.Final(gates=final_gates, a11y_failed=a11y_failed))
    regressions = (
        baseline_regressions(baseline.gates, final_gates, _failed_by_gate(final))
        if baseline and baseline.covered and final is not None
        else ()
    )
    flips = run.flips
    scores = score_cell(tuple(outcomes), final_gates, flips, ctx.weights)
    log.emit(ev.End(text=f"wcs={scores.wcs:.3f} whole_task={scores.whole_task}"))
    result = CellResult(
        units=tuple(outcomes),
        final_gates=final_gates,
        scores=scores,
        flips=flips,
        baseline_regressions=regressions,
        baseline_covered=baseline is not None and baseline.covered,
        edits_applied=run.edits_applied,
        edits_refused=run.edits_refused,
        turns=run.turns,
        checkpoints=run.checkpoints,
        broken=broken_text(run.end),
        not_applicable={g.gate: g.reason for g in final.gates if g.status == "n/a" and g.reason}
        if final is not None
        else {},
    )
    return CellReport(
        result=result,
        image=ctx.image,
        usage=run.usage,
        history=run.history,
        end=run.end,
        baseline_wait_s=baseline_wait_s,
        final_a11y=final.a11y if final is not None else {},
    )


def _unit_outcomes(task: TaskPackage, arm: Arm, run: Delivery) -> list[UnitOutcome]:
    """Every unit's outcome: staged, as delivered; full-spec, by the final checkpoint (a
    unit is cleared when every one of its checks passes there). Units not reached are
    not cleared."""
    outcomes = list(run.units)
    final = run.final
    if arm == "full-spec":
        outcomes = [
            UnitOutcome(
                id=u.id,
                kind=u.kind,
                cleared=final is not None and all(_passed(final, c) for c in u.checks),
                capped=False,
                turns=run.turns,
            )
            for u in task.contract.units
        ]
    return outcomes + _not_reached(task, outcomes)


def _not_reached(task: TaskPackage, outcomes: list[UnitOutcome]) -> list[UnitOutcome]:
    done = {o.id for o in outcomes}
    return [
        UnitOutcome(id=u.id, kind=u.kind, cleared=False, capped=False, turns=0)
        for u in task.contract.units
        if u.id not in done
    ]


async def _baseline(ctx: CellContext, log: EventLog) -> tuple[BaselineResult | None, float]:
    """The sweep's shared R0 verdicts (None without a baseline cache), and the seconds
    spent on them (waiting for another cell to run R0, or running it first)."""
    if ctx.baseline is None:
        return None, 0.0
    key = baseline_key(ctx.task.contract_hash, ctx.backend.name, ctx.image)
    t_baseline = anyio.current_time()
    baseline = await ctx.baseline.get(key, lambda: run_baseline(ctx))
    baseline_wait_s = anyio.current_time() - t_baseline
    log.emit(ev.Baseline(gates=baseline.gates))
    if not baseline.covered:  # R0 must be runnable (DESIGN §2): not the solver's
        cannot = " or ".join(g for g in ("build", "serve") if baseline.gates.get(g) == "fail")
        raise TaskProblem(f"the task's untouched R0 cannot {cannot}: a task problem, not graded")
    return baseline, baseline_wait_s


def _with_continuity(
    ctx: CellContext,
    final: VerifyReport | None,
    baseline: BaselineResult | None,
    evidence: A11yEvidence | None,
) -> VerifyReport | None:
    """Accessibility continuity: the final against the task's evidence (R0's and the
    reference's snapshots) where it has some; else against R0's live snapshots (the
    baseline's; admission's reference gets them from its own R0 run, `ctx.a11y_r0`)."""
    if final is None:
        return None
    if evidence is not None:
        return with_a11y_continuity(final, ctx.task.contract, evidence.bases())
    r0_a11y = ctx.a11y_r0
    if r0_a11y is None and baseline is not None and baseline.covered:
        r0_a11y = baseline.a11y
    if r0_a11y:
        final = with_a11y_continuity(final, ctx.task.contract, [("R0", r0_a11y)])
    return final


def _gates(report: VerifyReport) -> dict[Gate, GateStatus]:
    return {g.gate: g.status for g in report.gates}


def _failed_by_gate(report: VerifyReport) -> dict[Gate, tuple[str, ...]]:
    out: dict[Gate, list[str]] = {}
    for c in report.failed:
        out.setdefault(c.gate, []).append(c.id)
    return {g: tuple(ids) for g, ids in out.items()}
