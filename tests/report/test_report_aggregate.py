"""Loading and aggregation on the hand-made run of conftest.py: every number is known."""

from __future__ import annotations

import math
from pathlib import Path

import msgspec
import pytest

from orchestrator.report import (
    Mean,
    Rate,
    Report,
    ReportError,
    aggregate,
    load_run,
    read_manifest,
    tables,
)
from tests.report.report_run import SHOT_CELL, KnownRun


def _report(k: KnownRun) -> Report:
    return aggregate(load_run(k.run_dir, k.tasks_dir), "run")


def kn(r: Rate) -> tuple[int, int]:
    return (r.k, r.n)


def test_stale_torn_and_superseded_rows_are_left_out_and_counted(known_run: KnownRun) -> None:
    run = load_run(known_run.run_dir, known_run.tasks_dir)
    s = run.stats
    assert (s.lines, s.torn, s.superseded, s.stale_hash, s.missing_task, s.kept) == (
        13,
        1,
        1,
        1,
        1,
        10,
    )
    cells = {r.cell for r in run.rows}
    assert "t1/a/staged/2" not in cells and "gone/a/staged/0" not in cells
    (c_t2,) = [r for r in run.rows if r.cell == "t2/c/staged/0"]
    assert c_t2.scores is not None and c_t2.scores.gate == 1.0  # the later row won


def test_corrupt_middle_line_is_counted_and_named(tmp_path: Path, known_run: KnownRun) -> None:
    path = known_run.run_dir / "manifest.jsonl"
    lines = path.read_bytes().splitlines()
    path.write_bytes(b"\n".join([lines[0], b"{not json", *lines[1:]]))
    read = read_manifest(path)
    assert [b.line for b in read.bad] == [2] and len(read.items) == 13 and read.torn
    run = load_run(known_run.run_dir, known_run.tasks_dir)
    assert run.stats.unreadable == (2,) and run.stats.lines == 13
    with pytest.raises(ReportError):
        read_manifest(tmp_path / "nowhere.jsonl")


def test_scores_per_solver_excluding_infra(known_run: KnownRun) -> None:
    rep = _report(known_run)
    rows = {(r.solver, r.arm): r for r in rep.scores.rows}
    assert list(rows) == [("a", "staged"), ("b", "staged"), ("c", "staged"), ("a", "full-spec")]
    a = rows[("a", "staged")]
    assert (a.cells, a.infra, kn(a.task)) == (3, 0, (1, 3))
    assert a.gate.value == pytest.approx(0.75)
    assert a.stage.value == pytest.approx(2.5 / 3)
    assert a.wcs.value == pytest.approx(0.7)
    assert a.capability_gate["edit"].value == pytest.approx(0.75)
    assert a.capability_gate["repair"].value == pytest.approx(0.75)
    assert a.task.lo == pytest.approx(0.0615, abs=1e-4)
    assert a.task.hi == pytest.approx(0.7923, abs=1e-4)
    b = rows[("b", "staged")]
    assert (b.cells, b.infra, kn(b.task)) == (2, 1, (0, 2))
    assert b.gate.value == pytest.approx(0.375)
    assert rows[("c", "staged")].gate.value == pytest.approx(0.5)
    assert kn(rows[("c", "staged")].task) == (1, 2)
    assert rows[("a", "full-spec")].gate.value == pytest.approx(0.375)
    for m in (a.gate, a.stage, a.wcs, b.gate):
        assert m.lo <= m.value <= m.hi


def test_scores_with_infra_counted_as_zero(known_run: KnownRun) -> None:
    rep = _report(known_run)
    b = next(r for r in rep.scores_infra_zero.rows if (r.solver, r.arm) == ("b", "staged"))
    assert (b.cells, b.infra, kn(b.task)) == (3, 1, (0, 3))
    assert b.gate.value == pytest.approx(0.25)
    assert b.capability_gate["repair"].value == pytest.approx(0.25)  # (0 + 0.5) / 2


