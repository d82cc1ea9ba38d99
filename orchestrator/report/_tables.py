"""The report's tables as plain strings, shared by the Markdown and HTML renderers."""

from __future__ import annotations

import math

from ._model import ContinuityRow, Report, ScoreTable
from ._tables_analyses import analysis_tables
from ._tables_fmt import Table as Table
from ._tables_fmt import fmt_mean as fmt_mean
from ._tables_fmt import fmt_rate as fmt_rate
from ._tables_paper import paper_tables


def scores_table(t: ScoreTable, id: str) -> Table:
    return Table(
        id=id,
        title=f"Scores per solver ({t.title})",
        note="Task% with Wilson 95% CI, or a task-clustered bootstrap CI when tasks were "
        "repeated; Gate%, Stage%, WCS means with task-clustered bootstrap 95% CI. Stage% "
        "is undefined for full-spec (—). llm_error and budget rows keep the scores of their "
        "final checkpoint; without one they are no result and left out, like cancelled "
        "rows. Controls and "
        "scripted solvers are labelled in the role column. Gate% is over the gates that "
        "applied. Gate%/19 is the paper's scale (its Appendix B, 49-62% across models): the "
        "gates that did not fail over all 19, a gate that did not apply counting as passed "
        "as a signal that cannot fail does there; it reads at least as high as Gate%. "
        "'What scope, serve and build measured' accounts for the gates that pass by "
        "construction or do not apply.",
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
        note="Complete-but-not-cleared: among completing runs (every completion-family gate "
        "passes), the share failing a conservative (gates 5-18) / broad (adds "
        "visual_regression) continuity gate. Change tasks only, as in the paper; 'all' "
        "pools the models under test (no control, no scripted solver).",
        headers=("solver", "arm", "conservative", "broad"),
        rows=_continuity_rows(rep.continuity),
    )


def _continuity_build(rep: Report) -> Table:
    return Table(
        id="continuity-build",
        title="Completion vs continuity (Build tasks, reported apart)",
        note="The same reading on Build tasks, which the paper reports apart; "
        "greenfield twins (`twin_of`) are left out, their own study.",
        headers=("solver", "arm", "conservative", "broad"),
        rows=_continuity_rows(rep.continuity_build),
    )


def _regressions(rep: Report) -> Table:
    return Table(
        id="regressions",
        title=f"Regressions (Change tasks, {rep.regression_arm} arm)",
        note="Completing = every completion-family gate passes. Protected flip among "
        "completing runs; baseline, union, overlap and caught-and-still-failing among "
        "covered completing runs (the untouched R0 served and was verified); "
        "flipped-but-clean among completing runs. Wilson 95% CI. 'all' pools the models "
        "under test.",
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
        note="Completing runs of the models under test (controls such as thrash and the "
        "negatives, and scripted solvers, left out, as in every pooled row); flips counted "
        "as events and as runs, baseline as runs.",
        headers=("gate", "flips", "runs with a flip", "runs with a baseline regression"),
        rows=tuple(
            (g.gate, str(g.flips), str(g.flip_runs), str(g.baseline_runs)) for g in rep.gate_counts
        ),
    )


def _paired(rep: Report) -> Table:
    return Table(
        id="paired",
        title="Staged vs full-spec on the same packages (shared measures only)",
        note="Caveat (paper §3.1, Appendix C): the two arms are not comparable as "
        "estimates of model quality: their task-success notions differ (whole-task "
        "pass vs final gate pass) and full-spec has no checkpoints. Only the measures "
        "both arms share are compared: Gate% and final gate pass. Paired by (task, "
        "solver), repeats averaged; ΔGate is staged minus full-spec with a "
        "task-clustered bootstrap 95% CI.",
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
        note="A twin (`twin_of`) reaches its Change source's end state from an empty "
        "baseline under the same checks, with as many stages and reworks (paper §5, "
        "twin study). Paired by (twin, source) for each solver and arm, repeats "
        "averaged; ΔWCS is twin minus source in points of 100 × WCS, with a "
        "pair-clustered bootstrap 95% CI and the paired t statistic over cells. 'all' "
        "pools the paired cells of the models under test, clustered by twin (the "
        "paper's −11.82 points, t = −4.74 over 105 paired cells).",
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
        note="Across the models under test only (controls and scripted solvers left "
        "out). Spearman's rho (average ranks for ties); two-sided permutation p-value.",
        headers=("x", "y", "solvers", "rho", "p"),
        rows=tuple((c.x, c.y, str(c.n), f"{c.rho:+.3f}", f"{c.p:.3f}") for c in rep.correlations),
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
