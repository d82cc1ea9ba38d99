"""Records written to disk: the manifest row (one per cell) and its parts.

Versioned by `schema`; every field is typed so reports never guess.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from .contract import Capability, Facet, Gate, Regime, UnitKind
from .results import GateStatus

Status = Literal["ok", "infra_error", "llm_error", "budget", "cancelled"]
Arm = Literal["staged", "full-spec"]
SCHEMA_VERSION = 1


class _Rec(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    pass


class UnitOutcome(_Rec, frozen=True, kw_only=True):
    id: str
    kind: UnitKind
    cleared: bool
    capped: bool
    turns: int
    cleared_at: int | None = None  # checkpoint index where it cleared


class Flip(_Rec, frozen=True, kw_only=True):
    """A protected check that passed at checkpoint `passed_at` and failed at `failed_at`."""

    check: str
    gate: Gate
    passed_at: int
    failed_at: int
    repaired_at: int | None = None


class BaselineRegression(_Rec, frozen=True, kw_only=True):
    """A gate the untouched R0 passes and the final workspace fails."""

    gate: Gate
    failed_checks: tuple[str, ...] = ()


class Scores(_Rec, frozen=True, kw_only=True):
    stage: float
    gate: float
    final_pass: bool
    breaks: int
    whole_task: bool
    wcs: float
    completion_pass: bool
    continuity_pass: bool  # conservative: gates 5-18
    continuity_pass_broad: bool  # adds visual_regression
    complete_not_cleared: bool
    complete_not_cleared_broad: bool


class Labels(_Rec, frozen=True, kw_only=True):
    regime: Regime
    capability: Capability
    facet: Facet
    stack: str
    framework: str


class ManifestRow(_Rec, frozen=True, kw_only=True):
    schema: int = SCHEMA_VERSION
    sweep: str
    cell: str  # stable key: task/solver/arm/repeat
    task: str
    labels: Labels
    contract_hash: str
    config_hash: str
    image: str = ""
    backend: str = ""  # "docker" | "local" (no isolation); "" in rows of older sweeps
    solver: str
    arm: Arm
    repeat: int = 0
    status: Status
    error: str = ""
    units: tuple[UnitOutcome, ...] = ()
    final_gates: dict[str, GateStatus] = {}
    scores: Scores | None = None
    flips: tuple[Flip, ...] = ()
    baseline_regressions: tuple[BaselineRegression, ...] = ()
    baseline_covered: bool = False
    edits_applied: int = 0
    edits_refused: int = 0
    turns: int = 0
    checkpoints: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    wall_s: float = 0.0
    attempts: int = 1
    started_at: float = 0.0
    finished_at: float = 0.0