def test_complete_but_not_cleared(known_run: KnownRun) -> None:
    rep = _report(known_run)
    got = {(c.solver, c.arm): (kn(c.conservative), kn(c.broad)) for c in rep.continuity}
    assert got[("a", "staged")] == ((1, 3), (2, 3))
    assert got[("b", "staged")] == ((0, 1), (0, 1))
    assert got[("c", "staged")] == ((0, 1), (0, 1))
    assert got[("all", "staged")] == ((1, 5), (2, 5))
    assert got[("a", "full-spec")] == ((0, 2), (0, 2))


def test_regression_channels(known_run: KnownRun) -> None:
    rep = _report(known_run)
    assert rep.regression_arm == "staged"
    got = {
        r.solver: tuple(
            kn(x)
            for x in (r.flip, r.baseline, r.union, r.overlap, r.caught_failing, r.flipped_clean)
        )
        for r in rep.regressions
    }
    assert got["a"] == ((2, 3), (1, 2), (1, 2), (1, 2), (1, 2), (1, 3))
    # b's t1 run fails a completion gate: not completing, whatever its status (paper §3.3).
    assert got["b"] == ((0, 1), (0, 1), (0, 1), (0, 1), (0, 1), (0, 1))
    assert got["c"] == ((0, 1), (0, 1), (0, 1), (0, 1), (0, 1), (0, 1))
    assert got["all"] == ((2, 5), (1, 4), (1, 4), (1, 4), (1, 4), (1, 5))
    counts = [(g.gate, g.flips, g.flip_runs, g.baseline_runs) for g in rep.gate_counts]
    assert counts == [
        ("regression_text", 1, 1, 0),
        ("layout_overflow", 0, 0, 1),
        ("navigation", 1, 1, 0),
    ]


def test_paired_arms(known_run: KnownRun) -> None:
    (p,) = _report(known_run).paired
    assert (p.solver, p.pairs) == ("a", 2)
    assert p.gate_staged.value == pytest.approx(0.75)
    assert p.gate_full.value == pytest.approx(0.375)
    assert p.gate_delta.value == pytest.approx(0.375)
    assert (p.gate_delta.lo, p.gate_delta.hi) == pytest.approx((0.25, 0.5))
    # Only measures both arms share: no Task%, no WCS (their success notions differ).
    assert kn(p.final_staged) == (1, 3) and kn(p.final_full) == (0, 2)
    assert not hasattr(p, "wcs_delta") and not hasattr(p, "task_staged")


def test_rank_correlations_across_three_solvers(known_run: KnownRun) -> None:
    got = {(c.x, c.y): c for c in _report(known_run).correlations}
    gate_flip = got[("Gate%", "protected-flip rate")]
    assert gate_flip.n == 3
    assert gate_flip.rho == pytest.approx(math.sqrt(3) / 2)
    wcs_base = got[("mean WCS", "baseline regression rate")]
    # Baseline rates over completing runs: a 1/2, b 0/1, c 0/1; WCS ranks a > c > b.
    assert wcs_base.rho == pytest.approx(math.sqrt(3) / 2)


def test_a_correlation_of_a_constant_side_prints_a_dash(known_run: KnownRun) -> None:
    """No model regressed, say: the rates are all equal and rho is undefined. The table
    reads "—" as every other table does, not "+nan" (found by #55's `mixed` run on 12
    tasks, `mixed_real.py`)."""
    rep = _report(known_run)
    (first, *rest) = rep.correlations
    flat = msgspec.structs.replace(first, rho=math.nan, p=math.nan)
    rep = msgspec.structs.replace(rep, correlations=(flat, *rest))
    (row, *_) = next(t for t in tables(rep) if t.id == "correlations").rows
    assert row == (first.x, first.y, str(first.n), "—", "—")


def test_no_correlation_below_three_solvers(known_run: KnownRun) -> None:
    run = load_run(known_run.run_dir, known_run.tasks_dir)
    fewer = msgspec.structs.replace(run, rows=tuple(r for r in run.rows if r.solver != "c"))
    assert aggregate(fewer, "run").correlations == ()


