"""Tables for the paper's further statistics and what `scope` / `serve` measured
(`_paper.py`)."""

from __future__ import annotations

import math

from ._model import RankRow, Report
from ._sizes import BASELINE, quartile_rho
from ._tables_fmt import Table, fmt_rate
from ._tables_fmt import fmt_num as _num
from ._trajectory import LONG, long_median


def _ranks(rows: tuple[RankRow, ...]) -> tuple[tuple[str, ...], ...]:
    return tuple((r.x, r.y, str(r.n), _num(r.rho, "+.3f"), _num(r.p, ".3f")) for r in rows)


def paper_tables(rep: Report) -> list[Table]:
    return [
        _statistics(rep),
        _common(rep),
        _plans(rep),
        _turns(rep),
        _effects(rep),
        _coherence(rep),
        _scaffold_study(rep),
        _gate_measures(rep),
    ]


def _statistics(rep: Report) -> Table:
    return Table(
        id="statistics",
        title=f"Further statistics of the paper ({rep.regression_arm} arm)",
        note=f"Pooled over the models under test, {rep.regression_arm} arm; each rate with "
        "its population.",
        terms=("completing", "covered", "classes", "intervals", "roles"),
        headers=("statistic", "population", "rate"),
        rows=tuple((s.label, s.population, fmt_rate(s.rate)) for s in rep.statistics),
    )


def _common(rep: Report) -> Table:
    return Table(
        id="common",
        title="Protected flips per model on commonly completed tasks",
        note="The pooled flip rate is descriptive: task sets differ and a model clearing "
        "more stages has more checkpoints to flip at (paper Appendix E). Per model, "
        "only the Change tasks every model under test completed at least once."
        + (f" Population: {rep.common[0].population}." if rep.common else ""),
        terms=("completing", "channels", "intervals"),
        headers=("solver", "protected flip"),
        rows=tuple((s.solver, fmt_rate(s.rate)) for s in rep.common),
    )


def _plans(rep: Report) -> Table:
    return Table(
        id="plans",
        title="Plan lengths per regime",
        note="Units per task, read off the rows that delivered a result; greenfield twins "
        "apart (paper Table 12: Build plans are the longer ones).",
        terms=("regimes", "size"),
        headers=("regime", "tasks", "mean units", "median", "shortest", "longest"),
        rows=tuple(
            (
                p.group,
                str(p.tasks),
                f"{p.mean:.2f}",
                f"{p.median:g}",
                str(p.shortest),
                str(p.longest),
            )
            for p in rep.plans
        ),
    )


def _turns(rep: Report) -> Table:
    return Table(
        id="turns",
        title="Turns vs units cleared on Build plans",
        note="Staged runs of the models under test on Build tasks (twins apart), by the "
        "plan's number of units; Spearman's rho between a run's turns and its units "
        "cleared, two-sided permutation p (paper Figure 9: negative in every bucket of "
        f"at least {LONG} units, median -0.91; not causal: a failed unit burns its whole "
        f"turn budget). Median rho over the buckets of at least {LONG} units: "
        f"{_num(long_median(rep.turns), '+.3f')}.",
        terms=("rho", "size"),
        headers=("units", "runs", "rho", "p"),
        rows=tuple(
            (str(t.units), str(t.runs), _num(t.rho, "+.3f"), _num(t.p, ".3f")) for t in rep.turns
        ),
    )


def _coherence(rep: Report) -> Table:
    return Table(
        id="coherence",
        title="Rank coherence across capability slices",
        note=f"The models under test ranked by Gate% within each capability "
        f"({rep.regression_arm} arm, greenfield twins left out); Spearman's rho over "
        "the models in both slices (at least 3), two-sided permutation p (paper "
        "Figure 10).",
        terms=("rho", "gate"),
        headers=("slice", "slice", "models", "rho", "p"),
        rows=_ranks(rep.coherence),
    )


def _scaffold_study(rep: Report) -> Table:
    return Table(
        id="scaffold-study",
        title="Scaffold study (full-spec arm)",
        note="From the scaffold x backbone grid, models under test; spreads in points. "
        "Scaffold-rank "
        "rho (paper: 0.80): "
        + (
            "; ".join(
                f"{r.x} vs {r.y}: {_num(r.rho, '+.3f')} over {r.n} scaffolds (p {_num(r.p, '.3f')})"
                for r in rep.scaffold_rank
            )
            or "fewer than 3 scaffolds driven by two backbones"
        )
        + ".",
        terms=("scaffold", "rho"),
        headers=("held fixed", "value", "varied", "spread (pt)", "lowest", "highest"),
        rows=tuple(
            (s.held, s.value, str(s.varied), f"{s.spread:.2f}", s.low, s.high) for s in rep.spreads
        ),
    )


def _gate_measures(rep: Report) -> Table:
    return Table(
        id="gate-measures",
        title="What scope, serve and build measured",
        note="Gates that pass by construction or do not apply on some populations: none is a "
        "free pass without this account.",
        terms=("gate", "gate19"),
        headers=("gate", "population", "rows", "pass", "fail", "n/a", "what it measured"),
        rows=tuple(
            (
                g.gate,
                g.population,
                str(g.rows),
                str(g.passed),
                str(g.failed),
                str(g.not_applicable),
                g.note,
            )
            for g in rep.gate_measures
        ),
    )


def _effects(rep: Report) -> Table:
    n, rho = quartile_rho(rep.effects)
    return Table(
        id="effects",
        title="Categories controlled for task size",
        note=f"Models under test, {rep.regression_arm} arm, every regime (greenfield twins "
        "left out). Least squares of WCS on the capability categories "
        f"('{BASELINE}' the baseline), task size and the model: a category's coefficient "
        f"is its WCS difference from '{BASELINE}' at equal size and model, 'size' the "
        "slope per unit; 'not separable': the population ties the term to the others "
        "(every task of a category one size), so no split of their effect is measured. "
        "Smallest quartile: tasks of size at most the 25th percentile; "
        "Spearman's rho between the categories' orderings on all tasks and on those: "
        f"{_num(rho, '+.3f')} over {n} categories (paper Figure 14: the ordering holds).",
        terms=("size", "wcs", "rho", "intervals"),
        headers=("term", "rows", "coefficient", "mean WCS", "mean WCS, smallest quartile"),
        rows=tuple(
            (
                e.term,
                str(e.rows),
                "0 (baseline)"
                if e.term == BASELINE
                else "not separable"
                if math.isnan(e.coef)
                else f"{e.coef:+.3f} [{e.lo:+.3f}, {e.hi:+.3f}]",
                _num(e.mean_all, ".3f"),
                _num(e.mean_small, ".3f"),
            )
            for e in rep.effects
        ),
    )
