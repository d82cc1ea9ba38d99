from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.cell._flips import FlipTracker
from orchestrator.contract import load_task
from orchestrator.persona import NOT_SPECIFIED, SimulatedUser
from orchestrator.records import CheckResult, GateResult, UnitOutcome, VerifyReport
from orchestrator.scoring import Weights, score_cell
from tests.fixtures.tinytask import make_tiny_task


def test_persona_wraps_requests_answers_faq_and_quotes_failures(tmp_path: Path) -> None:
    task = load_task(make_tiny_task(tmp_path))
    user = SimulatedUser(task.contract)
    unit = task.contract.units[0]
    assert unit.request in user.reveal(unit, 0)
    assert "(1 of 3)" in user.reveal(unit, 0)
    assert user.answer("what wording should the greeting use exactly?", task.contract.units) == (
        "Welcome back"
    )
    assert user.answer("Which font do you prefer?", task.contract.units) == NOT_SPECIFIED
    failure = CheckResult(
        id="greeting-text", gate="text", state="home", passed=False, message="The greeting ..."
    )
    assert "- The greeting ..." in user.pushback([failure])
    assert "greeting-text" not in user.pushback([failure])  # ids are the grader's, not the user's


def _units(*cleared: bool) -> tuple[UnitOutcome, ...]:
    return tuple(
        UnitOutcome(id=f"u{i}", kind="stage", cleared=c, capped=not c, turns=1)
        for i, c in enumerate(cleared)
    )


def test_wcs_formula_and_clamp() -> None:
    gates = {"dom": "pass", "text": "pass", "navigation": "fail", "console": "n/a"}
    s = score_cell(_units(True, False), gates, ())  # type: ignore[arg-type]
    assert s.stage == 0.5
    assert s.gate == pytest.approx(2 / 3)
    assert not s.final_pass
    assert s.wcs == pytest.approx(0.25 * 0.5 + 0.25 * 2 / 3)
    assert s.complete_not_cleared and not s.whole_task
    zero = score_cell(_units(False), {"dom": "fail"}, (), Weights(per_break=1.0, max_break=0.9))
    assert zero.wcs == 0.0


def _report(results: dict[str, bool]) -> VerifyReport:
    checks = tuple(CheckResult(id=k, gate="text", state="s", passed=v) for k, v in results.items())
    return VerifyReport(checks=checks, gates=(GateResult(gate="text", status="pass"),))


def test_flip_provenance_passed_failed_repaired() -> None:
    t = FlipTracker()
    armed = {"a", "b"}
    t.observe(1, _report({"a": True, "b": False}), armed)
    new, _ = t.observe(2, _report({"a": False, "b": False}), armed)
    assert [(f.check, f.passed_at, f.failed_at) for f in new] == [("a", 1, 2)]
    t.observe(3, _report({"a": False, "b": True}), armed)
    _, repaired = t.observe(4, _report({"a": True, "b": True}), armed)
    assert [(f.check, f.repaired_at) for f in repaired] == [("a", 4)]
    assert len(t.flips) == 1 and t.flips[0].repaired_at == 4
    t.observe(5, _report({"a": True, "b": False}), {"a"})  # b is not armed: no flip
    assert len(t.flips) == 1


def test_literal_wording_drops_the_persona_and_keeps_the_requirement(tmp_path: Path) -> None:
    task = load_task(make_tiny_task(tmp_path))
    unit = task.contract.units[0]
    persona = SimulatedUser(task.contract)
    literal = SimulatedUser(task.contract, "literal")
    assert persona.reveal(unit, 0).startswith("Next request from product")
    assert literal.reveal(unit, 0) == f"Requirement 1 of 3:\n\n{unit.request.strip()}"
    failure = CheckResult(id="x", gate="text", state="home", passed=False, message="Greeting off")
    assert literal.pushback([failure]).startswith("These requirements are not met yet:")
    assert "- Greeting off" in literal.pushback([failure])
    assert "not there yet" in persona.pushback([failure])