def test_cell_entries(known_run: KnownRun) -> None:
    cells = {c.cell: c for c in _report(known_run).cells}
    assert len(cells) == 10
    shot = cells[SHOT_CELL]
    assert (shot.dir, shot.breaks, shot.gate) == ("t1__a__staged__1", 1, 0.5)
    assert cells["t2/b/staged/0"].gate is None


def test_empty_rates_render_as_dash() -> None:
    from orchestrator.report._tables import fmt_mean, fmt_rate

    assert fmt_rate(Rate(k=0, n=0, lo=0.0, hi=1.0)) == "—"
    assert fmt_mean(Mean(n=0, tasks=0, value=math.nan, lo=math.nan, hi=math.nan)) == "—"
    assert fmt_rate(Rate(k=5, n=10, lo=0.2366, hi=0.7634)) == "50.0% [23.7, 76.3] (5/10)"


def test_a_mean_over_one_task_prints_no_interval() -> None:
    """Repeats of one task are not independent: the bootstrap collapses, and a table must
    not print that as a zero-width interval (the per-stack row of a stack with one task)."""
    from orchestrator.report import mean
    from orchestrator.report._tables import fmt_mean

    one = mean([0.2, 0.6, 0.4], ["t1", "t1", "t1"])
    assert (one.n, one.tasks) == (3, 1)
    assert fmt_mean(one) == "40.0 (1 task: no interval)"
    two = mean([0.2, 0.6], ["t1", "t2"])
    assert two.tasks == 2
    assert fmt_mean(two, percent=False) == f"0.400 [{two.lo:.3f}, {two.hi:.3f}]"
    assert two.lo < two.value < two.hi


def test_a_plot_draws_no_error_bar_for_a_one_task_mean(tmp_path: Path) -> None:
    """The per-facet plot must not draw a zero-width error bar (certainty) for a facet with
    one task, and it still renders the figure around it."""
    from orchestrator.report import mean
    from orchestrator.report._model import BreakdownRow
    from orchestrator.report._plots import error_spans, group_wcs

    one = mean([0.2, 0.6, 0.4], ["t1", "t1", "t1"])
    two = mean([0.2, 0.6], ["t1", "t2"])
    below, above = error_spans([one, two], 100.0)
    assert math.isnan(below[0]) and math.isnan(above[0])
    assert below[1] == pytest.approx(100 * (two.value - two.lo))
    assert above[1] == pytest.approx(100 * (two.hi - two.value))
    rows = [
        BreakdownRow(solver="s", arm="staged", group=g, cells=m.n, gate=m, stage=m, wcs=m)
        for g, m in (("design", one), ("state", two))
    ]
    png = group_wcs(rows, tmp_path / "facets.png")
    assert png.read_bytes().startswith(b"\x89PNG")


def test_stage_is_undefined_for_the_full_spec_arm(known_run: KnownRun) -> None:
    from orchestrator.report._tables import scores_table

    rep = _report(known_run)
    full = next(r for r in rep.scores.rows if r.arm == "full-spec")
    assert full.stage.n == 0
    table = scores_table(rep.scores, "scores")
    col = table.headers.index("Stage%")
    cells = {(r[0], r[1]): r[col] for r in table.rows}
    assert cells[("a", "full-spec")] == "—"
    assert cells[("a", "staged")] != "—"


def test_harness_error_is_never_scored_against_the_solver() -> None:
    from orchestrator.report._aggregate import score_table
    from orchestrator.solver_cards import guess_card
    from tests.report.report_run import row, scores

    h = {"t1": "0" * 64}
    rows = [
        row("t1", "a", "staged", 0, h, scores=scores(1.0, 1.0, 1.0, whole=True)),
        row("t1", "a", "staged", 1, h, status="harness_error", error="KeyError: x"),
    ]
    for infra_as_zero in (True, False):
        (line,) = score_table(rows, guess_card, infra_as_zero=infra_as_zero).rows
        assert line.cells == 1 and line.wcs.value == 1.0
