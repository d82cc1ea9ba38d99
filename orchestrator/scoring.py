"""Per-cell scores (DESIGN.md §5). Pure functions: no I/O."""

from __future__ import annotations

import msgspec

from .contract import (
    BROAD_CONTINUITY_GATES,
    COMPLETION_GATES,
    CONSERVATIVE_CONTINUITY_GATES,
    Gate,
)
from .records import BaselineRegression, Flip, Scores, UnitOutcome
from .results import GateStatus


class Weights(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    stage: float = 0.4
    gate: float = 0.4
    final_pass: float = 0.2
    per_break: float = 0.05


def _all_pass(gates: dict[str, GateStatus], family: frozenset[Gate]) -> bool:
    return all(gates.get(g, "n/a") != "fail" for g in family)


def score_cell(
    units: tuple[UnitOutcome, ...],
    final_gates: dict[str, GateStatus],
    flips: tuple[Flip, ...],
    weights: Weights = Weights(),
) -> Scores:
    stage = sum(u.cleared for u in units) / len(units) if units else 0.0
    applicable = [s for s in final_gates.values() if s != "n/a"]
    gate = sum(s == "pass" for s in applicable) / len(applicable) if applicable else 0.0
    final_pass = bool(applicable) and all(s == "pass" for s in applicable)
    breaks = len(flips)
    wcs = (
        weights.stage * stage
        + weights.gate * gate
        + weights.final_pass * final_pass
        - weights.per_break * breaks
    )
    completion = _all_pass(final_gates, COMPLETION_GATES)
    conservative = _all_pass(final_gates, CONSERVATIVE_CONTINUITY_GATES)
    broad = _all_pass(final_gates, BROAD_CONTINUITY_GATES)
    return Scores(
        stage=stage,
        gate=gate,
        final_pass=final_pass,
        breaks=breaks,
        whole_task=all(u.cleared for u in units) and final_pass and breaks == 0,
        wcs=min(1.0, max(0.0, wcs)),
        completion_pass=completion,
        continuity_pass=conservative,
        continuity_pass_broad=broad,
        complete_not_cleared=completion and not conservative,
        complete_not_cleared_broad=completion and not broad,
    )


def baseline_regressions(
    baseline_gates: dict[str, GateStatus],
    final_gates: dict[str, GateStatus],
    final_failed: dict[str, tuple[str, ...]],
) -> tuple[BaselineRegression, ...]:
    """Gates R0 passes and the final workspace fails (the baseline channel)."""
    return tuple(
        BaselineRegression(gate=g, failed_checks=final_failed.get(g, ()))  # type: ignore[arg-type]
        for g, s in baseline_gates.items()
        if s == "pass" and final_gates.get(g) == "fail"
    )
