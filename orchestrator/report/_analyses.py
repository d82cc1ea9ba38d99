"""The paper's further analyses over a run: Build vs Change, facet and stack breakdowns,
rerun variability, ablation pairs, the scaffold x backbone grid, and cost per solver.

Every function takes the result rows (cancelled rows already left out) and the solver
cards; none pools a control or a scripted solver with the models under test.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Callable, Sequence

from ..records import ManifestRow
from ..solver_cards import SolverCard
from ._measures import mean, rate, row_cost, row_mean, row_rate, row_tokens
from ._model import (
    ARM_ORDER,
    AblationRow,
    BreakdownRow,
    CostRow,
    GridCell,
    Mean,
    VariabilityRow,
)

Cards = Callable[[str], SolverCard]


def _by_solver_arm(rows: Sequence[ManifestRow]) -> dict[tuple[str, str], list[ManifestRow]]:
    out: dict[tuple[str, str], list[ManifestRow]] = defaultdict(list)
    for r in rows:
        out[(r.solver, r.arm)].append(r)
    return dict(sorted(out.items(), key=lambda kv: (ARM_ORDER.index(kv[0][1]), kv[0][0])))


def _scored(rows: Sequence[ManifestRow]) -> list[ManifestRow]:
    """Rows a solver is scored on: infrastructure faults and bugs of ours are not theirs."""
    return [r for r in rows if r.status not in ("infra_error", "harness_error")]


EMPTY = Mean(n=0, tasks=0, value=math.nan, lo=math.nan, hi=math.nan)


def _breakdown_row(solver: str, arm: str, group: str, pop: list[ManifestRow]) -> BreakdownRow:
    return BreakdownRow(
        solver=solver,
        arm=arm,
        group=group,
        cells=len(pop),
        gate=row_mean(pop, lambda s: s.gate),
        stage=row_mean(pop, lambda s: s.stage) if arm == "staged" else EMPTY,
        wcs=row_mean(pop, lambda s: s.wcs),
    )


def breakdown(
    rows: Sequence[ManifestRow], key: Callable[[ManifestRow], str], cards: Cards
) -> tuple[BreakdownRow, ...]:
    """Gate%, Stage% and WCS per (solver, arm) within each group `key` names, then an
    "all" row per (arm, group) pooling the models under test (no control, no scripted
    solver): the paper's pooled Build 0.240 vs Change 0.348."""
    out = []
    pooled: dict[tuple[str, str], list[ManifestRow]] = defaultdict(list)
    for (solver, arm), members in _by_solver_arm(_scored(rows)).items():
        groups: dict[str, list[ManifestRow]] = defaultdict(list)
        for r in members:
            groups[key(r)].append(r)
            if cards(solver).role == "model":
                pooled[(arm, key(r))].append(r)
        for group, pop in sorted(groups.items()):
            out.append(_breakdown_row(solver, arm, group, pop))
    for (arm, group), pop in sorted(
        pooled.items(), key=lambda kv: (ARM_ORDER.index(kv[0][0]), kv[0][1])
    ):
        out.append(_breakdown_row("all", arm, group, pop))
    return tuple(out)


def _cells(rows: Sequence[ManifestRow]) -> dict[tuple[str, str, str], list[ManifestRow]]:
    out: dict[tuple[str, str, str], list[ManifestRow]] = defaultdict(list)
    for r in rows:
        if r.scores is not None:
            out[(r.task, r.solver, r.arm)].append(r)
    return out


def max_repeats(rows: Sequence[ManifestRow]) -> int:
    counts: dict[tuple[str, str, str], int] = defaultdict(int)
    for r in rows:
        counts[(r.task, r.solver, r.arm)] += 1
    return max(counts.values(), default=0)


def variability(rows: Sequence[ManifestRow]) -> tuple[VariabilityRow, ...]:
    """Per solver and arm: the SD of WCS across repeats of one cell, and whether the
    whole-task verdict agreed in every repeat (paper Appendix D / Figure 15)."""
    per: dict[tuple[str, str], list[list[ManifestRow]]] = defaultdict(list)
    for (_, solver, arm), reps in sorted(_cells(_scored(rows)).items()):
        if len(reps) >= 2:
            per[(solver, arm)].append(reps)
    out = []
    for (solver, arm), cells in sorted(
        per.items(), key=lambda kv: (ARM_ORDER.index(kv[0][1]), kv[0][0])
    ):
        sds = [statistics.stdev(r.scores.wcs for r in reps if r.scores) for reps in cells]
        verdicts = [{bool(r.scores and r.scores.whole_task) for r in reps} for reps in cells]
        out.append(
            VariabilityRow(
                solver=solver,
                arm=arm,
                cells=len(cells),
                sd_mean=statistics.fmean(sds),
                sd_max=max(sds),
                agree=rate(len(v) == 1 for v in verdicts),
                sds=tuple(sds),
            )
        )
    return tuple(out)


