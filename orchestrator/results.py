"""Typed verification results shared by the verifier, the cell, scoring and reports."""

from __future__ import annotations

from typing import Literal

import msgspec

from .contract import Gate

GateStatus = Literal["pass", "fail", "n/a"]


class _Rec(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    pass


class CheckResult(_Rec, frozen=True, kw_only=True):
    """One check (authored, or a health check on one state) at one checkpoint."""

    id: str  # authored check id, or "<gate>@<state>" for health checks
    gate: Gate
    state: str
    passed: bool
    observed: str = ""
    # Grounded message: describe + state (route, viewport, actions) + what was seen.
    message: str = ""
    authored: bool = True
    # False: the check could not be evaluated here (e.g. the state never loaded, or the
    # stack has no build step); `observed` says why. It counts neither as pass nor fail.
    applicable: bool = True
    # A failing visual check: where its render differs from the reference (x, y, w, h).
    region: tuple[int, int, int, int] | None = None

    @property
    def failed(self) -> bool:
        return self.applicable and not self.passed


class GateResult(_Rec, frozen=True, kw_only=True):
    gate: Gate
    status: GateStatus
    failed_checks: tuple[str, ...] = ()
    reason: str = ""  # why the gate is not applicable, when it is not


class StateRun(_Rec, frozen=True, kw_only=True):
    state: str
    route: str
    viewport: str
    duration_s: float
    screenshot: str = ""  # artifact path relative to the cell/artifact dir
    error: str = ""
    # Replay reuse (`verifier/_reuse.py`): why this state's observation was carried over
    # from an earlier checkpoint, or why it was replayed (one of the two is set).
    reused: str = ""
    replayed: str = ""
    # Replayed on a page of a reused warm context ("warm") or in a new context ("fresh"),
    # and the state whose replay evaluated this one's checks too (`verifier/_share.py`).
    context: str = ""
    shared_with: str = ""


class VerifyReport(_Rec, frozen=True, kw_only=True):
    checks: tuple[CheckResult, ...]
    gates: tuple[GateResult, ...]
    states: tuple[StateRun, ...] = ()
    # Why warm contexts were closed instead of reused (`verifier/_browser_warm.py`).
    warm_discarded: tuple[str, ...] = ()

    def check(self, check_id: str) -> CheckResult | None:
        for c in self.checks:
            if c.id == check_id:
                return c
        return None

    def gate(self, gate: Gate) -> GateResult:
        for g in self.gates:
            if g.gate == gate:
                return g
        return GateResult(gate=gate, status="n/a")

    @property
    def failed(self) -> tuple[CheckResult, ...]:
        return tuple(c for c in self.checks if c.failed)
