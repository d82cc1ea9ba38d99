"""The per-cell score rules, term by term (issue #18): each test names the rule it guards,
and a wrong sign, bound or population in orchestrator/scoring.py makes one of them fail."""

from __future__ import annotations

import pytest

from orchestrator.contract import (
    BROAD_CONTINUITY_GATES,
    COMPLETION_GATES,
    CONSERVATIVE_CONTINUITY_GATES,
    GATES,
    Gate,
)
from orchestrator.records import BaselineRegression, Flip, GateStatus, UnitOutcome
from orchestrator.scoring import Weights, baseline_regressions, score_cell

ALL_PASS: dict[Gate, GateStatus] = dict.fromkeys(GATES, "pass")


def _unit(i: int, cleared: bool) -> UnitOutcome:
    return UnitOutcome(id=f"u{i}", kind="stage", cleared=cleared, capped=not cleared, turns=1)


def _flips(n: int) -> tuple[Flip, ...]:
    return tuple(Flip(check=f"c{i}", gate="text", passed_at=1, failed_at=2) for i in range(n))


def test_wcs_break_penalty_lowers_the_score() -> None:
    # Half the stages, every gate, no final pass is impossible with every gate passing,
    # so take a score well inside (0, 1): a break must take per_break off, not add it.
    units = (_unit(0, True), _unit(1, False))
    clean = score_cell(units, ALL_PASS, ())
    broken = score_cell(units, ALL_PASS, _flips(2))
    assert 0.0 < clean.wcs < 1.0
    assert broken.breaks == 2
    assert broken.wcs == pytest.approx(clean.wcs - 2 * Weights().per_break)
    assert Weights().wcs(0.5, 1.0, True, 3) == pytest.approx(0.875 - 0.15)


def test_wcs_lower_clamp_holds_a_negative_score_at_zero() -> None:
    # Nothing cleared, every gate failing, one break: the raw sum is -per_break.
    all_fail: dict[Gate, GateStatus] = dict.fromkeys(GATES, "fail")
    s = score_cell((_unit(0, False),), all_fail, _flips(1))
    assert s.stage == 0.0 and s.gate == 0.0 and not s.final_pass and s.breaks == 1
    assert s.wcs == 0.0
    assert Weights().wcs(0.0, 0.0, False, 1) == 0.0
    assert Weights().wcs(0.0, 0.1, False, 5) == 0.0  # 0.025 - 0.25 is still held at 0


def test_wcs_weights_each_term_as_configured() -> None:
    w = Weights(stage=0.5, gate=0.3, final_pass=0.2, per_break=0.1, max_break=0.3)
    assert w.wcs(1.0, 0.0, False, 0) == pytest.approx(0.5)
    assert w.wcs(0.0, 1.0, False, 0) == pytest.approx(0.3)
    assert w.wcs(0.0, 0.0, True, 0) == pytest.approx(0.2)
    assert w.wcs(1.0, 1.0, True, 1) == pytest.approx(0.9)
    assert w.wcs(1.0, 1.0, True, 3) == pytest.approx(0.7)  # 0.3 = max_break exactly
    assert w.wcs(1.0, 1.0, True, 4) == pytest.approx(0.7)  # capped at max_break


@pytest.mark.parametrize("term", ["stage", "gate", "final_pass", "per_break", "max_break"])
def test_weights_refuse_a_term_outside_0_1(term: str) -> None:
    for bad in (-0.01, 1.01):
        with pytest.raises(ValueError, match=f"{term} must be between 0 and 1"):
            Weights(**{term: bad})


def test_weights_accept_the_bounds_of_0_1() -> None:
    Weights(stage=1.0, gate=0.0, final_pass=0.0, per_break=0.0, max_break=0.0)
    Weights(stage=0.0, gate=0.0, final_pass=1.0, per_break=1.0, max_break=0.99)


