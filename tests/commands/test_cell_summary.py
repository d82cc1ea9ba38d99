"""`cell`'s summary names the final checkpoint's failing checks (#54's kit gap: an author
read `events.jsonl` to learn which accessibility rule a negative broke), by gate, never
a passing or an inapplicable one, and cut at a bound."""

from __future__ import annotations

from orchestrator.commands.cell import failing_checks
from orchestrator.events import CheckpointSummary
from orchestrator.records import CheckResult


def _check(cid: str, gate: str, *, passed: bool = False, applicable: bool = True) -> CheckResult:
    return CheckResult(
        id=cid,
        gate=gate,  # type: ignore[arg-type]
        state="home",
        passed=passed,
        message=f"{cid} as seen",
        applicable=applicable,
    )


def _final(*checks: CheckResult) -> CheckpointSummary:
    failed = sum(not c.passed for c in checks)
    return CheckpointSummary(
        index=4,
        unit="",
        build_ok=True,
        serve_ok=True,
        passed=len(checks) - failed,
        failed=failed,
        gates={},
        checks=checks,
    )


def test_the_final_names_each_failing_check_by_gate() -> None:
    final = _final(
        _check("u1-title", "text", passed=True),
        _check("a11y-title@home", "regression_text"),
        _check("layout_overflow@phone", "layout_overflow"),
        _check("nav-order", "navigation", applicable=False),
    )
    assert failing_checks(final) == [
        "    fail layout_overflow  layout_overflow@phone: layout_overflow@phone as seen",
        "    fail regression_text  a11y-title@home: a11y-title@home as seen",
    ]


def test_a_long_list_is_cut_with_a_count() -> None:
    final = _final(*(_check(f"c{i:02}", "text") for i in range(30)))
    lines = failing_checks(final, most=5)
    assert len(lines) == 6 and lines[-1] == "    ... and 25 more (events.jsonl)"
