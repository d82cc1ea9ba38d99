"""The report's tables as plain strings, shared by the Markdown and HTML renderers."""

from __future__ import annotations

import math

from ._model import ContinuityRow, Report, ScoreTable
from ._tables_analyses import analysis_tables
from ._tables_fmt import Table as Table
from ._tables_fmt import fmt_mean as fmt_mean
from ._tables_fmt import fmt_num
from ._tables_fmt import fmt_rate as fmt_rate
from ._tables_paper import paper_tables


def scores_table(t: ScoreTable, id: str) -> Table:
    return Table(
        id=id,
        title=f"Scores per solver ({t.title})",
        note="Every solver and arm; controls and scripted solvers labelled in the role "
        "column; Stage% — for full-spec.",
        terms=("task", "gate", "gate19", "stage", "wcs", "intervals", "results", "infra", "roles"),
        headers=(
            "solver",
            "arm",
            "role",
            "cells",
            "infra",
            "Task%",
            "Gate%",
            "Gate%/19",
            "Stage%",
            "WCS",
            *(f"Gate% {c}" for c in t.capabilities),
        ),
        rows=tuple(
            (
                r.solver,
                r.arm,
                r.role,
                str(r.cells),
                str(r.infra),
                fmt_rate(r.task)
                if r.task_clustered is None
                else f"{fmt_mean(r.task_clustered)} ({r.task.k}/{r.task.n}, clustered)",
                fmt_mean(r.gate),
                "—" if r.gate19 is None else fmt_mean(r.gate19),
                fmt_mean(r.stage),
                fmt_mean(r.wcs, percent=False),
                *(fmt_mean(r.capability_gate[c]) for c in t.capabilities),
            )
            for r in t.rows
        ),
    )


def tables(rep: Report) -> tuple[Table, ...]:
    out = [scores_table(rep.scores, "scores"), scores_table(rep.scores_infra_zero, "scores-zero")]
    out += [_continuity(rep), _continuity_build(rep), _regressions(rep), _regression_gates(rep)]
    if rep.paired:
        out.append(_paired(rep))
    if rep.twins:
        out.append(_twin_table(rep))
    if rep.correlations:
        out.append(_correlations(rep))
    out += paper_tables(rep)
    out += analysis_tables(rep)
    return tuple(out)


def _continuity_rows(rows: tuple[ContinuityRow, ...]) -> tuple[tuple[str, ...], ...]:
    return tuple((c.solver, c.arm, fmt_rate(c.conservative), fmt_rate(c.broad)) for c in rows)


def _continuity(rep: Report) -> Table:
    return Table(
        id="continuity",
        title="Completion vs continuity (Change tasks)",
        note="Change tasks; 'all' pools the models under test.",
        terms=("completing", "continuity", "intervals", "roles"),
        headers=("solver", "arm", "conservative", "broad"),
        rows=_continuity_rows(rep.continuity),
    )


def _continuity_build(rep: Report) -> Table:
    return Table(
        id="continuity-build",
        title="Completion vs continuity (Build tasks, reported apart)",
        note="Build tasks, reported apart; greenfield twins (`twin_of`) left out, their own study.",
        terms=("completing", "continuity", "intervals", "roles"),
        headers=("solver", "arm", "conservative", "broad"),
        rows=_continuity_rows(rep.continuity_build),
    )


