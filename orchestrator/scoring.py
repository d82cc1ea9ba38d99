"""Per-cell scores (DESIGN.md §5). Pure functions: no I/O."""

from __future__ import annotations

import msgspec

from .contract import (
    BROAD_CONTINUITY_GATES,
    COMPLETION_GATES,
    CONSERVATIVE_CONTINUITY_GATES,
    Gate,
)
from .records import BaselineRegression, Flip, GateStatus, Scores, UnitOutcome


class Weights(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The WCS terms (README "Scores"). Eq. 3 is cited by the paper but not printed in it;
    the defaults are read off its one worked value, Appendix J.1: 4 stages + 2 reworks,
    3 of 6 cleared, 19/19 final gates, no break -> 0.875. With the positive weights
    summing to 1 that pins `stage` at 0.25; the rest goes 0.25 to Gate% and 0.5 to the
    final pass so a `noop` (no stage, no final pass) stays below 0.25."""

    stage: float = 0.25
    gate: float = 0.25
    final_pass: float = 0.5
    per_break: float = 0.05
    # The break term never takes more than this: one run of flips cannot erase the rest.
    max_break: float = 0.25

    def __post_init__(self) -> None:
        terms = {
            "stage": self.stage,
            "gate": self.gate,
            "final_pass": self.final_pass,
            "per_break": self.per_break,
            "max_break": self.max_break,
        }
        for name, value in terms.items():
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be between 0 and 1, got {value}")
        total = self.stage + self.gate + self.final_pass
        if abs(total - 1.0) > 1e-9:
            raise ValueError(f"stage + gate + final_pass must sum to 1, got {total:g}")
        if self.max_break >= total:
            raise ValueError(
                f"max_break must be below 1 (the positive terms), got {self.max_break}"
            )

    def wcs(self, stage: float, gate: float, final_pass: bool, breaks: int) -> float:
        penalty = min(self.max_break, self.per_break * breaks)
        raw = self.stage * stage + self.gate * gate + self.final_pass * final_pass - penalty
        return min(1.0, max(0.0, raw))


def _all_pass(gates: dict[Gate, GateStatus], family: frozenset[Gate]) -> bool:
    return all(gates.get(g, "n/a") != "fail" for g in family)


def score_cell(
    units: tuple[UnitOutcome, ...],
    final_gates: dict[Gate, GateStatus],
    flips: tuple[Flip, ...],
    weights: Weights = Weights(),
) -> Scores:
    stage = sum(u.cleared for u in units) / len(units) if units else 0.0
    applicable = [s for s in final_gates.values() if s != "n/a"]
    gate = sum(s == "pass" for s in applicable) / len(applicable) if applicable else 0.0
    final_pass = bool(applicable) and all(s == "pass" for s in applicable)
    breaks = len(flips)
    completion = _all_pass(final_gates, COMPLETION_GATES)
    conservative = _all_pass(final_gates, CONSERVATIVE_CONTINUITY_GATES)
    broad = _all_pass(final_gates, BROAD_CONTINUITY_GATES)
    return Scores(
        stage=stage,
        gate=gate,
        final_pass=final_pass,
        breaks=breaks,
        whole_task=all(u.cleared for u in units) and final_pass and breaks == 0,
        wcs=weights.wcs(stage, gate, final_pass, breaks),
        completion_pass=completion,
        continuity_pass=conservative,
        continuity_pass_broad=broad,
        complete_not_cleared=completion and not conservative,
        complete_not_cleared_broad=completion and not broad,
    )


def baseline_regressions(
    baseline_gates: dict[Gate, GateStatus],
    final_gates: dict[Gate, GateStatus],
    final_failed: dict[Gate, tuple[str, ...]],
) -> tuple[BaselineRegression, ...]:
    """Gates R0 passes and the final workspace fails (the baseline channel)."""
    return tuple(
        BaselineRegression(gate=g, failed_checks=final_failed.get(g, ()))
        for g, s in baseline_gates.items()
        if s == "pass" and final_gates.get(g) == "fail"
    )
