"""Per-solver tables, completion vs continuity, staged vs full-spec pairs and correlations.

Rows are grouped by (solver, arm): a staged run and a full-spec run of one solver answer
different questions and are never pooled. Populations follow the paper (§3.3, §5,
Appendix E): `cancelled` rows (a user stop) are no result and are only counted; controls
(`reference`, `negative`, `noop`, `thrash`) and scripted providers (`fake`) are labelled
and kept out of pooled "all" rows and rank correlations; completion vs continuity and
both regression channels are read on Change tasks, Build apart.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence

import msgspec

from ..records import ManifestRow, cell_dir_name
from ._analyses import Cards, ablations, breakdown, cost, grid, max_repeats, variability
from ._load import LoadedRun
from ._measures import DELIVERING, completing, mean, no_result, rate, row_flips, row_mean, row_rate
from ._model import (
    ARM_ORDER,
    CellEntry,
    ContinuityRow,
    Correlation,
    Header,
    PairedRow,
    Rate,
    RegressionRow,
    Report,
    ScoreTable,
    SolverScores,
)
from ._paper import (
    baseline_all_covered,
    further_statistics,
    gate19,
    gate_measures,
    per_model_common,
)
from ._rankings import coherence, scaffold_rank, spreads
from ._regressions import gate_counts, regression_rows
from ._sizes import effects
from ._stats import permutation_p, spearman
from ._trajectory import plan_lengths, turns_vs_stages
from ._twins import TWIN, twin_rows


def group(rows: Sequence[ManifestRow]) -> dict[tuple[str, str], list[ManifestRow]]:
    out: dict[tuple[str, str], list[ManifestRow]] = defaultdict(list)
    for r in rows:
        out[(r.solver, r.arm)].append(r)
    return dict(sorted(out.items(), key=lambda kv: (ARM_ORDER.index(kv[0][1]), kv[0][0])))


def score_table(rows: Sequence[ManifestRow], cards: Cards, *, infra_as_zero: bool) -> ScoreTable:
    caps = tuple(sorted({r.labels.capability for r in rows}))
    repeated = max_repeats(rows) > 1
    out = []
    for (solver, arm), members in group(rows).items():
        infra = sum(r.status == "infra_error" for r in members)
        members = [r for r in members if r.status != "harness_error"]  # our bug, never theirs
        pop = members if infra_as_zero else [r for r in members if r.status != "infra_error"]
        whole = [1.0 if r.scores and r.scores.whole_task else 0.0 for r in pop]
        out.append(
            SolverScores(
                solver=solver,
                arm=arm,
                role=cards(solver).role,
                cells=len(pop),
                infra=infra,
                task=row_rate(pop, lambda s: s.whole_task),
                task_clustered=mean(whole, [r.task for r in pop]) if repeated else None,
                gate=row_mean(pop, lambda s: s.gate),
                # Stage% needs checkpoints: undefined for full-spec (the paper's Table 2).
                stage=row_mean(pop if arm == "staged" else [], lambda s: s.stage),
                wcs=row_mean(pop, lambda s: s.wcs),
                capability_gate={
                    c: row_mean([r for r in pop if r.labels.capability == c], lambda s: s.gate)
                    for c in caps
                },
                gate19=mean([gate19(r) for r in pop], [r.task for r in pop]),
            )
        )
    title = "infra_error counted as zero" if infra_as_zero else "infra_error excluded"
    return ScoreTable(title=title, rows=tuple(out), capabilities=caps)


def continuity_rows(rows: Sequence[ManifestRow], cards: Cards) -> tuple[ContinuityRow, ...]:
    """Complete-but-not-cleared among completing rows (every completion gate passes)."""

    def one(solver: str, arm: str, members: Sequence[ManifestRow]) -> ContinuityRow:
        done = [r.scores for r in members if completing(r) and r.scores is not None]
        return ContinuityRow(
            solver=solver,
            arm=arm,
            conservative=rate(s.complete_not_cleared for s in done),
            broad=rate(s.complete_not_cleared_broad for s in done),
        )

    out = [one(s, a, m) for (s, a), m in group(rows).items()]
    for arm in ARM_ORDER:
        members = [r for r in rows if r.arm == arm and cards(r.solver).role == "model"]
        if members:
            out.append(one("all", arm, members))
    return tuple(out)


def paired_rows(rows: Sequence[ManifestRow]) -> tuple[PairedRow, ...]:
    """Staged vs full-spec on the same (task, solver), on the measures both arms share
    (Gate%, final gate pass); repeats are averaged within an arm."""
    cells: dict[tuple[str, str], dict[str, list[ManifestRow]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for r in rows:
        if r.status not in ("infra_error", "harness_error"):
            cells[(r.task, r.solver)][r.arm].append(r)
    by_solver: dict[str, list[tuple[str, list[ManifestRow], list[ManifestRow]]]] = defaultdict(list)
    for (task, solver), arms in sorted(cells.items()):
        if arms.get("staged") and arms.get("full-spec"):
            by_solver[solver].append((task, arms["staged"], arms["full-spec"]))
    out = []
    for solver, pairs in sorted(by_solver.items()):
        tasks = [t for t, _, _ in pairs]

        def avg(rs: list[ManifestRow]) -> float:
            return sum(r.scores.gate if r.scores else 0.0 for r in rs) / len(rs)

        g_s = [avg(s) for _, s, _ in pairs]
        g_f = [avg(f) for _, _, f in pairs]
        out.append(
            PairedRow(
                solver=solver,
                pairs=len(pairs),
                gate_staged=mean(g_s, tasks),
                gate_full=mean(g_f, tasks),
                gate_delta=mean([a - b for a, b in zip(g_s, g_f, strict=True)], tasks),
                final_staged=row_rate([r for _, s, _ in pairs for r in s], lambda s: s.final_pass),
                final_full=row_rate([r for _, _, f in pairs for r in f], lambda s: s.final_pass),
            )
        )
    return tuple(out)


def correlations(
    table: ScoreTable,
    regressions: Sequence[RegressionRow],
    arm: str,
    baseline_all: Mapping[str, Rate] | None = None,
) -> tuple[Correlation, ...]:
    """Across the models under test (>= 3; no control, no scripted provider): Gate% vs
    protected-flip rate, mean WCS vs baseline regression rate (covered completing runs),
    and mean WCS vs the baseline rate over every covered run (`baseline_all`, solver ->
    rate; the paper's rho = -0.88)."""
    scores = {r.solver: r for r in table.rows if r.arm == arm and r.role == "model"}
    regs = {r.solver: r for r in regressions if r.solver in scores}
    pairs: list[tuple[str, str, dict[str, float], dict[str, float]]] = []
    for x, y, xs, ys in (
        ("Gate%", "protected-flip rate", "gate", "flip"),
        ("mean WCS", "baseline regression rate", "wcs", "baseline"),
    ):
        pairs.append(
            (
                x,
                y,
                {s: getattr(r, xs).value for s, r in scores.items() if getattr(r, xs).n > 0},
                {s: getattr(r, ys).value for s, r in regs.items() if getattr(r, ys).n > 0},
            )
        )
    if baseline_all is not None:
        pairs.append(
            (
                "mean WCS",
                "baseline regression rate, all covered runs",
                {s: r.wcs.value for s, r in scores.items() if r.wcs.n > 0},
                {s: r.value for s, r in baseline_all.items() if s in scores and r.n > 0},
            )
        )
    out = []
    for x, y, xv, yv in pairs:
        shared = sorted(set(xv) & set(yv))
        if len(shared) >= 3:
            a, b = [xv[s] for s in shared], [yv[s] for s in shared]
            out.append(
                Correlation(x=x, y=y, n=len(shared), rho=spearman(a, b), p=permutation_p(a, b))
            )
    return tuple(out)


def cell_entries(rows: Sequence[ManifestRow]) -> tuple[CellEntry, ...]:
    return tuple(
        CellEntry(
            cell=r.cell,
            dir=cell_dir_name(r.cell),
            task=r.task,
            solver=r.solver,
            arm=r.arm,
            status=r.status,
            gate=r.scores.gate if r.scores else None,
            wcs=r.scores.wcs if r.scores else None,
            whole_task=r.scores.whole_task if r.scores else None,
            breaks=len(row_flips(r)),
        )
        for r in sorted(rows, key=lambda r: r.cell)
    )


def header(
    all_rows: Sequence[ManifestRow], cards: Cards, unadmitted: tuple[str, ...] = ()
) -> Header:
    names = sorted({r.solver for r in all_rows})
    return Header(
        statuses=dict(sorted(Counter(r.status for r in all_rows).items())),
        cancelled=sum(no_result(r) for r in all_rows),
        undelivered=dict(
            sorted(
                Counter(
                    r.status for r in all_rows if no_result(r) and r.status in DELIVERING
                ).items()
            )
        ),
        controls=tuple(n for n in names if cards(n).role == "control"),
        scripted=tuple(n for n in names if cards(n).role == "scripted"),
        repeats=max_repeats(all_rows),
        env_drift=sum(
            any(why.startswith("environment drift") for why in r.result.not_applicable.values())
            for r in all_rows
            if r.result is not None
        ),
        unadmitted=unadmitted,
    )


class _Populations(msgspec.Struct, frozen=True, kw_only=True):
    """The populations the report's tables read (see the module docstring)."""

    run: LoadedRun
    rows: list[ManifestRow]  # results: rows that are no result are never scored
    reg_arm: str  # the regression arm: staged if the run has it
    change: list[ManifestRow]  # results on Change tasks
    reg_rows: list[ManifestRow]  # results on Change tasks in the regression arm
    # Greenfield twins are their own study: never pooled into Build or its category.
    untwinned: list[ManifestRow]

    def model(self, solver: str) -> bool:
        return self.run.card(solver).role == "model"

    def regime(self, r: ManifestRow) -> str:
        return TWIN if r.task in self.run.twins else r.labels.regime


def _populations(run: LoadedRun) -> _Populations:
    rows = [r for r in run.rows if not no_result(r)]
    arms = {r.arm for r in rows}
    reg_arm = "staged" if "staged" in arms or not arms else "full-spec"
    change = [r for r in rows if r.labels.regime == "change"]
    return _Populations(
        run=run,
        rows=rows,
        reg_arm=reg_arm,
        change=change,
        reg_rows=[r for r in change if r.arm == reg_arm],
        untwinned=[r for r in rows if r.task not in run.twins],
    )


def aggregate(run: LoadedRun, run_dir: str) -> Report:
    cards: Cards = run.card
    everything = run.rows
    p = _populations(run)
    rows, reg_arm, reg_rows = p.rows, p.reg_arm, p.reg_rows
    regs = regression_rows(reg_rows, p.model)
    table = score_table(rows, cards, infra_as_zero=False)
    the_grid = grid(rows, cards)
    return Report(
        run_dir=run_dir,
        load=run.stats,
        header=header(everything, cards, run.unadmitted),
        solvers=tuple(sorted({r.solver for r in rows})),
        scores=table,
        scores_infra_zero=score_table(rows, cards, infra_as_zero=True),
        continuity=continuity_rows(p.change, cards),
        continuity_build=continuity_rows(
            [r for r in p.untwinned if r.labels.regime == "build"], cards
        ),
        regressions=regs,
        regression_arm=reg_arm,
        gate_counts=gate_counts([r for r in reg_rows if completing(r) and p.model(r.solver)]),
        paired=paired_rows(rows),
        twins=twin_rows(rows, run.twins, p.model),
        correlations=correlations(table, regs, reg_arm, baseline_all_covered(reg_rows)),
        cost=cost(everything, cards, run.superseded),
        # A greenfield twin is a Build task made to match a Change source: its own group,
        # never pooled into Build (the paper's Build panel and its twin study are apart).
        regimes=breakdown(rows, p.regime, cards),
        facets=breakdown(rows, lambda r: r.labels.facet, cards),
        stacks=breakdown(rows, lambda r: r.labels.stack, cards),
        variability=variability(rows),
        ablations=ablations(rows, cards),
        grid=the_grid,
        statistics=further_statistics(rows, reg_arm, cards),
        common=per_model_common(rows, reg_arm, cards),
        gate_measures=gate_measures(rows, cards),
        plans=plan_lengths(rows, p.regime),
        turns=turns_vs_stages(rows, set(run.twins), cards),
        coherence=coherence(p.untwinned, reg_arm, cards),
        spreads=spreads(the_grid),
        scaffold_rank=scaffold_rank(the_grid),
        effects=effects(p.untwinned, reg_arm, cards),
        cells=cell_entries(everything),
    )