def _regressions(rep: Report) -> Table:
    return Table(
        id="regressions",
        title=f"Regressions (Change tasks, {rep.regression_arm} arm)",
        note=f"Change tasks, {rep.regression_arm} arm; 'all' pools the models under test.",
        terms=("completing", "covered", "channels", "intervals", "roles"),
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


def _regression_gates(rep: Report) -> Table:
    return Table(
        id="regression-gates",
        title="Gates each regression channel rests on",
        note="Completing runs of the models under test on Change tasks (controls such as "
        "thrash and the negatives left out, as in every pooled row); flips counted as events "
        "and as runs, baseline as runs.",
        terms=("completing", "channels", "roles"),
        headers=("gate", "flips", "runs with a flip", "runs with a baseline regression"),
        rows=tuple(
            (g.gate, str(g.flips), str(g.flip_runs), str(g.baseline_runs)) for g in rep.gate_counts
        ),
    )


def _paired(rep: Report) -> Table:
    return Table(
        id="paired",
        title="Staged vs full-spec on the same packages (shared measures only)",
        note="Gate% and final gate pass only: the arms are not comparable as estimates of model "
        "quality. Paired by (task, solver); ΔGate is staged minus full-spec, task-clustered.",
        terms=("arms", "gate", "intervals"),
        headers=(
            "solver",
            "pairs",
            "Gate% staged",
            "Gate% full-spec",
            "ΔGate (pt)",
            "final pass staged",
            "final pass full-spec",
        ),
        rows=tuple(
            (
                p.solver,
                str(p.pairs),
                fmt_mean(p.gate_staged),
                fmt_mean(p.gate_full),
                fmt_mean(p.gate_delta),
                fmt_rate(p.final_staged),
                fmt_rate(p.final_full),
            )
            for p in rep.paired
        ),
    )


def _twin_table(rep: Report) -> Table:
    return Table(
        id="twins",
        title="Greenfield twins vs their Change sources",
        note="Per solver and arm; 'all' pools the paired cells of the models under test, "
        "clustered by twin.",
        terms=("twins", "wcs", "intervals", "roles"),
        headers=("solver", "arm", "pairs", "WCS source", "WCS twin", "ΔWCS (pt)", "t"),
        rows=tuple(
            (
                t.solver,
                t.arm,
                str(t.pairs),
                fmt_mean(t.wcs_source),
                fmt_mean(t.wcs_twin),
                fmt_mean(t.wcs_delta),
                "—" if math.isnan(t.t) else f"{t.t:+.2f}",
            )
            for t in rep.twins
        ),
    )


def _correlations(rep: Report) -> Table:
    return Table(
        id="correlations",
        title="Rank correlations across solvers",
        note="Across the models under test only.",
        terms=("rho", "roles"),
        headers=("x", "y", "solvers", "rho", "p"),
        # A side that is constant (no model regressed, say) has no rho: "—", not "+nan".
        rows=tuple(
            (c.x, c.y, str(c.n), fmt_num(c.rho, "+.3f"), fmt_num(c.p, ".3f"))
            for c in rep.correlations
        ),
    )


def load_note(rep: Report) -> str:
    s = rep.load
    return (
        f"{s.kept} current rows of {s.lines} read; left out: {s.stale_hash} stale "
        f"(contract hash changed), {s.missing_task} with the task gone or invalid, "
        f"{s.superseded} superseded by a later row of the same cell, {s.torn} torn last line"
        + (
            f", {len(s.unreadable)} unreadable line(s) (line {', '.join(map(str, s.unreadable))})."
            if s.unreadable
            else "."
        )
    )


def header_note(rep: Report) -> str:
    h = rep.header
    counts = ", ".join(f"{n} {s}" for s, n in h.statuses.items()) or "no rows"
    roles = []
    if h.controls:
        roles.append(f"controls (labelled, never pooled): {', '.join(h.controls)}")
    if h.scripted:
        roles.append(f"scripted providers (labelled, never pooled): {', '.join(h.scripted)}")
    return (
        f"Rows by status: {counts}. {h.cancelled} row(s) that are no result (cancelled: a "
        "user stop; outage: the provider was down past its pause bound; config_error: the "
        "provider refused the setup (no credit, no key, a rejected parameter), the "
        "operator's to fix; task_error: the "
        "task's own R0 cannot serve, or its package is broken; llm_error or budget without "
        "a final checkpoint: nothing was delivered to score"
        + (
            " — " + ", ".join(f"{n} {s}" for s, n in h.undelivered.items()) + " of them"
            if h.undelivered
            else ""
        )
        + ") are left out of every score table and never scored as zero; --resume runs "
        "them again. "
        + ("; ".join(roles) + ". " if roles else "")
        + f"Repeats per cell: up to {h.repeats}. Gate% is over applicable gates: build without "
        "a build command, serve on a static file server and the health gates of a state that "
        "never loaded are not applicable; Gate%/19 divides the gates that did not fail by "
        "all 19 signals, as the paper does."
        + (
            f" {h.env_drift} row(s) were graded under environment drift (--allow-env-drift): "
            "their visual gates (visual_anchors, visual_regression) are not applicable."
            if h.env_drift
            else ""
        )
        + (
            f" Unadmitted: {len(h.unadmitted)} task(s) ran with --allow-unadmitted, their "
            "contract without a recorded admission (tasks/ADMISSION.json), so their checks "
            "are not known to pass the reference and fail the controls: "
            + "; ".join(h.unadmitted)
            + "."
            if h.unadmitted
            else ""
        )
    )
