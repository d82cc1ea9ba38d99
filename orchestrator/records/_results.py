"""Typed verification results shared by the verifier, the cell, scoring and reports."""

from __future__ import annotations

from typing import Literal

import msgspec

from ..contract import Gate

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
    # Replay reuse (`verifier/_reuse/_cache.py`): why this state's observation was carried over
    # from an earlier checkpoint, or why it was replayed (one of the two is set).
    reused: str = ""
    replayed: str = ""
    # Replayed on a page of a reused warm context ("warm") or in a new context ("fresh"),
    # and the state whose replay evaluated this one's checks too (`verifier/_reuse/_share.py`).
    context: str = ""
    shared_with: str = ""


class AxeFinding(_Rec, frozen=True, kw_only=True):
    """One axe-core violation on one element: the rule, its target selector, and what
    the rule measured there (contrast ratio and colours, or the failing check's words)."""

    rule: str
    target: str
    impact: str = ""
    measured: str = ""
    # A hash of the element's markup (axe's `html`): the element again where its
    # selector changed (a sibling with the same class added before it).
    markup: str = ""


class FocusFinding(_Rec, frozen=True, kw_only=True):
    """One element a state reaches by Tab: whether its focused rendering differs from
    its unfocused one, and how (the properties that changed, or the focused values)."""

    element: str
    visible: bool
    detail: str = ""


class FieldFinding(_Rec, frozen=True, kw_only=True):
    """A field the state's actions typed into (fill/select), read after all of them."""

    selector: str
    typed: str
    value: str


class LiveFinding(_Rec, frozen=True, kw_only=True):
    """An authored check's element at this state, and the live region announcing it
    (`role=status`, `aria-live=polite`, ...; '' when none does)."""

    check: str
    selector: str
    live: str
    text: str = ""


class MainThread(_Rec, frozen=True, kw_only=True):
    """The long tasks of a state's document, as its renderer timed them (wall time;
    `verifier/_replay/_perf.py`): compared with a base's by `verifier/_a11y/_perf_gate.py`."""

    # Total blocking time: the sum of each long task's time over 50 ms.
    blocking_ms: float
    longest_ms: float = 0.0
    long_tasks: int = 0


class PageWeight(_Rec, frozen=True, kw_only=True):
    """What a state's document and its same-origin resources weighed on the wire, as the
    browser's resource timing counted it (`verifier/_replay/_perf.py`): compared with a
    base's by `verifier/_a11y/_perf_gate.py`."""

    bytes: int
    requests: int = 0


# `TrapFinding.keys` of a control that Tab leaves and Shift+Tab cannot.
SHIFT_ONLY = "Shift+Tab"


class TrapFinding(_Rec, frozen=True, kw_only=True):
    """A control the focus walk could not leave (WCAG 2.1.2): the keys that did not move
    the focus away ("Tab", "Tab and Shift+Tab", or `SHIFT_ONLY`) and how it held it."""

    element: str
    keys: str
    detail: str = ""
    # Inside a modal dialog (`aria-modal="true"`, a modal `<dialog>`), which keeps the
    # focus by design and is left with Escape: recorded, never charged.
    modal: bool = False


class RegionFinding(_Rec, frozen=True, kw_only=True):
    """A live region at a state once it settled: the element (tag#id, or tag and its
    label), how it is live (`role=status`, `aria-live=polite`, `output`), its text."""

    region: str
    live: str
    text: str = ""


class Announcement(_Rec, frozen=True, kw_only=True):
    """A message a live region announced while the state's actions ran: its text as the
    region then read, the region, and the action after which it came (1-based; 0 before
    the first)."""

    after: int
    action: str = ""
    region: str
    live: str
    text: str


class A11ySnapshot(_Rec, frozen=True, kw_only=True):
    """What a state showed assistive technology and keyboard users (`verifier/_replay/_a11y.py`):
    compared between a final workspace and R0 (and the reference where it is live) by
    the accessibility continuity rules (`verifier/_a11y/_gate.py`)."""

    reached: bool = True
    # axe-core: violations, and where each rule held, as "rule|target" and "rule#markup"
    # (a violation in the final of an element where the rule held is a regression).
    axe_error: str = ""
    violations: tuple[AxeFinding, ...] = ()
    passes: tuple[str, ...] = ()
    focus: tuple[FocusFinding, ...] = ()
    focus_error: str = ""
    # The fields the actions filled and whether the page ended on a validation error.
    fields: tuple[FieldFinding, ...] = ()
    error_path: bool = False
    live: tuple[LiveFinding, ...] = ()
    # Keyboard traps met by the focus walk, and why the walk ended: "body" (the focus
    # left the document), "cycle" (round once), "trap", "limit" (MAX_TABS); "" unknown.
    traps: tuple[TrapFinding, ...] = ()
    focus_end: str = ""
    # What a screen reader announces (`verifier/_replay/_announce.py`), read when the state
    # settled: the document's title and `<html lang>`, its address (path, query and
    # fragment: another page shown at the state is not compared), its live regions and
    # the messages they announced after each action. `announce_error` set: none was read.
    title: str = ""
    lang: str = ""
    url: str = ""
    regions: tuple[RegionFinding, ...] = ()
    announced: tuple[Announcement, ...] = ()
    # What is on the page but not announced: text that appeared outside every live region
    # while the actions ran, and `tag#id` of the elements with an id (at most 400).
    shown: tuple[str, ...] = ()
    ids: tuple[str, ...] = ()
    announce_error: str = ""
    # The state's main-thread blocking, read right after its settle (None: not read).
    # Kept with the snapshot so every base that carries one carries it too (#53).
    main_thread: MainThread | None = None
    # Its weight on the wire, read with the main-thread figure (None: not read).
    weight: PageWeight | None = None
    # Its cumulative layout shift (Core Web Vitals' CLS: the largest burst of shifts
    # not caused by input), read with them (None: not read).
    layout_shift: float | None = None


class VerifyReport(_Rec, frozen=True, kw_only=True):
    checks: tuple[CheckResult, ...]
    gates: tuple[GateResult, ...]
    states: tuple[StateRun, ...] = ()
    # Why warm contexts were closed instead of reused (`verifier/_browser/_warm.py`).
    warm_discarded: tuple[str, ...] = ()
    # Full-suite runs only: each replayed state's accessibility snapshot, by state id.
    a11y: dict[str, A11ySnapshot] = {}

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
