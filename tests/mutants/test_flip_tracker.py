"""Protected-state flips with provenance (orchestrator/cell/_flips.py), checkpoint by
checkpoint: passed at k, failed at k', repaired at k'' (issue #18)."""

from __future__ import annotations

from orchestrator.cell._flips import FlipTracker
from orchestrator.records import CheckResult, Flip, VerifyReport


def _report(*checks: tuple[str, bool] | CheckResult) -> VerifyReport:
    out = [
        c
        if isinstance(c, CheckResult)
        else CheckResult(id=c[0], gate="text", state="home", passed=c[1])
        for c in checks
    ]
    return VerifyReport(checks=tuple(out), gates=())


def test_flip_passed_at_is_the_last_checkpoint_that_passed_not_the_previous_one() -> None:
    t = FlipTracker()
    t.observe(1, _report(("a", True)), {"a"})
    t.observe(2, _report(("b", True)), {"a"})  # `a` not verified at checkpoint 2
    t.observe(3, _report(("b", True)), {"a"})
    new, repaired = t.observe(4, _report(("a", False)), {"a"})
    assert new == [Flip(check="a", gate="text", passed_at=1, failed_at=4)]
    assert repaired == [] and t.flips == new


def test_flip_needs_an_armed_check_that_passed_before() -> None:
    t = FlipTracker()
    assert t.observe(1, _report(("a", False)), {"a"}) == ([], [])  # never passed
    t.observe(2, _report(("a", True), ("b", True)), {"a"})
    assert t.observe(3, _report(("b", False)), {"a"}) == ([], [])  # `b` is not armed
    assert t.flips == []


def test_health_checks_never_flip() -> None:
    health = CheckResult(id="routes@home", gate="routes", state="home", passed=True, authored=False)
    broken = CheckResult(
        id="routes@home", gate="routes", state="home", passed=False, authored=False
    )
    t = FlipTracker()
    t.observe(1, _report(health), {"routes@home"})
    assert t.observe(2, _report(broken), {"routes@home"}) == ([], [])
    assert t.flips == []


def test_an_open_flip_is_counted_once_then_repaired_in_place() -> None:
    t = FlipTracker()
    t.observe(1, _report(("a", True), ("b", True)), {"a", "b"})
    new, _ = t.observe(2, _report(("a", False), ("b", False)), {"a", "b"})
    assert [f.check for f in new] == ["a", "b"]
    assert t.observe(3, _report(("a", False), ("b", False)), {"a", "b"}) == ([], [])
    new, repaired = t.observe(4, _report(("a", True), ("b", False)), {"a", "b"})
    assert new == []
    assert repaired == [Flip(check="a", gate="text", passed_at=1, failed_at=2, repaired_at=4)]
    assert t.flips == [repaired[0], Flip(check="b", gate="text", passed_at=1, failed_at=2)]


def test_a_check_that_breaks_again_after_a_repair_is_a_new_flip_from_the_repair() -> None:
    t = FlipTracker()
    t.observe(1, _report(("a", True)), {"a"})
    t.observe(2, _report(("a", False)), {"a"})
    t.observe(3, _report(("a", True)), {"a"})
    new, _ = t.observe(5, _report(("a", False)), {"a"})
    assert new == [Flip(check="a", gate="text", passed_at=3, failed_at=5)]
    assert [f.repaired_at for f in t.flips] == [3, None]
    assert len(t.flips) == 2


def test_a_check_that_passes_unarmed_is_remembered_once_armed() -> None:
    # Preservation checks pass from R0 on before any unit arms them.
    t = FlipTracker()
    t.observe(1, _report(("p", True)), set())
    new, _ = t.observe(2, _report(("p", False)), {"p"})
    assert new == [Flip(check="p", gate="text", passed_at=1, failed_at=2)]


def test_checks_after_a_skipped_one_are_still_followed() -> None:
    health = CheckResult(id="routes@home", gate="routes", state="home", passed=True, authored=False)
    na = CheckResult(id="n", gate="text", state="home", passed=False, applicable=False)
    t = FlipTracker()
    t.observe(1, _report(health, na, ("a", True)), {"a", "n"})
    new, _ = t.observe(2, _report(health, na, ("a", False)), {"a", "n"})
    assert new == [Flip(check="a", gate="text", passed_at=1, failed_at=2)]


def test_a_check_that_is_not_applicable_neither_passes_nor_flips() -> None:
    t = FlipTracker()
    na_pass = CheckResult(id="a", gate="text", state="home", passed=True, applicable=False)
    t.observe(1, _report(na_pass), {"a"})
    assert t.observe(2, _report(("a", False)), {"a"}) == ([], [])  # never really passed
    t.observe(3, _report(("a", True)), {"a"})
    na_fail = CheckResult(id="a", gate="text", state="home", passed=False, applicable=False)
    assert t.observe(4, _report(na_fail), {"a"}) == ([], [])
