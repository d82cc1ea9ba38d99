"""The report's populations and analyses read the paper's way (§3.3, §5, Appendices D-F)."""

from __future__ import annotations

import math
import statistics
from pathlib import Path
from typing import Any

import msgspec
import pytest

from orchestrator.records import Flip, ManifestRow, TaskLabels
from orchestrator.report import LoadedRun, LoadStats, Report, aggregate, header_note, tables
from orchestrator.solver_cards import SolverCard
from tests.report.report_run import row, scores

CARDS = {
    "reference": SolverCard(name="reference", kind="reference", role="control"),
    "noop": SolverCard(name="noop", kind="noop", role="control"),
    "fake-llm": SolverCard(
        name="fake-llm", kind="llm", role="scripted", scaffold="pwb-agent", backbone="scripted"
    ),
    **{
        name: SolverCard(
            name=name,
            kind="llm",
            role="model",
            scaffold="pwb-agent",
            backbone=backbone,
            provider="p",
            options={"vision": vision, "preservation_clause": True},
        )
        for name, backbone, vision in (
            ("m1", "gpt", False),
            ("m2", "gpt", True),
            ("m3", "claude", False),
        )
    },
    "cli": SolverCard(name="cli", kind="scaffold", role="model", scaffold="cli", backbone="gpt"),
}
BUILD = TaskLabels(
    regime="build", capability="build", facet="construction", stack="vite", framework="react"
)
FLIP = (Flip(check="c", gate="text", passed_at=1, failed_at=2),)


def r(task: str, solver: str, rep: int = 0, arm: str = "staged", **kw: Any) -> ManifestRow:
    kw.setdefault("status", "ok")
    return row(task, solver, arm, rep, {}, **kw)


def report(rows: list[ManifestRow]) -> Report:
    stats = LoadStats(
        lines=len(rows), torn=0, superseded=0, stale_hash=0, missing_task=0, kept=len(rows)
    )
    run = LoadedRun(rows=tuple(rows), stats=stats, task_roots={}, cards=CARDS)
    return aggregate(run, "run")


def test_rows_that_are_no_result_are_counted_in_the_header_and_in_no_score_table() -> None:
    """cancelled (a user stop), outage (the provider was down past its pause bound) and
    task_error (the task's own R0 cannot serve) are never scored against the solver."""
    rows = [
        r("t1", "m1", scores=scores(1.0, 1.0, 1.0, whole=True)),
        r("t2", "m1", status="cancelled", error="sweep cancelled", input_tokens=50, cost_usd=0.5),
        r("t3", "m1", status="outage", error="provider 'p': outage longer than 900 s"),
        r("t4", "m1", status="task_error", error="task package: R0 cannot serve"),
    ]
    rep = report(rows)
    (m1,) = [s for s in rep.scores.rows if s.solver == "m1"]
    assert m1.cells == 1 and (m1.task.k, m1.task.n) == (1, 1)  # not a zero
    (m1z,) = [s for s in rep.scores_infra_zero.rows if s.solver == "m1"]
    assert m1z.cells == 1  # nor counted as zero with infrastructure failures
    assert rep.header.cancelled == 3
    assert rep.header.statuses == {"cancelled": 1, "ok": 1, "outage": 1, "task_error": 1}
    assert "Rows by status: 1 cancelled, 1 ok, 1 outage, 1 task_error. 3 row(s)" in (
        header_note(rep)
    )
    (cost,) = rep.cost  # spend is reported whatever the status
    assert (cost.cells, cost.tokens, cost.cost_usd) == (4, 50, 0.5)


