"""The report's definitions, written once: every table names the terms it uses
(`Table.terms`) and links to them here, instead of opening with a paragraph of them.

Order is the order the glossary prints in; ids are stable (the HTML anchors are
`g-<id>`, the Markdown ones follow each term's heading).
"""

from __future__ import annotations

import msgspec


class Term(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    term: str
    text: str


GLOSSARY: tuple[Term, ...] = (
    Term(
        id="task",
        term="Task%",
        text="The share of rows whose whole task passed: every unit (stage and rework) "
        "cleared, every applicable final gate passes, and no protected check flipped. "
        "Wilson 95% CI, or a task-clustered bootstrap CI when tasks were repeated (their "
        "verdicts are not independent draws; the cell then says 'clustered').",
    ),
    Term(
        id="gate",
        term="Gate%",
        text="Passed applicable gates over applicable gates on the final workspace, "
        "averaged over rows. A gate that cannot fail is not applicable: build without a "
        "build command, serve on a static file server, the health gates of a state that "
        "never loaded. 'Gate% <capability>' is the same over the rows of one capability.",
    ),
    Term(
        id="gate19",
        term="Gate%/19",
        text="The paper's scale (its Appendix B, 49-62% across models): the gates that did "
        "not fail over all 19 signals, a gate that did not apply counting as passed as a "
        "signal that cannot fail does there; it reads at least as high as Gate%. 'What "
        "scope, serve and build measured' accounts for the gates that pass by construction "
        "or do not apply.",
    ),
    Term(
        id="stage",
        term="Stage%",
        text="Cleared units (stages and reworks) over units. Undefined for the full-spec "
        "arm, which verifies once (—).",
    ),
    Term(
        id="wcs",
        term="WCS",
        text="Website Continuity Score: 0.25·stage + 0.25·gate + 0.5·final pass minus "
        "0.05 per break (at most 0.25), clamped to [0, 1] (weights in bench.toml "
        "[scoring]; README 'Scores').",
    ),
    Term(
        id="intervals",
        term="Intervals",
        text="Rates carry a Wilson 95% CI and their k/n; means carry a task-clustered "
        "bootstrap 95% CI (whole tasks are resampled, so runs of one task do not count as "
        "independent). A mean over one task has no interval.",
    ),
    Term(
        id="results",
        term="Results and rows that are no result",
        text="cancelled (a user stop), outage, config_error and task_error rows, and "
        "llm_error or budget rows without a final checkpoint, are no result: counted in the "
        "header, never scored as zero on any measure, run again by --resume. llm_error and "
        "budget rows with a final checkpoint keep its scores. harness_error rows are a bug "
        "of ours and never scored against the solver.",
    ),
    Term(
        id="infra",
        term="infra_error",
        text="A sandbox, browser or daemon fault (retried first). The score tables print "
        "the solver's rows twice: infra_error excluded, and counted as zero (a bound on "
        "infrastructure losses); 'infra' counts them.",
    ),
    Term(
        id="roles",
        term="Roles and 'all'",
        text="model: a model under test; control: reference, negative, noop, thrash; "
        "scripted: a solver on the scripted fake provider. Controls and scripted solvers "
        "are labelled and never enter a pooled 'all' row or a rank correlation.",
    ),
    Term(
        id="completing",
        term="Completing",
        text="Every completion-family gate (dom, text, interaction, a11y) passes on the "
        "final workspace, whatever the row's status.",
    ),
    Term(
        id="continuity",
        term="Complete but not cleared",
        text="Among completing runs, the share failing a conservative (gates 5-18) or "
        "broad (adds visual_regression) continuity gate: the continuity gap. Read on "
        "Change tasks, as in the paper; Build apart, greenfield twins left out.",
    ),
    Term(
        id="covered",
        term="Covered",
        text="The untouched R0 built, served and was verified, so the baseline channel "
        "could compare the final workspace with it.",
    ),
    Term(
        id="channels",
        term="Regression channels",
        text="Protected flip: a check that passed at a checkpoint fails at a later one "
        "(among completing runs). Baseline: a gate R0 passes fails at the end (among "
        "covered completing runs). Union and overlap: either and both channels; caught and "
        "still failing: either channel and the final conservative continuity fails; "
        "flipped but clean: a flip, yet the final conservative continuity passes.",
    ),
    Term(
        id="classes",
        term="Class (a) and (b)",
        text="On the conservative gates (5-18): (a) one that R0 passed fails at the end; "
        "(b) one fails that R0 did not pass (already failing before the run).",
    ),
    Term(
        id="arms",
        term="Staged and full-spec",
        text="Staged reveals the plan unit by unit with a checkpoint after each turn; "
        "full-spec gives the whole plan and verifies once. The arms are not comparable as "
        "estimates of model quality (paper §3.1, Appendix C): their task-success notions "
        "differ (whole task vs final gate pass), so only Gate% and final gate pass are "
        "compared across them, paired by (task, solver) with repeats averaged.",
    ),
    Term(
        id="twins",
        term="Greenfield twins",
        text="A Build task (`twin_of`) reaching a Change task's end state from an empty "
        "baseline under the same checks, with as many stages and reworks (paper §5). "
        "Paired with its source per solver and arm, repeats averaged; ΔWCS is twin minus "
        "source in points of 100 × WCS with a pair-clustered CI and the paired t statistic "
        "(the paper's −11.82 points, t = −4.74 over 105 paired cells). Never pooled into "
        "Build.",
    ),
    Term(
        id="rho",
        term="Spearman's rho",
        text="Rank correlation with average ranks for ties; p is the two-sided permutation "
        "p-value (exact up to 8 items).",
    ),
    Term(
        id="cost",
        term="Cost",
        text="Tokens and money actually charged, over every row whatever its status and "
        "over the attempts a resumed sweep superseded (shown apart): spend is spend. "
        "Estimated: responses charged without the provider's usage. Overshoot: money past "
        "the cells' own caps (max_usd), and in how many cells. Wall s per cell: a cell's "
        "own run (retries included) without its wait for the shared R0 baseline (R0 wait "
        "s, summed).",
    ),
    Term(
        id="regimes",
        term="Build and Change",
        text="Different regimes (paper §5): Build plans are longer, so a gap between them "
        "mixes regime and trajectory length. Greenfield twins are their own group ('build "
        "twin').",
    ),
    Term(
        id="size",
        term="Task size",
        text="The plan length (units): the manifest does not record the size of the "
        "reference edit (paper Figure 14 reads the edit's size).",
    ),
    Term(
        id="variability",
        term="Rerun variability",
        text="Cells run more than once (--repeats): the per-cell standard deviation of WCS "
        "(mean and max over cells) and whether the whole-task verdict agreed in every "
        "repeat (paper Appendix D, Figure 15: σ ≈ 0.09, verdicts stable).",
    ),
    Term(
        id="ablations",
        term="Ablation pair",
        text="Two solvers identical but for one option (vision, preservation clause, user "
        "wording persona vs literal, edit format, ...) on the tasks both ran in one arm; "
        "deltas are a minus b per task, repeats averaged.",
    ),
    Term(
        id="scaffold",
        term="Scaffold x backbone",
        text="A scaffold (what wraps the model) driving a backbone (the model). A grid "
        "cell's component mean is the mean of Gate% and the final gate pass rate, in "
        "points; a spread is its max minus min with one factor held fixed (paper §4.2: "
        "8.06 and 10.52 points per backbone vs 5.08 for a backbone swap).",
    ),
)

TERMS: dict[str, Term] = {t.id: t for t in GLOSSARY}
