"""The report's regression channels, further analyses and run loading, number by number
(issue #35: `report/_regressions.py`, `_analyses.py`, `_load.py`), on rows built here so
each population and each field is pinned."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import msgspec
import pytest

from orchestrator.records import BaselineRegression, Flip, ManifestRow
from orchestrator.report import ReportError, _analyses, _regressions, load_run, read_manifest
from orchestrator.solver_cards import SolverCard
from tests.report.report_run import make_task, row, scores

FLIP = (Flip(check="c", gate="text", passed_at=1, failed_at=2),)
BASE = (BaselineRegression(gate="navigation", failed_checks=("nav",)),)


def r(task: str, solver: str, rep: int = 0, arm: str = "staged", **kw: Any) -> ManifestRow:
    kw.setdefault("status", "ok")
    return row(task, solver, arm, rep, {}, **kw)


def _rate(rate: Any) -> tuple[int, int]:
    return rate.k, rate.n


# ---------------------------------------------------------------- the two channels


def _channel_rows(solver: str) -> list[ManifestRow]:
    """Covered completing runs: flip only (still failing), baseline only (clean), both
    (failing), neither (failing), flip only (clean, twice), baseline only (failing); and
    one not covered (flip, clean)."""

    def run(task: str, flips: Any, base: Any, failing: bool, covered: bool = True) -> ManifestRow:
        return r(
            task,
            solver,
            scores=scores(1.0, 1.0, 1.0, cons=not failing),
            flips=flips,
            baseline_regressions=base,
            baseline_covered=covered,
        )

    return [
        run("t1", FLIP, (), True),
        run("t2", (), BASE, False),
        run("t3", FLIP, BASE, True),
        run("t4", (), (), True),
        run("t5", FLIP, (), False),
        run("t6", FLIP, (), False, covered=False),
        run("t7", (), BASE, True),
        run("t8", FLIP, (), False),
    ]


def test_each_channel_population_and_their_union_and_overlap() -> None:
    (row_,) = _regressions.regression_rows(_channel_rows("m"), lambda s: False)
    assert row_.solver == "m"
    assert _rate(row_.flip) == (5, 8)  # completing runs
    assert _rate(row_.baseline) == (3, 7)  # covered completing runs
    assert _rate(row_.union) == (6, 7)
    assert _rate(row_.overlap) == (1, 7)
    assert _rate(row_.caught_failing) == (3, 7)  # t1, t3, t7
    assert _rate(row_.flipped_clean) == (3, 8)  # t5, t6, t8


def test_the_pooled_row_takes_only_the_models() -> None:
    rows = [*_channel_rows("m"), *_channel_rows("noop")]
    out = _regressions.regression_rows(rows, lambda s: s == "m")
    assert [x.solver for x in out] == ["m", "noop", "all"]
    assert _rate(out[-1].flip) == (5, 8)
    assert _regressions.regression_rows(rows, lambda s: False)[-1].solver == "noop"


# ---------------------------------------------------------------- breakdowns


def test_breakdown_per_solver_and_arm_in_arm_order_then_by_name() -> None:
    rows = [
        r("t1", "b", arm="full-spec", scores=scores(0.5, 0.0, 0.4)),
        r("t1", "b", scores=scores(1.0, 0.5, 0.8)),
        r("t1", "a", scores=scores(0.0, 0.0, 0.1)),
        r("t2", "a", scores=scores(1.0, 1.0, 0.9)),
        r("t2", "a", status="infra_error", scores=scores(1.0, 1.0, 1.0)),
    ]

    # Controls only: no pooled "all" rows (those pool the models, test_report_populations).
    def controls(name: str) -> SolverCard:
        return SolverCard(name=name, kind="noop", role="control")

    out = _analyses.breakdown(rows, key=lambda x: x.task, cards=controls)
    assert [(b.solver, b.arm, b.group, b.cells) for b in out] == [
        ("a", "staged", "t1", 1),
        ("a", "staged", "t2", 1),  # the infra_error row is not scored
        ("b", "staged", "t1", 1),
        ("b", "full-spec", "t1", 1),
    ]
    assert [(b.gate.value, b.stage.value, b.wcs.value) for b in out[:3]] == [
        (0.0, 0.0, 0.1),
        (1.0, 1.0, 0.9),
        (1.0, 0.5, 0.8),
    ]
    full = out[3]
    assert (full.gate.value, full.wcs.value, full.stage.n) == (0.5, 0.4, 0)
    assert math.isnan(full.stage.value)


# ---------------------------------------------------------------- rerun variability


def test_variability_per_solver_and_arm() -> None:
    rows = [
        # b, staged: two cells with repeats; whole-task agrees in one of them.
        r("t0", "b", 0, scores=scores(1, 1, 0.2, whole=True)),
        r("t0", "b", 1, scores=scores(1, 1, 0.6, whole=False)),
        r("t2", "b", 0, scores=scores(1, 1, 0.5, whole=True)),
        r("t2", "b", 1, scores=scores(1, 1, 0.5, whole=True)),
        # a, full-spec and staged: one cell each.
        r("t1", "a", 0, arm="full-spec", scores=scores(1, 0, 0.0)),
        r("t1", "a", 1, arm="full-spec", scores=scores(1, 0, 1.0)),
        r("t1", "a", 0, scores=scores(1, 1, 0.3)),
        r("t1", "a", 1, scores=scores(1, 1, 0.3)),
        r("t3", "a", 0, scores=scores(1, 1, 0.3)),  # one repeat: no variability
    ]
    out = _analyses.variability(rows)
    assert [(v.solver, v.arm, v.cells) for v in out] == [
        ("a", "staged", 1),
        ("b", "staged", 2),
        ("a", "full-spec", 1),
    ]
    b = out[1]
    sd = math.sqrt(((0.2 - 0.4) ** 2 + (0.6 - 0.4) ** 2) / 1)
    assert b.sds == pytest.approx((sd, 0.0))
    assert (b.sd_mean, b.sd_max) == pytest.approx((sd / 2, sd))
    assert _rate(b.agree) == (1, 2)
    assert _rate(out[0].agree) == (1, 1) and out[0].sds == (0.0,)


def test_max_repeats() -> None:
    assert _analyses.max_repeats([]) == 0
    rows = [r("t1", "a", 0), r("t1", "a", 1), r("t1", "a", 2), r("t2", "a", 0)]
    assert _analyses.max_repeats(rows) == 3


# ---------------------------------------------------------------- ablations


def _card(name: str, role: str = "model", **options: Any) -> SolverCard:
    return SolverCard(
        name=name,
        kind="llm",
        role=role,  # type: ignore[arg-type]
        scaffold="pwb-agent",
        backbone="gpt",
        provider="p",
        options=options,
    )


def test_ablations_pair_solvers_that_differ_in_one_option() -> None:
    cards = {
        "a": _card("a", vision=True),
        "ab": _card("ab", vision=False, budget=5),  # differs from a in two options
        "b": _card("b", vision=True, budget=2),  # differs from a in `budget` (one-sided)
        "c": _card("c", vision=False),  # differs from a in `vision`
        "d": _card("d", vision=True, budget=3),  # differs from b in `budget`; not from c
        "x1": _card("x1", role="control", vision=True),
        "x2": _card("x2", role="control", vision=False),
    }
    rows = [
        r("t1", "a", scores=scores(1.0, 1, 0.9, whole=True)),
        r("t2", "a", scores=scores(0.5, 1, 0.5)),
        r("t9", "a", scores=scores(1.0, 1, 1.0, whole=True)),  # only a ran t9
        r("t5", "ab", scores=scores(1.0, 1, 1.0)),
        r("t7", "b", scores=scores(1.0, 1, 1.0)),  # shares no task with a
        r("t1", "c", scores=scores(0.0, 1, 0.1, whole=True)),
        r("t2", "c", status="harness_error"),  # no result: never scored, not a pair (#37)
        r("t1", "c", arm="full-spec", scores=scores(1.0, 0, 1.0)),
        r("t1", "d", scores=scores(1.0, 1, 1.0)),
        r("t1", "x1", scores=scores(1.0, 1, 1.0)),
        r("t1", "x2", scores=scores(0.0, 1, 0.0)),
    ]
    out = _analyses.ablations(rows, lambda s: cards[s])
    pairs = [(x.option, x.arm, x.a, x.b, x.a_value, x.b_value, x.pairs) for x in out]
    # a-ab differ in two options; a-b share no task; a-d differ in `budget` (one-sided)
    # on t1; c-d differ in two options; no control is paired.
    assert pairs == [
        ("vision", "staged", "a", "c", "True", "False", 1),
        ("budget", "staged", "a", "d", "None", "3", 1),
    ]
    ac = out[0]
    # Shared and scored: t1 only (c's t2 is a harness_error, t9 only a ran).
    assert ac.gate_delta.value == pytest.approx(1.0 - 0.0)
    assert ac.wcs_delta.value == pytest.approx(0.9 - 0.1)
    assert ac.gate_delta.tasks == 1 and ac.gate_delta.n == 1
    assert _rate(ac.task_a) == (1, 1)  # whole task on t1
    assert _rate(ac.task_b) == (1, 1)


def test_differing_option() -> None:
    one = _card("a", vision=True)
    assert _analyses._differing_option(one, _card("b", vision=False)) == "vision"
    assert _analyses._differing_option(one, _card("b", vision=True, extra=1)) == "extra"
    assert _analyses._differing_option(one, _card("b")) == "vision"
    assert _analyses._differing_option(one, _card("b", vision=False, extra=1)) is None
    assert _analyses._differing_option(one, _card("b", vision=True)) is None
    assert _analyses._differing_option(one, _card("b", role="control", vision=False)) is None
    other = msgspec.structs.replace(_card("b", vision=False), backbone="claude")
    assert _analyses._differing_option(one, other) is None


# ---------------------------------------------------------------- grid and cost


def test_grid_of_full_spec_models() -> None:
    cards = {
        "m": _card("m"),
        "bare": SolverCard(name="bare", kind="llm", role="model"),
        "ctl": _card("ctl", role="control"),
    }
    rows = [
        r("t1", "m", arm="full-spec", scores=scores(1.0, 0, 1.0)),
        r("t2", "m", arm="full-spec", scores=scores(0.5, 0, 0.5)),
        r("t1", "m", scores=scores(0.0, 0, 0.0)),  # staged: not in the grid
        r("t1", "bare", arm="full-spec", scores=scores(0.0, 0, 0.0)),
        r("t1", "ctl", arm="full-spec", scores=scores(1.0, 0, 1.0)),
        r("t2", "m", arm="full-spec", status="infra_error", scores=scores(0, 0, 0)),
    ]
    out = _analyses.grid(rows, lambda s: cards[s])
    assert [(g.scaffold, g.backbone, g.cells) for g in out] == [
        ("bare", "?", 1),
        ("pwb-agent", "gpt", 2),
    ]
    assert out[1].gate.value == 0.75 and _rate(out[1].final) == (1, 2)


def test_cost_per_solver_over_every_row() -> None:
    cards = {"m": _card("m"), "noop": _card("noop", role="control")}
    rows = [
        r("t1", "noop", input_tokens=0, cost_usd=0.0),
        r("t1", "m", input_tokens=100, output_tokens=20, cost_usd=0.5),
        r("t2", "m", status="infra_error", input_tokens=10, cost_usd=0.25),
    ]
    out = _analyses.cost(rows, lambda s: cards[s])
    assert [(c.solver, c.role, c.cells, c.tokens, c.cost_usd) for c in out] == [
        ("m", "model", 2, 130, 0.75),
        ("noop", "control", 1, 0, 0.0),
    ]


# ---------------------------------------------------------------- loading a run


def _write(run_dir: Path, rows: list[ManifestRow]) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    enc = msgspec.json.Encoder()
    (run_dir / "manifest.jsonl").write_bytes(b"".join(enc.encode(x) + b"\n" for x in rows))


def test_load_run_counts_each_kind_of_left_out_row(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks"
    h = {"t1": make_task(tasks, "t1", "edit"), "t2": make_task(tasks, "t2", "repair")}
    stale = {"t1": "f" * 64, "t2": "e" * 64}
    rows = [
        row("t1", "a", "staged", 0, stale),  # superseded below
        row("t1", "a", "staged", 1, stale),
        row("t2", "a", "staged", 0, stale),
        row("gone", "a", "staged", 0, h),
        row("gone", "a", "staged", 1, h),
        row("t1", "b", "staged", 0, h),
        row("t2", "b", "staged", 0, h),
        row("t1", "a", "staged", 0, h),  # written again: the last one wins
    ]
    _write(tmp_path / "run", rows)
    cards = [SolverCard(name="b", kind="llm", role="model")]
    (tmp_path / "run" / "solvers.json").write_bytes(msgspec.json.encode(cards))
    run = load_run(tmp_path / "run", tasks)
    s = run.stats
    assert (s.lines, s.superseded, s.stale_hash, s.missing_task, s.kept) == (8, 1, 2, 2, 3)
    assert [x.cell for x in run.rows] == ["t1/b/staged/0", "t2/b/staged/0", "t1/a/staged/0"]
    assert run.task_roots == {"t1": tasks / "t1", "t2": tasks / "t2"}
    assert run.cards == {"b": cards[0]} and run.card("b") == cards[0]
    assert run.card("noop").role == "control"


def test_a_task_that_no_longer_loads_is_missing(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks"
    h = {"t1": make_task(tasks, "t1", "edit")}
    (tasks / "t1" / "task.toml").write_text("not = [valid")
    _write(tmp_path / "run", [row("t1", "a", "staged", 0, h)])
    run = load_run(tmp_path / "run", tasks)
    assert (run.stats.missing_task, run.stats.kept, run.task_roots) == (1, 0, {})


def test_a_run_without_a_manifest_is_named(tmp_path: Path) -> None:
    path = tmp_path / "manifest.jsonl"
    with pytest.raises(ReportError, match=rf"^{path}: expected a manifest.jsonl, got none$"):
        read_manifest(path)