def test_controls_and_scripted_solvers_are_labelled_and_never_pooled() -> None:
    rows = [
        r("t1", "reference", scores=scores(1.0, 1.0, 1.0, whole=True)),
        r("t1", "fake-llm", scores=scores(1.0, 1.0, 1.0, whole=True)),
        r("t1", "noop", scores=scores(0.6, 0.0, 0.15, completion=False)),
        r("t1", "m1", flips=FLIP, scores=scores(0.9, 0.5, 0.5, cons=False, breaks=1)),
        r("t1", "m2", scores=scores(0.7, 0.5, 0.4)),
        r("t1", "m3", scores=scores(0.5, 0.5, 0.3)),
    ]
    rep = report(rows)
    roles = {s.solver: s.role for s in rep.scores.rows}
    assert roles == {
        "fake-llm": "scripted",
        "m1": "model",
        "m2": "model",
        "m3": "model",
        "noop": "control",
        "reference": "control",
    }
    pooled = next(c for c in rep.continuity if c.solver == "all")
    assert (pooled.conservative.k, pooled.conservative.n) == (1, 3)  # m1, m2, m3 only
    flip_all = next(g for g in rep.regressions if g.solver == "all").flip
    assert (flip_all.k, flip_all.n) == (1, 3)
    (corr, *_) = rep.correlations
    assert corr.n == 3  # the three models; the controls would make it 6
    note = header_note(rep)
    assert "controls (labelled, never pooled): noop, reference" in note
    assert "scripted providers (labelled, never pooled): fake-llm" in note


def test_completing_means_every_completion_gate_and_channels_read_change_tasks_only() -> None:
    rows = [
        # a budget-stopped run that completed the requested work is a completing run
        r("t1", "m1", status="budget", flips=FLIP, scores=scores(0.8, 0.5, 0.4, cons=False)),
        # status ok but a completion gate fails: not completing
        r("t2", "m1", scores=scores(0.8, 0.5, 0.4, completion=False, cons=False)),
        # Build: reported apart, never in the Change channels
        msgspec.structs.replace(
            r("b1", "m1", flips=FLIP, scores=scores(0.9, 1.0, 0.9, cons=False)), labels=BUILD
        ),
    ]
    rep = report(rows)
    change = next(c for c in rep.continuity if c.solver == "m1")
    assert (change.conservative.k, change.conservative.n) == (1, 1)
    build = next(c for c in rep.continuity_build if c.solver == "m1")
    assert (build.conservative.k, build.conservative.n) == (1, 1)
    m1 = next(g for g in rep.regressions if g.solver == "m1")
    assert (m1.flip.k, m1.flip.n) == (1, 1)
    regimes = {(b.solver, b.group): b.cells for b in rep.regimes}
    # m1 is the only model under test: its rows are also the pooled "all" rows
    assert regimes == {
        ("m1", "build"): 1,
        ("m1", "change"): 2,
        ("all", "build"): 1,
        ("all", "change"): 2,
    }
    assert {b.group for b in rep.facets} == {"content", "construction"}
    assert {b.group for b in rep.stacks} == {"static", "vite"}


def test_repeats_give_variability_and_task_clustered_task_intervals() -> None:
    rows = [
        r("t1", "m1", 0, scores=scores(1.0, 1.0, 1.0, whole=True)),
        r("t1", "m1", 1, scores=scores(0.9, 1.0, 0.8, whole=False)),
        r("t2", "m1", 0, scores=scores(0.5, 0.5, 0.3)),
        r("t2", "m1", 1, scores=scores(0.5, 0.5, 0.3)),
    ]
    rep = report(rows)
    (v,) = rep.variability
    assert v.cells == 2
    assert v.sd_max == pytest.approx(statistics.stdev([1.0, 0.8]))
    assert v.sd_mean == pytest.approx(statistics.stdev([1.0, 0.8]) / 2)
    assert (v.agree.k, v.agree.n) == (1, 2)  # t1's verdict changed between repeats
    (m1,) = rep.scores.rows
    assert m1.task_clustered is not None and m1.task_clustered.value == pytest.approx(0.25)
    # whole tasks are resampled: t1's two repeats move together
    assert m1.task_clustered.lo == pytest.approx(0.0) and m1.task_clustered.hi == pytest.approx(0.5)
    assert report(rows[::2]).scores.rows[0].task_clustered is None  # one repeat: Wilson


