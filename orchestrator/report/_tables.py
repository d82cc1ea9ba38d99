"""The report's tables as plain strings, shared by the Markdown and HTML renderers."""

from __future__ import annotations

import math

import msgspec

from ._model import Mean, Rate, Report, ScoreTable


class Table(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    title: str
    note: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


def fmt_rate(r: Rate) -> str:
    if r.n == 0:
        return "—"
    return f"{100 * r.value:.1f}% [{100 * r.lo:.1f}, {100 * r.hi:.1f}] ({r.k}/{r.n})"


def fmt_mean(m: Mean, *, percent: bool = True) -> str:
    if m.n == 0 or math.isnan(m.value):
        return "—"
    s = 100.0 if percent else 1.0
    digits = 1 if percent else 3
    return f"{s * m.value:.{digits}f} [{s * m.lo:.{digits}f}, {s * m.hi:.{digits}f}]"


def scores_table(t: ScoreTable, id: str) -> Table:
    return Table(
        id=id,
        title=f"Scores per solver ({t.title})",
        note="Task% with Wilson 95% CI; Gate%, Stage%, WCS means with task-clustered "
        "bootstrap 95% CI. Other failures (llm_error, budget, cancelled) keep the scores "
        "they have, zero when unscored.",
        headers=(
            "solver",
            "arm",
            "cells",
            "infra",
            "Task%",
            "Gate%",
            "Stage%",
            "WCS",
            *(f"Gate% {c}" for c in t.capabilities),
        ),
        rows=tuple(
            (
                r.solver,
                r.arm,
                str(r.cells),
                str(r.infra),
                fmt_rate(r.task),
                fmt_mean(r.gate),
                fmt_mean(r.stage),
                fmt_mean(r.wcs, percent=False),
                *(fmt_mean(r.capability_gate[c]) for c in t.capabilities),
            )
            for r in t.rows
        ),
    )


def tables(rep: Report) -> tuple[Table, ...]:
    out = [scores_table(rep.scores, "scores"), scores_table(rep.scores_infra_zero, "scores-zero")]
    out.append(
        Table(
            id="continuity",
            title="Completion vs continuity",
            note="Complete-but-not-cleared: among rows passing every completion gate, the share "
            "failing a conservative (gates 5-18) / broad (adds visual_regression) continuity gate.",
            headers=("solver", "arm", "conservative", "broad"),
            rows=tuple(
                (c.solver, c.arm, fmt_rate(c.conservative), fmt_rate(c.broad))
                for c in rep.continuity
            ),
        )
    )
    out.append(
        Table(
            id="regressions",
            title=f"Regressions ({rep.regression_arm} arm)",
            note="Protected flip among completing runs; baseline, union, overlap and "
            "caught-and-still-failing among covered completing runs; flipped-but-clean among "
            "completing runs. Wilson 95% CI.",
            headers=(
                "solver",
                "protected flip",
                "baseline",
                "union",
                "overlap",
                "caught & still failing",
                "flipped but clean",
            ),
            rows=tuple(
                (
                    r.solver,
                    *(
                        fmt_rate(x)
                        for x in (
                            r.flip,
                            r.baseline,
                            r.union,
                            r.overlap,
                            r.caught_failing,
                            r.flipped_clean,
                        )
                    ),
                )
                for r in rep.regressions
            ),
        )
    )
    out.append(
        Table(
            id="regression-gates",
            title="Gates each regression channel rests on",
            note="Completing runs; flips counted as events and as runs, baseline as runs.",
            headers=("gate", "flips", "runs with a flip", "runs with a baseline regression"),
            rows=tuple(
                (g.gate, str(g.flips), str(g.flip_runs), str(g.baseline_runs))
                for g in rep.gate_counts
            ),
        )
    )
    if rep.paired:
        out.append(
            Table(
                id="paired",
                title="Staged vs full-spec on the same packages",
                note="Paired by (task, solver), repeats averaged; deltas are staged minus "
                "full-spec with task-clustered bootstrap 95% CI.",
                headers=(
                    "solver",
                    "pairs",
                    "Gate% staged",
                    "Gate% full-spec",
                    "ΔGate (pt)",
                    "Task% staged",
                    "Task% full-spec",
                    "ΔWCS",
                ),
                rows=tuple(
                    (
                        p.solver,
                        str(p.pairs),
                        fmt_mean(p.gate_staged),
                        fmt_mean(p.gate_full),
                        fmt_mean(p.gate_delta),
                        fmt_rate(p.task_staged),
                        fmt_rate(p.task_full),
                        fmt_mean(p.wcs_delta, percent=False),
                    )
                    for p in rep.paired
                ),
            )
        )
    if rep.correlations:
        out.append(
            Table(
                id="correlations",
                title="Rank correlations across solvers",
                note="Spearman's rho (average ranks for ties); two-sided permutation p-value.",
                headers=("x", "y", "solvers", "rho", "p"),
                rows=tuple(
                    (c.x, c.y, str(c.n), f"{c.rho:+.3f}", f"{c.p:.3f}") for c in rep.correlations
                ),
            )
        )
    return tuple(out)


def load_note(rep: Report) -> str:
    s = rep.load
    return (
        f"{s.kept} current rows of {s.lines} read; left out: {s.stale_hash} stale "
        f"(contract hash changed), {s.missing_task} with the task gone or invalid, "
        f"{s.superseded} superseded by a later row of the same cell, {s.torn} torn last line."
    )