def test_weights_must_sum_to_one_and_bound_the_break_below_it() -> None:
    with pytest.raises(ValueError, match=r"must sum to 1, got 1\.1"):
        Weights(stage=0.5, gate=0.3, final_pass=0.3)
    with pytest.raises(ValueError, match=r"must sum to 1, got 0\.9"):
        Weights(stage=0.5, gate=0.3, final_pass=0.1)
    Weights(stage=0.5, gate=0.3, final_pass=0.2 + 1e-12)  # float noise is not an error
    with pytest.raises(
        ValueError, match=r"max_break must be below 1 \(the positive terms\), got 1"
    ):
        Weights(max_break=1.0)


def test_stage_score_is_the_fraction_of_units_cleared() -> None:
    s = score_cell((_unit(0, True), _unit(1, False), _unit(2, True), _unit(3, False)), {}, ())
    assert s.stage == 0.5
    assert score_cell((), ALL_PASS, ()).stage == 0.0


def test_gate_score_counts_applicable_gates_only() -> None:
    gates: dict[Gate, GateStatus] = {"dom": "pass", "text": "fail", "routes": "n/a", "a11y": "pass"}
    s = score_cell((_unit(0, True),), gates, ())
    assert s.gate == pytest.approx(2 / 3)
    assert not s.final_pass


def test_final_pass_needs_an_applicable_gate_and_no_failure() -> None:
    assert score_cell((_unit(0, True),), {"dom": "pass", "routes": "n/a"}, ()).final_pass
    nothing: dict[Gate, GateStatus] = {"dom": "n/a"}
    s = score_cell((_unit(0, True),), nothing, ())
    assert not s.final_pass and s.gate == 0.0
    assert not score_cell((_unit(0, True),), {}, ()).final_pass


def test_whole_task_needs_every_unit_the_final_pass_and_no_break() -> None:
    cleared = (_unit(0, True), _unit(1, True))
    assert score_cell(cleared, ALL_PASS, ()).whole_task
    assert not score_cell((_unit(0, True), _unit(1, False)), ALL_PASS, ()).whole_task
    assert not score_cell(cleared, ALL_PASS | {"scope": "fail"}, ()).whole_task
    assert not score_cell(cleared, ALL_PASS, _flips(1)).whole_task


@pytest.mark.parametrize("gate", GATES)
def test_one_failing_gate_fails_exactly_its_families(gate: Gate) -> None:
    s = score_cell((_unit(0, True),), ALL_PASS | {gate: "fail"}, ())
    assert s.completion_pass is (gate not in COMPLETION_GATES)
    assert s.continuity_pass is (gate not in CONSERVATIVE_CONTINUITY_GATES)
    assert s.continuity_pass_broad is (gate not in BROAD_CONTINUITY_GATES)
    assert s.complete_not_cleared is (s.completion_pass and not s.continuity_pass)
    assert s.complete_not_cleared_broad is (s.completion_pass and not s.continuity_pass_broad)


def test_na_and_missing_gates_do_not_fail_a_family() -> None:
    s = score_cell((_unit(0, True),), {"dom": "n/a"}, ())
    assert s.completion_pass and s.continuity_pass and s.continuity_pass_broad
    assert not s.complete_not_cleared and not s.complete_not_cleared_broad


def test_complete_but_not_cleared_when_only_continuity_fails() -> None:
    s = score_cell((_unit(0, True),), ALL_PASS | {"visual_regression": "fail"}, ())
    assert s.completion_pass and s.continuity_pass and not s.continuity_pass_broad
    assert not s.complete_not_cleared and s.complete_not_cleared_broad


def test_baseline_regression_is_a_gate_r0_passes_and_the_final_fails() -> None:
    r0: dict[Gate, GateStatus] = {"dom": "pass", "text": "pass", "a11y": "fail", "routes": "pass"}
    final: dict[Gate, GateStatus] = {"dom": "fail", "text": "pass", "a11y": "fail", "routes": "n/a"}
    got = baseline_regressions(r0, final, {"dom": ("dom-1", "dom-2"), "a11y": ("a-1",)})
    assert got == (BaselineRegression(gate="dom", failed_checks=("dom-1", "dom-2")),)
    assert baseline_regressions(r0, final, {}) == (BaselineRegression(gate="dom"),)
    assert baseline_regressions(r0, {}, {}) == ()