def _task_means(rows: Sequence[ManifestRow], field: str) -> dict[str, float]:
    by_task: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        by_task[r.task].append(getattr(r.scores, field) if r.scores else 0.0)
    return {t: statistics.fmean(v) for t, v in by_task.items()}


def _differing_option(a: SolverCard, b: SolverCard) -> str | None:
    """The one option two otherwise identical model solvers differ in, if exactly one."""
    if a.role != b.role or (a.kind, a.scaffold, a.backbone, a.provider) != (
        b.kind,
        b.scaffold,
        b.backbone,
        b.provider,
    ):
        return None
    keys = set(a.options) | set(b.options)
    diff = [k for k in sorted(keys) if a.options.get(k) != b.options.get(k)]
    return diff[0] if len(diff) == 1 else None


def ablations(rows: Sequence[ManifestRow], cards: Cards) -> tuple[AblationRow, ...]:
    """Every pair of solvers that differ in exactly one option, compared on the tasks both
    ran in the same arm: paired per-task deltas (repeats averaged) with task-clustered
    intervals. Controls are never paired."""
    out = []
    for arm in ARM_ORDER:
        by_solver: dict[str, list[ManifestRow]] = defaultdict(list)
        for r in _scored(rows):
            if r.arm == arm and cards(r.solver).role != "control":
                by_solver[r.solver].append(r)
        names = sorted(by_solver)
        for i, x in enumerate(names):
            for y in names[i + 1 :]:
                option = _differing_option(cards(x), cards(y))
                if option is None:
                    continue
                ga, gb = _task_means(by_solver[x], "gate"), _task_means(by_solver[y], "gate")
                wa, wb = _task_means(by_solver[x], "wcs"), _task_means(by_solver[y], "wcs")
                tasks = sorted(set(ga) & set(gb))
                if not tasks:
                    continue
                shared_a = [r for r in by_solver[x] if r.task in tasks]
                shared_b = [r for r in by_solver[y] if r.task in tasks]
                out.append(
                    AblationRow(
                        option=option,
                        arm=arm,
                        a=x,
                        b=y,
                        a_value=str(cards(x).options.get(option)),
                        b_value=str(cards(y).options.get(option)),
                        pairs=len(tasks),
                        gate_delta=mean([ga[t] - gb[t] for t in tasks], tasks),
                        wcs_delta=mean([wa[t] - wb[t] for t in tasks], tasks),
                        task_a=row_rate(shared_a, lambda s: s.whole_task),
                        task_b=row_rate(shared_b, lambda s: s.whole_task),
                    )
                )
    return tuple(out)


def grid(rows: Sequence[ManifestRow], cards: Cards) -> tuple[GridCell, ...]:
    """Full-spec arm, models under test: Gate% and final pass per (scaffold, backbone)."""
    groups: dict[tuple[str, str], list[ManifestRow]] = defaultdict(list)
    for r in _scored(rows):
        card = cards(r.solver)
        if r.arm == "full-spec" and card.role == "model":
            groups[(card.scaffold or r.solver, card.backbone or "?")].append(r)
    return tuple(
        GridCell(
            scaffold=scaffold,
            backbone=backbone,
            cells=len(pop),
            gate=row_mean(pop, lambda s: s.gate),
            final=row_rate(pop, lambda s: s.final_pass),
        )
        for (scaffold, backbone), pop in sorted(groups.items())
    )


def cost(
    rows: Sequence[ManifestRow], cards: Cards, superseded: Sequence[ManifestRow] = ()
) -> tuple[CostRow, ...]:
    """Tokens and money charged per solver, over every row whatever its status, and over
    the rows a resumed sweep superseded: their attempts were charged too."""
    groups: dict[str, list[ManifestRow]] = defaultdict(list)
    earlier: dict[str, list[ManifestRow]] = defaultdict(list)
    for r in rows:
        groups[r.solver].append(r)
    for r in superseded:
        earlier[r.solver].append(r)
    return tuple(
        CostRow(
            solver=s,
            role=cards(s).role,
            cells=len(groups[s]),
            tokens=sum(row_tokens(r) for r in [*groups[s], *earlier[s]]),
            cost_usd=sum(row_cost(r) for r in [*groups[s], *earlier[s]]),
            superseded_usd=sum(row_cost(r) for r in earlier[s]),
            estimated=sum(r.spend.estimated_requests for r in [*groups[s], *earlier[s]]),
            overshoot_usd=sum(r.spend.overshoot_usd for r in [*groups[s], *earlier[s]]),
            overshoot_cells=sum(r.spend.overshoot_usd > 0 for r in groups[s]),
            run_s=sum(r.run_s for r in groups[s]),
            baseline_wait_s=sum(r.baseline_wait_s for r in groups[s]),
        )
        for s in sorted(groups.keys() | earlier.keys())
    )
