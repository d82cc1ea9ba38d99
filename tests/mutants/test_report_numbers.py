"""The report's numbers and populations (issue #18, mutation group `report`): each test
pins one rule of `report/_aggregate.py` / `report/_measures.py` on a handful of rows."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from orchestrator.records import BaselineRegression, Flip, ManifestRow, TaskLabels, UnitOutcome
from orchestrator.report import (
    LoadedRun,
    LoadStats,
    Report,
    aggregate,
    cluster_bootstrap,
    mean,
    row_regressions,
    row_units,
)
from orchestrator.report._measures import N_BOOT, SEED
from orchestrator.solver_cards import SolverCard
from tests.report.report_run import row, scores

CARDS = {
    name: SolverCard(name=name, kind="llm", role="model", scaffold="pwb-agent", backbone=name)
    for name in ("m1", "m2", "m3")
}
STATS = LoadStats(lines=0, torn=0, superseded=0, stale_hash=0, missing_task=0, kept=0)


def r(task: str, solver: str, arm: str = "staged", rep: int = 0, **kw: Any) -> ManifestRow:
    return row(task, solver, arm, rep, {}, **kw)


def report(rows: list[ManifestRow]) -> Report:
    run = LoadedRun(rows=tuple(rows), stats=STATS, task_roots={}, cards=CARDS)
    return aggregate(run, "runs/x")


def test_solvers_are_listed_by_name_within_an_arm() -> None:
    rep = report([r("t1", "m2", scores=scores(1, 1, 1)), r("t1", "m1", scores=scores(1, 1, 1))])
    assert [s.solver for s in rep.scores.rows] == ["m1", "m2"]
    assert rep.solvers == ("m1", "m2") and rep.run_dir == "runs/x" and rep.load == STATS


def test_score_tables_are_titled_by_how_infra_errors_count() -> None:
    rep = report([r("t1", "m1", scores=scores(1, 1, 1))])
    assert rep.scores.title == "infra_error excluded"
    assert rep.scores_infra_zero.title == "infra_error counted as zero"


def test_gate_per_capability_reads_only_that_capabilitys_rows() -> None:
    # report_run labels t2 "repair" and every other task "edit".
    rep = report([r("t1", "m1", scores=scores(1.0, 1, 1)), r("t2", "m1", scores=scores(0.5, 1, 1))])
    (s,) = rep.scores.rows
    assert {c: m.value for c, m in s.capability_gate.items()} == {"edit": 1.0, "repair": 0.5}


def test_paired_arms_leave_out_infra_and_harness_errors_and_count_a_missing_score_as_zero() -> None:
    zero = scores(0.0, 0, 0, completion=False, cons=False, broad=False)
    rows = [
        r("t1", "m1", scores=scores(1.0, 1, 1)),
        r("t1", "m1", "full-spec", scores=scores(0.5, 1, 1)),
        r("t1", "m1", rep=1, status="infra_error"),  # no result: not a pair member
        r("t1", "m1", rep=2, status="harness_error"),
        # its own failure, delivered and scored zero: a member
        r("t1", "m1", "full-spec", rep=1, status="llm_error", scores=zero),
        # no final checkpoint: no result, never a zero (issue #37)
        r("t1", "m1", "full-spec", rep=2, status="llm_error"),
    ]
    (p,) = report(rows).paired
    assert p.gate_staged.value == pytest.approx(1.0)
    assert p.gate_full.value == pytest.approx(0.25)
    assert p.gate_delta.value == pytest.approx(0.75)


def test_cell_entries_carry_each_rows_identity_and_scores() -> None:
    rows = [
        r("t1", "m1", scores=scores(0.5, 1, 0.4, whole=True)),
        r("t2", "m2", status="llm_error"),
    ]
    a, b = report(rows).cells
    assert (a.task, a.solver, a.arm, a.status) == ("t1", "m1", "staged", "ok")
    assert (a.gate, a.wcs, a.whole_task) == (0.5, 0.4, True)
    assert (b.task, b.solver, b.status, b.gate, b.wcs, b.whole_task) == (
        "t2",
        "m2",
        "llm_error",
        None,
        None,
        None,
    )


def test_header_counts_repeats_and_environment_drift() -> None:
    drift = {"visual": "environment drift: fonts differ"}
    rows = [
        r("t1", "m1", scores=scores(1, 1, 1), not_applicable=drift),
        r("t1", "m1", rep=1, scores=scores(1, 1, 1), not_applicable={"build": "no build"}),
        r("t1", "m1", rep=2, status="infra_error"),
    ]
    h = report(rows).header
    assert (h.repeats, h.env_drift) == (3, 1)


def test_regressions_are_read_on_full_spec_rows_when_no_staged_row_exists() -> None:
    reg = (BaselineRegression(gate="text"),)
    rows = [
        r(
            t,
            s,
            "full-spec",
            scores=scores(1, 1, 1),
            baseline_covered=True,
            baseline_regressions=reg,
        )
        for t in ("t1", "t3")
        for s in ("m1", "m2")
    ]
    rep = report(rows)
    assert rep.regression_arm == "full-spec"
    assert {x.solver: (x.baseline.k, x.baseline.n) for x in rep.regressions}["m1"] == (2, 2)
    assert report([]).regression_arm == "staged"


def test_build_tasks_have_their_own_continuity_rows() -> None:
    build = TaskLabels(
        regime="build", capability="build", facet="construction", stack="vite", framework="r"
    )
    done = scores(1, 1, 1, cons=False)
    rows = [
        msgspec.structs.replace(r("t1", "m1", scores=done), labels=build),
        r("t2", "m2", scores=done),
    ]
    rep = report(rows)
    assert [c.solver for c in rep.continuity_build] == ["m1", "all"]
    assert [c.solver for c in rep.continuity if c.solver != "all"] == ["m2"]


def test_intervals_are_the_seeded_bootstrap() -> None:
    values, clusters = [0.0, 1.0, 0.5, 0.25, 1.0, 0.0], ["a", "b", "c", "d", "e", "f"]
    m = mean(values, clusters)
    want = cluster_bootstrap(values, clusters, n_boot=N_BOOT, seed=SEED)
    assert (m.value, m.lo, m.hi) == want and m.n == 6
    assert mean(values, clusters) == m  # the same rows give the same interval


def test_correlations_have_a_p_value() -> None:
    flip = (Flip(check="c", gate="text", passed_at=1, failed_at=2),)
    rows = [
        r(t, s, scores=scores(g, 1, g), baseline_covered=True, flips=flip if t in flipped else ())
        for s, g, flipped in (("m1", 1.0, ()), ("m2", 0.5, ("t1",)), ("m3", 0.25, ("t1", "t3")))
        for t in ("t1", "t3")
    ]
    (c,) = [c for c in report(rows).correlations if c.y == "protected-flip rate"]
    assert c.n == 3 and c.rho == pytest.approx(-1.0)
    assert c.p is not None and 0.0 < c.p <= 1.0


@pytest.mark.parametrize("status", ["infra_error", "harness_error", "cancelled"])
def test_a_row_without_a_result_has_no_units_and_no_regressions(status: str) -> None:
    bare = r("t1", "m1", status=status)
    assert row_units(bare) == () and row_regressions(bare) == ()
    full = r(
        "t1", "m1", scores=scores(1, 1, 1), baseline_regressions=(BaselineRegression(gate="text"),)
    )
    assert row_regressions(full) == (BaselineRegression(gate="text"),)
    unit = UnitOutcome(id="u1", kind="stage", cleared=True, capped=False, turns=1, cleared_at=1)
    assert row_units(r("t1", "m1", scores=scores(1, 1, 1), units=(unit,))) == (unit,)
