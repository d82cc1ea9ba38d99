"""msgspec types of a task package's contract (``task.toml``), DESIGN.md §3: the gates
and labels, states, checks, units, negatives, the serve commands and the contract.

Every struct forbids unknown fields so that a typo in ``task.toml`` is an error
that names the key, not a silently ignored setting (`_base.py`); a state's actions
are in `_actions.py`, a check's assertions in `_asserts.py`.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from ._actions import Action
from ._asserts import Assertion
from ._base import Viewport, _Strict

Gate = Literal[
    "dom",
    "text",
    "interaction",
    "a11y",
    "regression_text",
    "visual_anchors",
    "design_tokens",
    "layout_overflow",
    "containment",
    "state_artifacts",
    "navigation",
    "routes",
    "console",
    "network",
    "assets",
    "build",
    "serve",
    "scope",
    "visual_regression",
]

GATES: tuple[Gate, ...] = (
    "dom",
    "text",
    "interaction",
    "a11y",
    "regression_text",
    "visual_anchors",
    "design_tokens",
    "layout_overflow",
    "containment",
    "state_artifacts",
    "navigation",
    "routes",
    "console",
    "network",
    "assets",
    "build",
    "serve",
    "scope",
    "visual_regression",
)
COMPLETION_GATES: frozenset[Gate] = frozenset(GATES[:4])
CONSERVATIVE_CONTINUITY_GATES: frozenset[Gate] = frozenset(GATES[4:18])
BROAD_CONTINUITY_GATES: frozenset[Gate] = frozenset(GATES[4:])
# Gates the verifier applies to every state without authoring.
STATE_HEALTH_GATES: frozenset[Gate] = frozenset(
    {"layout_overflow", "routes", "console", "network", "assets"}
)
# Gates decided outside the browser (sandbox and workspace diff).
RUN_HEALTH_GATES: frozenset[Gate] = frozenset({"build", "serve", "scope"})

Regime = Literal["change", "build"]
Capability = Literal["edit", "repair", "consistency", "build"]
Facet = Literal[
    "state", "design", "experience", "content", "regression", "implementation", "construction"
]
Persona = Literal["pm", "qa", "designer"]
UnitKind = Literal["stage", "rework"]

DEFAULT_PERSONA: dict[Capability, Persona] = {
    "edit": "pm",
    "build": "pm",
    "repair": "qa",
    "consistency": "designer",
}


class State(_Strict, frozen=True, kw_only=True):
    id: str
    route: str
    viewport: str | Viewport = "desktop"
    from_: str | None = msgspec.field(default=None, name="from")
    actions: tuple[Action, ...] = ()
    # Settle rule before reading: network idle, or this selector visible.
    settle: str | None = None
    # The document status the route must answer with; None: any 2xx (e.g. 404 for a
    # not-found page that must keep its status).
    status: int | None = None


class CheckSpec(_Strict, frozen=True, kw_only=True):
    id: str
    gate: Gate
    state: str
    assert_: Assertion = msgspec.field(name="assert")
    describe: str
    changed_from: str | None = None
    require_interaction: bool = False
    # Why this unit check's clicks need not be operable by keyboard (WCAG 2.1.1: e.g. a
    # drawing canvas with its own keyboard route); unset, the verifier replays the state
    # with Tab and Enter/Space/arrows in place of each click (`verifier/_replay/_keyboard.py`).
    keyboard_exempt: Annotated[str, msgspec.Meta(min_length=1)] | None = None


class Faq(_Strict, frozen=True, kw_only=True):
    question: str
    answer: str


class Unit(_Strict, frozen=True, kw_only=True):
    id: str
    kind: UnitKind = "stage"
    request: str
    checks: tuple[str, ...]
    faq: tuple[Faq, ...] = ()


class Negative(_Strict, frozen=True, kw_only=True):
    name: str
    expect_fail: tuple[Gate, ...]
    why: str
    # Apply on top of the reference through this unit ("" = on R0).
    after_unit: str = ""


class Serve(_Strict, frozen=True, kw_only=True):
    install: str = ""
    build: str = ""
    start: str
    ready_path: str = "/"
    ready_timeout: float = 60.0
    # Whether an edit needs a rebuild / restart to show (a static server needs neither).
    rebuild_on_change: bool = False
    restart_on_change: bool = False


class Contract(_Strict, frozen=True, kw_only=True):
    id: str
    title: str = ""
    regime: Regime
    capability: Capability
    facet: Facet
    stack: str
    framework: str
    persona: Persona | None = None
    allowed_paths: tuple[str, ...]
    turns_per_unit: int = 12
    serve: Serve
    states: tuple[State, ...]
    checks: tuple[CheckSpec, ...]
    units: tuple[Unit, ...]
    negatives: tuple[Negative, ...] = ()
    # A greenfield twin (regime build) names the Change task whose end state it reaches
    # from an empty baseline, under the same checks and with as many stages and reworks
    # (the paper's twin study). Checked against the suite it ships in (`twin_problems`).
    twin_of: str | None = None

    @property
    def effective_persona(self) -> Persona:
        return self.persona or DEFAULT_PERSONA[self.capability]

    def state(self, state_id: str) -> State:
        for s in self.states:
            if s.id == state_id:
                return s
        raise KeyError(state_id)

    def check(self, check_id: str) -> CheckSpec:
        for c in self.checks:
            if c.id == check_id:
                return c
        raise KeyError(check_id)

    def unit_check_ids(self) -> frozenset[str]:
        return frozenset(c for u in self.units for c in u.checks)

    def preservation_check_ids(self) -> tuple[str, ...]:
        owned = self.unit_check_ids()
        return tuple(c.id for c in self.checks if c.id not in owned)


__all__ = [
    "BROAD_CONTINUITY_GATES",
    "COMPLETION_GATES",
    "CONSERVATIVE_CONTINUITY_GATES",
    "DEFAULT_PERSONA",
    "GATES",
    "RUN_HEALTH_GATES",
    "STATE_HEALTH_GATES",
    "Capability",
    "CheckSpec",
    "Contract",
    "Facet",
    "Faq",
    "Gate",
    "Negative",
    "Persona",
    "Regime",
    "Serve",
    "State",
    "Unit",
    "UnitKind",
]
