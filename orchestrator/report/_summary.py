"""The top of the report: a leaderboard of the models under test and three sentences on
what the run shows, read off the numbers the tables below print (nothing is computed
twice: every cell is a score table's or the cost table's, so the top cannot disagree
with the body).

The leaderboard reads the regression arm (staged when the run has it, as the paper's
Table 1) and ranks the models under test by mean WCS. A run with no model under test
(the default job: controls and scripted solvers only) ranks every solver of that arm,
and says that it does.
"""

from __future__ import annotations

import math

import msgspec

from ._model import ContinuityRow, Report, SolverScores
from ._tables_fmt import Table, fmt_mean, fmt_rate

# The continuity-gap plot (`_build`) is shown at the top, not again under Plots.
CONTINUITY_PLOT = "plots/continuity.png"


class Top(msgspec.Struct, frozen=True, kw_only=True):
    board: Table
    sentences: tuple[str, ...]  # who leads, by how much, where the continuity gap is largest


def _ranked(rep: Report) -> tuple[list[SolverScores], bool]:
    """The leaderboard's rows, best WCS first, and whether they are models under test."""
    arm = [r for r in rep.scores.rows if r.arm == rep.regression_arm]
    models = [r for r in arm if r.role == "model"]
    rows = models or arm

    def key(r: SolverScores) -> tuple[float, str]:
        return (-r.wcs.value if r.wcs.n else math.inf, r.solver)

    return sorted(rows, key=key), bool(models)


def _task(r: SolverScores) -> str:
    if r.task_clustered is None:
        return fmt_rate(r.task)
    return f"{fmt_mean(r.task_clustered)} ({r.task.k}/{r.task.n}, clustered)"


def _board(rep: Report, rows: list[SolverScores], models: bool) -> Table:
    cost = {c.solver: c for c in rep.cost}

    def usd(solver: str) -> tuple[str, str]:
        c = cost.get(solver)
        if c is None or not c.cells:
            return ("—", "—")
        return (f"{c.cost_usd:.4f}", f"{c.cost_usd / c.cells:.4f}")

    return Table(
        id="leaderboard",
        title="Leaderboard",
        note=(
            f"Models under test, {rep.regression_arm} arm, by mean WCS; infra_error rows "
            "excluded. USD: everything the solver was charged, both arms."
            if models
            else f"No model under test in this run: every solver of the {rep.regression_arm} "
            "arm, by mean WCS (controls and scripted solvers, for inspection only). USD: "
            "everything the solver was charged, both arms."
        ),
        terms=("wcs", "task", "gate", "intervals", "cost", "roles"),
        headers=(
            "#",
            "model" if models else "solver",
            *(() if models else ("role",)),
            "cells",
            "WCS",
            "Task%",
            "Gate%",
            "USD",
            "USD per cell",
        ),
        rows=tuple(
            (
                str(i),
                r.solver,
                *(() if models else (r.role,)),
                str(r.cells),
                fmt_mean(r.wcs, percent=False),
                _task(r),
                fmt_mean(r.gate),
                *usd(r.solver),
            )
            for i, r in enumerate(rows, 1)
        ),
    )


def _lead(rows: list[SolverScores], models: bool, arm: str) -> str:
    if not rows:
        return f"No row of the {arm} arm delivered a result, so nothing is ranked."
    a = rows[0]
    who = f"the {len(rows)} models under test" if models else f"the {len(rows)} solvers"
    if models and len(rows) == 1:
        who = "the run as its only model under test"
    if not models:
        who += " (no model under test: controls and scripted solvers only)"
    return (
        f"{a.solver} leads {who} on the {arm} arm with WCS {a.wcs.value:.3f}, "
        f"Task% {100 * a.task.value:.1f} and Gate% {100 * a.gate.value:.1f}."
        if a.wcs.n
        else f"No solver of the {arm} arm has a score to rank."
    )


def _margin(rows: list[SolverScores]) -> str:
    if len(rows) < 2 or not rows[1].wcs.n:
        return "There is no runner-up to measure the lead against."
    a, b = rows[0], rows[1]
    gap = a.wcs.value - b.wcs.value
    head = f"Its lead over {b.solver} (WCS {b.wcs.value:.3f}) is {gap:.3f} WCS"
    if a.wcs.tasks < 2 or b.wcs.tasks < 2:
        return head + "; with one task there is no interval to tell whether it holds."
    if a.wcs.lo > b.wcs.hi:
        return head + ", and their 95% intervals do not overlap."
    return head + ", within their overlapping 95% intervals: this run does not separate them."


def _gap(rep: Report, rows: list[SolverScores], models: bool) -> str:
    names = {r.solver for r in rows}
    cont = [
        c
        for c in rep.continuity
        if c.arm == rep.regression_arm and c.solver in names and c.conservative.n
    ]
    if not cont:
        return "No completing Change run among them, so there is no continuity gap to show."

    def key(c: ContinuityRow) -> tuple[float, str]:
        return (-c.conservative.value, c.solver)

    c = min(cont, key=key)
    pooled = [
        p.conservative
        for p in rep.continuity
        if p.solver == "all" and p.arm == rep.regression_arm and p.conservative.n
    ]
    return (
        f"The continuity gap is largest for {c.solver}: {fmt_rate(c.conservative)} of its "
        "completing Change runs fail a conservative continuity gate"
        + (f" (all models under test: {fmt_rate(pooled[0])})" if models and pooled else "")
        + "."
    )


def top(rep: Report) -> Top:
    rows, models = _ranked(rep)
    return Top(
        board=_board(rep, rows, models),
        sentences=(
            _lead(rows, models, rep.regression_arm),
            _margin(rows),
            _gap(rep, rows, models),
        ),
    )
