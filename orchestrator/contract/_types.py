"""msgspec types of a task package's contract (``task.toml``), DESIGN.md §3.

Every struct forbids unknown fields so that a typo in ``task.toml`` is an error
that names the key, not a silently ignored setting.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

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

NAMED_VIEWPORTS: dict[str, tuple[int, int]] = {
    "desktop": (1280, 800),
    "tablet": (768, 1024),
    "mobile": (390, 844),
}


class _Strict(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    pass


class Viewport(_Strict, frozen=True, kw_only=True):
    width: int
    height: int


# ---------------------------------------------------------------- actions
class _Action(_Strict, tag_field="do", frozen=True, kw_only=True):
    pass


class Click(_Action, tag="click", frozen=True, kw_only=True):
    selector: str


class Fill(_Action, tag="fill", frozen=True, kw_only=True):
    selector: str
    value: str


class Press(_Action, tag="press", frozen=True, kw_only=True):
    selector: str
    key: str


class Hover(_Action, tag="hover", frozen=True, kw_only=True):
    selector: str


class Check(_Action, tag="check", frozen=True, kw_only=True):
    selector: str


class Select(_Action, tag="select", frozen=True, kw_only=True):
    selector: str
    value: str


class ScrollTo(_Action, tag="scroll_to", frozen=True, kw_only=True):
    selector: str


class WaitFor(_Action, tag="wait_for", frozen=True, kw_only=True):
    selector: str
    state: Literal["attached", "detached", "visible", "hidden"] = "visible"


class Reload(_Action, tag="reload", frozen=True, kw_only=True):
    pass


class Goto(_Action, tag="goto", frozen=True, kw_only=True):
    route: str


Action = Click | Fill | Press | Hover | Check | Select | ScrollTo | WaitFor | Reload | Goto
# Actions that count as a real user interaction for `require_interaction`.
INTERACTIVE_ACTIONS: tuple[type[_Action], ...] = (Click, Fill, Press, Hover, Check, Select)


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


# ---------------------------------------------------------------- assertions
class _Assert(_Strict, tag_field="kind", frozen=True, kw_only=True):
    pass


class Exists(_Assert, tag="exists", frozen=True, kw_only=True):
    selector: str


class Absent(_Assert, tag="absent", frozen=True, kw_only=True):
    selector: str


class Count(_Assert, tag="count", frozen=True, kw_only=True):
    selector: str
    equals: int | None = None
    min: int | None = None
    max: int | None = None


class Visible(_Assert, tag="visible", frozen=True, kw_only=True):
    selector: str


class Hidden(_Assert, tag="hidden", frozen=True, kw_only=True):
    selector: str


class TextEquals(_Assert, tag="text_equals", frozen=True, kw_only=True):
    selector: str
    value: str


class TextContains(_Assert, tag="text_contains", frozen=True, kw_only=True):
    selector: str
    value: str


class TextRegex(_Assert, tag="text_regex", frozen=True, kw_only=True):
    selector: str
    pattern: str


class TextOrder(_Assert, tag="text_order", frozen=True, kw_only=True):
    """The texts of the elements matching `selector` contain `values` in this order."""

    selector: str
    values: tuple[str, ...]


class Attribute(_Assert, tag="attribute", frozen=True, kw_only=True):
    selector: str
    name: str
    equals: str | None = None
    contains: str | None = None
    regex: str | None = None


class Value(_Assert, tag="value", frozen=True, kw_only=True):
    """What a form control holds now, as the user left it (not its `value` attribute,
    which `attribute` reads): an input's or a textarea's text, a select's selected
    options' values joined by ", ", and `checked` for a checkbox or a radio button."""

    selector: str
    equals: str | None = None
    contains: str | None = None
    regex: str | None = None
    checked: bool | None = None


class Role(_Assert, tag="role", frozen=True, kw_only=True):
    role: str
    name: str
    exact: bool = True
    within: str | None = None


class Style(_Assert, tag="style", frozen=True, kw_only=True):
    selector: str
    property: str
    equals: str


class Token(_Assert, tag="token", frozen=True, kw_only=True):
    """The element's computed `property` equals the resolved custom property `token`."""

    selector: str
    property: str
    token: str


class Box(_Assert, tag="box", frozen=True, kw_only=True):
    """Geometry of the first match, in CSS px relative to the page, within `tolerance`."""

    selector: str
    x: float | None = None
    y: float | None = None
    width: float | None = None
    height: float | None = None
    tolerance: float = 4.0


class Contained(_Assert, tag="contained", frozen=True, kw_only=True):
    """Every match lies horizontally inside the viewport."""

    selector: str


class Links(_Assert, tag="links", frozen=True, kw_only=True):
    """A navigation region holds links with these texts and targets (in order)."""

    selector: str
    entries: tuple[LinkEntry, ...]


class LinkEntry(_Strict, frozen=True, kw_only=True):
    text: str
    href: str


class Storage(_Assert, tag="storage", frozen=True, kw_only=True):
    area: Literal["local", "session"] = "local"
    key: str
    equals: str | None = None
    contains: str | None = None
    exists: bool = True


class Cookie(_Assert, tag="cookie", frozen=True, kw_only=True):
    name: str
    equals: str | None = None
    exists: bool = True


class Url(_Assert, tag="url", frozen=True, kw_only=True):
    equals: str | None = None
    contains: str | None = None
    regex: str | None = None


class Visual(_Assert, tag="visual", frozen=True, kw_only=True):
    """Screenshot differs from the frozen reference render by at most `threshold`.

    `threshold` is the fraction of pixels whose channel difference exceeds
    `pixel_tolerance`; `masks` are selectors painted over in both images.
    """

    threshold: float = 0.01
    pixel_tolerance: int = 24
    masks: tuple[str, ...] = ()
    full_page: bool = False


Assertion = (
    Exists
    | Absent
    | Count
    | Visible
    | Hidden
    | TextEquals
    | TextContains
    | TextRegex
    | TextOrder
    | Attribute
    | Value
    | Role
    | Style
    | Token
    | Box
    | Contained
    | Links
    | Storage
    | Cookie
    | Url
    | Visual
)


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


def resolve_viewport(viewport: str | Viewport) -> Viewport:
    if isinstance(viewport, Viewport):
        return viewport
    w, h = NAMED_VIEWPORTS[viewport]
    return Viewport(width=w, height=h)


__all__ = [
    "BROAD_CONTINUITY_GATES",
    "COMPLETION_GATES",
    "CONSERVATIVE_CONTINUITY_GATES",
    "DEFAULT_PERSONA",
    "GATES",
    "INTERACTIVE_ACTIONS",
    "NAMED_VIEWPORTS",
    "RUN_HEALTH_GATES",
    "STATE_HEALTH_GATES",
    "Absent",
    "Action",
    "Assertion",
    "Attribute",
    "Box",
    "Capability",
    "Check",
    "CheckSpec",
    "Click",
    "Contained",
    "Contract",
    "Cookie",
    "Count",
    "Exists",
    "Facet",
    "Faq",
    "Fill",
    "Gate",
    "Goto",
    "Hidden",
    "Hover",
    "LinkEntry",
    "Links",
    "Negative",
    "Persona",
    "Press",
    "Regime",
    "Reload",
    "Role",
    "ScrollTo",
    "Select",
    "Serve",
    "State",
    "Storage",
    "Style",
    "TextContains",
    "TextEquals",
    "TextOrder",
    "TextRegex",
    "Token",
    "Unit",
    "UnitKind",
    "Url",
    "Value",
    "Viewport",
    "Visible",
    "Visual",
    "WaitFor",
    "resolve_viewport",
]