def test_ablation_pairs_differ_in_exactly_one_option_and_are_paired_by_task() -> None:
    rows = [
        r("t1", "m1", scores=scores(0.5, 0.5, 0.4)),
        r("t2", "m1", scores=scores(0.75, 0.5, 0.5)),
        r("t1", "m2", scores=scores(0.75, 0.5, 0.5)),
        r("t2", "m2", scores=scores(1.0, 0.5, 0.6)),
        r("t3", "m2", scores=scores(0.0, 0.0, 0.0)),  # m1 never ran t3: unpaired
        r("t1", "m3", scores=scores(1.0, 1.0, 1.0, whole=True)),  # another backbone
    ]
    (a,) = report(rows).ablations
    assert (a.option, a.a, a.b, a.a_value, a.b_value, a.pairs) == (
        "vision",
        "m1",
        "m2",
        "False",
        "True",
        2,
    )
    assert a.gate_delta.value == pytest.approx(-0.25)
    assert a.gate_delta.lo == pytest.approx(-0.25) and a.gate_delta.hi == pytest.approx(-0.25)
    assert a.wcs_delta.value == pytest.approx(-0.1)


def test_full_spec_grid_and_arms_compared_on_shared_measures_only() -> None:
    rows = [
        r("t1", "m1", arm="full-spec", scores=scores(1.0, 1.0, 0.9)),
        r("t1", "m3", arm="full-spec", scores=scores(0.5, 1.0, 0.4)),
        r("t1", "cli", arm="full-spec", scores=scores(0.75, 1.0, 0.5)),
        r("t1", "fake-llm", arm="full-spec", scores=scores(1.0, 1.0, 1.0)),
        r("t1", "m1", scores=scores(0.5, 0.5, 0.4)),
    ]
    rep = report(rows)
    grid = {(g.scaffold, g.backbone): (g.cells, g.gate.value, g.final.k) for g in rep.grid}
    assert grid == {
        ("cli", "gpt"): (1, 0.75, 0),
        ("pwb-agent", "claude"): (1, 0.5, 0),
        ("pwb-agent", "gpt"): (1, 1.0, 1),
    }
    (p,) = [p for p in rep.paired if p.solver == "m1"]
    assert (p.final_staged.k, p.final_full.k) == (0, 1)
    staged_full = next(t for t in tables(rep) if t.id == "paired")
    assert "not comparable" in staged_full.note
    assert not any("Task%" in h or "WCS" in h for h in staged_full.headers)
    grid_table = next(t for t in tables(rep) if t.id == "grid")
    assert grid_table.headers == ("scaffold", "claude", "gpt")
    assert [row[0] for row in grid_table.rows] == ["cli", "pwb-agent"]
    full = next(s for s in rep.scores.rows if (s.solver, s.arm) == ("m1", "full-spec"))
    assert full.stage.n == 0 and math.isnan(full.stage.value)


def test_wording_is_an_option_on_every_card_and_pairs_like_any_other(tmp_path: Path) -> None:
    from orchestrator.config import load_config
    from orchestrator.solver_cards import card_for

    cfg_path = tmp_path / "bench.toml"
    cfg_path.write_text(
        '[[providers]]\nname = "p"\nkind = "fake"\nmodel = "m"\n\n'
        '[[solvers]]\nname = "persona"\nkind = "llm"\nprovider = "p"\n\n'
        '[[solvers]]\nname = "literal"\nkind = "llm"\nprovider = "p"\nwording = "literal"\n'
    )
    cfg = load_config(cfg_path)
    a, b = (card_for(cfg, s) for s in cfg.solvers)
    assert (a.options["wording"], b.options["wording"]) == ("persona", "literal")
    assert {k for k in a.options if a.options[k] != b.options[k]} == {"wording"}


