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
from collections.abc import Sequence

from ..records import UNSCORED, ManifestRow, cell_dir_name
from ._analyses import Cards, ablations, breakdown, cost, grid, max_repeats, variability
from ._load import LoadedRun
from ._measures import completing, mean, rate, row_flips, row_mean, row_rate
from ._model import (
    ARM_ORDER,
    CellEntry,
    ContinuityRow,
    Correlation,
    Header,
    PairedRow,
    RegressionRow,
    Report,
    ScoreTable,
    SolverScores,
)
from ._regressions import gate_counts, regression_rows
from ._stats import permutation_p, spearman
from ._twins import twin_rows


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
    table: ScoreTable, regressions: Sequence[RegressionRow], arm: str
) -> tuple[Correlation, ...]:
    """Across the models under test (>= 3; no control, no scripted provider): Gate% vs
    protected-flip rate, and mean WCS vs baseline regression rate."""
    scores = {r.solver: r for r in table.rows if r.arm == arm and r.role == "model"}
    regs = {r.solver: r for r in regressions if r.solver in scores}
    out = []
    for x, y, xs, ys in (
        ("Gate%", "protected-flip rate", "gate", "flip"),
        ("mean WCS", "baseline regression rate", "wcs", "baseline"),
    ):
        pts = [
            (getattr(scores[s], xs).value, getattr(regs[s], ys).value)
            for s in sorted(regs)
            if getattr(regs[s], ys).n > 0 and getattr(scores[s], xs).n > 0
        ]
        if len(pts) >= 3:
            a, b = [p[0] for p in pts], [p[1] for p in pts]
            out.append(Correlation(x=x, y=y, n=len(pts), rho=spearman(a, b), p=permutation_p(a, b)))
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


def header(all_rows: Sequence[ManifestRow], cards: Cards) -> Header:
    names = sorted({r.solver for r in all_rows})
    return Header(
        statuses=dict(sorted(Counter(r.status for r in all_rows).items())),
        cancelled=sum(r.status in UNSCORED for r in all_rows),
        controls=tuple(n for n in names if cards(n).role == "control"),
        scripted=tuple(n for n in names if cards(n).role == "scripted"),
        repeats=max_repeats(all_rows),
        env_drift=sum(
            any(why.startswith("environment drift") for why in r.result.not_applicable.values())
            for r in all_rows
            if r.result is not None
        ),
    )


def aggregate(run: LoadedRun, run_dir: str) -> Report:
    cards: Cards = run.card
    everything = run.rows
    rows = [r for r in everything if r.status not in UNSCORED]  # no result: not scored
    arms = {r.arm for r in rows}
    reg_arm = "staged" if "staged" in arms or not arms else "full-spec"
    change = [r for r in rows if r.labels.regime == "change"]
    reg_rows = [r for r in change if r.arm == reg_arm]
    regs = regression_rows(reg_rows, lambda s: cards(s).role == "model")
    table = score_table(rows, cards, infra_as_zero=False)
    return Report(
        run_dir=run_dir,
        load=run.stats,
        header=header(everything, cards),
        solvers=tuple(sorted({r.solver for r in rows})),
        scores=table,
        scores_infra_zero=score_table(rows, cards, infra_as_zero=True),
        continuity=continuity_rows(change, cards),
        continuity_build=continuity_rows([r for r in rows if r.labels.regime == "build"], cards),
        regressions=regs,
        regression_arm=reg_arm,
        gate_counts=gate_counts([r for r in reg_rows if completing(r)]),
        paired=paired_rows(rows),
        twins=twin_rows(rows, run.twins),
        correlations=correlations(table, regs, reg_arm),
        cost=cost(everything, cards, run.superseded),
        regimes=breakdown(rows, lambda r: r.labels.regime),
        facets=breakdown(rows, lambda r: r.labels.facet),
        stacks=breakdown(rows, lambda r: r.labels.stack),
        variability=variability(rows),
        ablations=ablations(rows, cards),
        grid=grid(rows, cards),
        cells=cell_entries(everything),
    )
