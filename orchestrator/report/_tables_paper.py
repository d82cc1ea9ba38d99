"""Tables for the paper's further statistics and what `scope` / `serve` measured
(`_paper.py`)."""

from __future__ import annotations

from ._model import Report
from ._tables_fmt import Table, fmt_rate


def paper_tables(rep: Report) -> list[Table]:
    return [
        Table(
            id="statistics",
            title=f"Further statistics of the paper ({rep.regression_arm} arm)",
            note="Pooled over the models under test (no control, no scripted solver); each "
            "rate with its population and a Wilson 95% CI. Covered = the untouched R0 "
            "served and was verified. Class (a) and (b) read the conservative gates (5-18): "
            "(a) one that R0 passed fails at the end, (b) one fails that R0 did not pass.",
            headers=("statistic", "population", "rate"),
            rows=tuple((s.label, s.population, fmt_rate(s.rate)) for s in rep.statistics),
        ),
        Table(
            id="common",
            title="Protected flips per model on commonly completed tasks",
            note="The pooled flip rate is descriptive: task sets differ and a model clearing "
            "more stages has more checkpoints to flip at (paper Appendix E). Per model, "
            "only the Change tasks every model under test completed at least once."
            + (f" Population: {rep.common[0].population}." if rep.common else ""),
            headers=("solver", "protected flip"),
            rows=tuple((s.solver, fmt_rate(s.rate)) for s in rep.common),
        ),
        Table(
            id="gate-measures",
            title="What scope and serve measured",
            note="Two gates that pass almost by construction on some populations: neither "
            "is a free pass on Gate% or Gate%/19 without this account.",
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
        ),
    ]