@pytest.mark.parametrize("status", ["cancelled", "infra_error", "harness_error", "llm_error"])
def test_a_row_without_a_delivery_is_never_covered_by_the_baseline(status: str) -> None:
    """'Covered' = the untouched R0 served and was verified: a row with no result (a user
    stop, a lost container, a bug of ours) says nothing about R0 and is not covered."""
    from orchestrator.report import row_covered

    bare = row("t1", "m", "staged", 0, {}, status=status)
    assert bare.result is None and not row_covered(bare)
    covered = row("t1", "m", "staged", 0, {}, scores=scores(1.0, 1.0, 1.0), baseline_covered=True)
    uncovered = row(
        "t1", "m", "staged", 0, {}, scores=scores(1.0, 1.0, 1.0), baseline_covered=False
    )
    assert row_covered(covered) and not row_covered(uncovered)


@pytest.mark.parametrize("status", ["budget", "llm_error"])
def test_a_row_without_a_result_is_no_result_never_a_zero(status: str) -> None:
    """A budget row a sweep cap stopped before it started (attempts == 0) and an in-harness
    llm_error with no final checkpoint delivered nothing: counted in the header, never
    scored as 0 on any measure (issue #37)."""
    bare = msgspec.structs.replace(r("t2", "m1", status=status, error="cap"), attempts=0)
    assert bare.result is None
    rows = [r("t1", "m1", scores=scores(1.0, 1.0, 1.0, whole=True)), bare]
    rep = report(rows)
    for table in (rep.scores, rep.scores_infra_zero):
        (m1,) = [s for s in table.rows if s.solver == "m1"]
        assert m1.cells == 1 and m1.gate.value == 1.0 and m1.wcs.value == 1.0
        assert m1.gate19 is not None and m1.gate19.n == 1
    assert {(b.group, b.cells) for b in rep.facets if b.solver == "m1"} == {("content", 1)}
    assert rep.header.cancelled == 1 and rep.header.undelivered == {status: 1}
    assert f"1 {status} of them" in header_note(rep)
    assert "never scored as zero" in header_note(rep)
    # with a final checkpoint it is a result, scored on what it delivered
    delivered = r("t2", "m1", status=status, scores=scores(0.0, 0.0, 0.0, completion=False))
    (m1,) = [s for s in report([rows[0], delivered]).scores.rows if s.solver == "m1"]
    assert m1.cells == 2 and m1.gate.value == 0.5


def test_regression_gate_table_pools_the_models_only_and_breakdowns_have_pooled_rows() -> None:
    thrash = SolverCard(name="thrash", kind="thrash", role="control")
    rows = [
        r("t1", "m1", flips=FLIP, scores=scores(0.9, 0.5, 0.5, cons=False, breaks=1)),
        r("t1", "m2", scores=scores(0.7, 0.5, 0.4)),
        r("t1", "thrash", flips=FLIP * 3, scores=scores(0.5, 0.5, 0.1, cons=False, breaks=3)),
        r("t1", "fake-llm", flips=FLIP, scores=scores(0.9, 0.5, 0.5, cons=False, breaks=1)),
    ]
    stats = LoadStats(lines=4, torn=0, superseded=0, stale_hash=0, missing_task=0, kept=4)
    run = LoadedRun(rows=tuple(rows), stats=stats, task_roots={}, cards=CARDS | {"thrash": thrash})
    rep = aggregate(run, "run")
    (text,) = rep.gate_counts
    assert (text.gate, text.flips, text.flip_runs) == ("text", 1, 1)  # m1's flip only
    (pooled,) = [b for b in rep.facets if b.solver == "all"]
    assert pooled.cells == 2 and pooled.gate.value == pytest.approx(0.8)
    assert {b.solver for b in rep.stacks} == {"all", "fake-llm", "m1", "m2", "thrash"}
