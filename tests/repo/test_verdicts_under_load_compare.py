"""The recorded run of issue #14 (tests/perf/verdicts_under_load.py) is a check: its
comparison must name every difference between the idle and the loaded admission."""

from __future__ import annotations

from pathlib import Path

from orchestrator.admission import ControlResult, TaskAdmission
from tests.perf.verdicts_under_load import _burners, compare


def _adm(
    checks: dict[str, bool | None], *, ok: bool = True, flaky: tuple[str, ...] = ()
) -> TaskAdmission:
    return TaskAdmission(
        task="t",
        contract_hash="h",
        admitted=ok and not flaky,
        controls=(ControlResult(control="reference", ok=ok),),
        flaky_checks=flaky,
        reference_checks=checks,
    )


def test_identical_runs_have_no_differences() -> None:
    a = _adm({"1:c1": True, "2:c2": False})
    assert compare([a], [_adm({"1:c1": True, "2:c2": False})]) == []


def test_a_changed_reference_verdict_is_named() -> None:
    problems = compare([_adm({"1:c1": True, "2:c2": True})], [_adm({"1:c1": True, "2:c2": False})])
    assert any("2:c2" in p for p in problems), problems


def test_a_missing_check_a_failed_control_and_flaky_checks_are_differences() -> None:
    idle = _adm({"1:c1": True, "1:c3": True})
    assert any("1:c3" in p for p in compare([idle], [_adm({"1:c1": True})]))
    assert any(
        "controls differ" in p for p in compare([idle], [_adm(idle.reference_checks, ok=False)])
    )
    flaky = compare([idle], [_adm(idle.reference_checks, flaky=("1:c1",))])
    assert any("flaky" in p for p in flaky), flaky
    assert any("missing" in p for p in compare([idle], []))


def test_a_reused_loaded_record_reports_its_own_burner_count(tmp_path: Path) -> None:
    (tmp_path / "burners").write_text("7\n")
    assert _burners(tmp_path) == 7
