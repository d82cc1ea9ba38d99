"""Admission of a negative (#23): extra failing gates reported, per-check verdicts kept,
and a negative replayed `--repeat K` times whose verdicts change is not admitted."""

from __future__ import annotations

from orchestrator.admission import ControlResult, TaskAdmission, judge_negative
from orchestrator.commands.admit import render
from orchestrator.contract import Gate, Negative
from orchestrator.records import CheckResult, VerifyReport
from orchestrator.verifier import gate_results

NEG = Negative(name="drawer", expect_fail=("containment",), why="w")


def report(**verdicts: bool) -> VerifyReport:
    gates: dict[str, Gate] = {"box": "containment", "wide": "layout_overflow", "h1": "text"}
    checks = tuple(
        CheckResult(id=k, gate=gates[k], state="s", passed=v) for k, v in verdicts.items()
    )
    return VerifyReport(checks=checks, gates=gate_results(checks))


def test_extra_gates_and_checks_are_kept() -> None:
    c = judge_negative(NEG, [report(box=False, wide=False, h1=True)])
    assert c.ok and c.runs == 1 and not c.unstable_checks
    assert c.extra_gates == ("layout_overflow",)
    assert c.checks == {"box": False, "wide": False, "h1": True}


def test_a_negative_that_misses_is_refused() -> None:
    c = judge_negative(NEG, [report(box=True, wide=False, h1=True)])
    assert not c.ok and c.detail == "did not fail containment"
    assert not judge_negative(NEG, [report(box=True, wide=True, h1=True)]).ok


def test_a_flaky_negative_is_refused() -> None:
    # Caught as expected both times, but the extra gate's check flips: unstable.
    runs = [report(box=False, wide=False, h1=True), report(box=False, wide=True, h1=True)]
    c = judge_negative(NEG, runs)
    assert not c.ok and c.runs == 2 and c.unstable_checks == ("wide",)
    assert "flaky over 2 runs: wide" in c.detail
    # A run that misses the expected gate is named.
    runs = [report(box=False, wide=True, h1=False), report(box=True, wide=True, h1=False)]
    c = judge_negative(NEG, runs)
    assert not c.ok and "run 2: did not fail containment" in c.detail
    stable = [report(box=False, wide=True, h1=True)] * 3
    assert judge_negative(NEG, stable).ok


def test_report_columns() -> None:
    flaky = judge_negative(
        NEG, [report(box=False, wide=False, h1=True), report(box=False, wide=True, h1=True)]
    )
    steady = judge_negative(NEG, [report(box=False, wide=False, h1=True)] * 2)
    ref = ControlResult(control="reference", ok=True)
    adm = TaskAdmission(task="t", contract_hash="h", admitted=False, controls=(ref, steady, flaky))
    text = render([adm])
    assert "| extra gates | stable |" in text
    assert "| containment, layout_overflow | containment | layout_overflow | 2/2 runs |" in text
    assert "NO (1 of 3 checks changed in 2 runs)" in text


def test_a_moot_check_is_stored_as_not_applicable_never_as_false() -> None:
    """Moot gates are `passed = False, applicable = False`: admission.json stores null
    for them, and an older file with booleans still reads (issue #37)."""
    import msgspec

    from orchestrator.admission import verdict

    moot = CheckResult(id="build@run", gate="build", state="run", passed=False, applicable=False)
    checks = (*report(box=False, wide=False, h1=True).checks, moot)
    c = judge_negative(NEG, [VerifyReport(checks=checks, gates=gate_results(checks))])
    assert c.checks == {"box": False, "wide": False, "h1": True, "build@run": None}
    assert verdict(moot) is None and verdict(checks[2]) is True
    adm = TaskAdmission(task="t", contract_hash="h", admitted=True, controls=(c,))
    data = msgspec.json.encode(adm)
    assert b'"build@run":null' in data
    assert msgspec.json.decode(data, type=TaskAdmission) == adm
    old = data.replace(b'"build@run":null', b'"build@run":false')
    assert msgspec.json.decode(old, type=TaskAdmission).controls[0].checks["build@run"] is False
