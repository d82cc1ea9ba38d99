"""Accessibility continuity: the final workspace against R0 (and the reference, where it
is live), state by state. Pure functions of snapshots (`_replay/_a11y.py`); no browser.

A site's existing debt never fails a solver, a new regression always does. So a finding
is charged only where a **base** (R0; in admission also the reference run) shows the
same thing working, and no base shows it broken:

- `a11y-contrast@S` (`visual_anchors`): axe's `color-contrast` (or `link-in-text-block`)
  fails on an element where it passed in a base;
- `a11y-axe@S` (`regression_text`): any other axe rule (names, labels, alt text, ARIA,
  landmarks) fails on an element where it passed in a base;
- `a11y-focus@S` (`visual_anchors`): an element reached by Tab looks the same focused
  and unfocused, where a base showed a focus indicator on it;
- `a11y-form@S` (`state_artifacts`): the page ends on a validation error and a field the
  actions typed into lost its value, where a base kept it after the same actions;
- `a11y-live@S` (`regression_text`): an element a check reads is in no live region,
  where a base announced it (`role=status`, `aria-live`, ...);
- `a11y-trap@S`, `a11y-title@S`, `a11y-announce@S` (`regression_text`): a keyboard trap,
  a page title no longer told apart from its siblings (or its lang removed), a live
  region or an announced message gone (`_rules.py`).

An axe violation a base had on the same element at any of its states is debt (the final
may show another state's page at this one: a link that no longer navigates fails its own
checks, not this rule). Where a base has no snapshot of the state (the state was not
reached there: it is new), the nearest one stands in: the closest ancestor through
`from`, then a state of the same route and viewport. Elements are matched by axe's
selector or by their markup (either one matching is the same element) for axe's rules,
and by a descriptor (tag, id, name, href, text) for the focus walk; an element new in
the final has no base, so it is never charged (a brand-new control's debt is the
reference's to show, and is compared only where the reference run is live: admission).
Form state is compared only at the same state (the same actions). A rule is left out (no
check) where the final or every base could not be observed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TypeVar

from ...contract import Contract, Gate
from ...records import A11ySnapshot, CheckResult, VerifyReport
from .._core import gate_results, grounded, summarize_state
from ._base import Base, Verdict, bases_for
from ._perf_gate import layout_shift_continuity, main_thread_continuity, weight_continuity
from ._rules import announce, title, trap

T = TypeVar("T")

# The ids of the checks added here: `a11y-<rule>@<state>`.
A11Y_ID = re.compile(r"a11y-(contrast|axe|focus|form|live|trap|title|announce)@")
CONTRAST_RULES = frozenset({"color-contrast", "color-contrast-enhanced", "link-in-text-block"})

DESCRIBE: dict[str, str] = {
    "a11y-contrast": (
        "Text must keep the contrast it had before (WCAG 1.4.3, axe-core): an element whose"
        " contrast passed must not fail now."
    ),
    "a11y-axe": (
        "An axe-core WCAG rule (names and labels, alt text, ARIA validity, landmarks) that"
        " held on an element must still hold."
    ),
    "a11y-focus": (
        "Every element reached by Tab that showed a focus indicator must still show one"
        " (WCAG 2.4.7)."
    ),
    "a11y-form": (
        "After a failed submit, the fields the user typed into must keep their values"
        " wherever they were kept before."
    ),
    "a11y-live": (
        "An element the checks read that was announced through a live region (role=status"
        "|alert, aria-live) must still be announced."
    ),
    "a11y-trap": (
        "Keyboard users must be able to leave every control with Tab where they could"
        " before (no keyboard trap, WCAG 2.1.2)."
    ),
    "a11y-title": (
        "Each page keeps a title that tells it apart from its sibling pages, and its"
        " language (WCAG 2.4.2, 3.1.1)."
    ),
    "a11y-announce": (
        "Every live region (role=status|alert|log, aria-live) and every message it"
        " announced after an action must still be announced."
    ),
}
GATE: dict[str, Gate] = {
    "a11y-contrast": "visual_anchors",
    "a11y-axe": "regression_text",
    "a11y-focus": "visual_anchors",
    "a11y-form": "state_artifacts",
    "a11y-live": "regression_text",
    "a11y-trap": "regression_text",
    "a11y-title": "regression_text",
    "a11y-announce": "regression_text",
}
_LIMIT = 5


def _listed(items: list[str]) -> str:
    more = f" (+{len(items) - _LIMIT} more)" if len(items) > _LIMIT else ""
    return "; ".join(items[:_LIMIT]) + more


def _keys(rule: str, target: str, markup: str) -> set[str]:
    """An element under a rule, by axe's selector and by its markup."""
    return {f"{rule}|{target}"} | ({f"{rule}#{markup}"} if markup else set())


def _axe_debt(bases: Sequence[tuple[str, Mapping[str, A11ySnapshot]]]) -> set[str]:
    """Every element a base already violated a rule on, at any of its states: a final
    that shows another state's page here (a link that no longer navigates) is charged
    for the navigation by its own checks, not for that page's old debt."""
    return {
        k
        for _, snaps in bases
        for snap in snaps.values()
        for v in snap.violations
        for k in _keys(v.rule, v.target, v.markup)
    }


def _axe(final: A11ySnapshot, bases: list[Base], contrast: bool, debt: set[str]) -> Verdict | None:
    ran = [b for b in bases if not b.snap.axe_error]
    if final.axe_error or not ran:
        return None
    charged = []
    for v in final.violations:
        mine = _keys(v.rule, v.target, v.markup)
        if (v.rule in CONTRAST_RULES) != contrast or mine & debt:
            continue
        held = next((b for b in ran if mine & set(b.snap.passes)), None)
        if held is not None:
            what = f": {v.measured}" if v.measured else ""
            charged.append(f"{v.rule} on {v.target}{what} (passed in {held.where})")
    return not charged, charged


def _lost(
    now: Iterable[T],
    ran: list[Base],
    items: Callable[[A11ySnapshot], Iterable[T]],
    key: Callable[[T], str],
    ok: Callable[[T], object],
) -> list[tuple[T, T, Base]]:
    """The findings not `ok` now that were ok in a base and not ok in none (a regression,
    not debt): each with the base's finding and the base (the last one for its key)."""
    debt = {key(g) for b in ran for g in items(b.snap) if not ok(g)}
    held = {key(g): (g, b) for b in ran for g in items(b.snap) if ok(g)}
    return [(f, *held[key(f)]) for f in now if not ok(f) and key(f) not in debt and key(f) in held]


def _focus(final: A11ySnapshot, bases: list[Base]) -> Verdict | None:
    ran = [b for b in bases if not b.snap.focus_error and b.snap.focus]
    if final.focus_error or not final.focus or not ran:
        return None
    lost = _lost(final.focus, ran, lambda s: s.focus, lambda f: f.element, lambda f: f.visible)
    charged = [
        f"{f.element}: {f.detail} (in {b.where} focus showed: {was.detail})" for f, was, b in lost
    ]
    return not charged, charged


def _form(final: A11ySnapshot, bases: list[Base]) -> Verdict | None:
    same = [b for b in bases if b.same_state and b.snap.fields]
    if not final.fields or not final.error_path or not same:
        return None
    charged = []
    for f in final.fields:
        if f.value == f.typed:
            continue
        before = [g for b in same for g in b.snap.fields if g.selector == f.selector]
        if before and all(g.value == g.typed for g in before):
            where = next(b.where for b in same)
            charged.append(
                f"{f.selector} typed {f.typed!r}, now {f.value!r} after the error"
                f" ({where} kept {f.typed!r})"
            )
    return not charged, charged


def _live(final: A11ySnapshot, bases: list[Base]) -> Verdict | None:
    ran = [b for b in bases if b.snap.live]
    if not final.live or not ran:
        return None
    lost = _lost(final.live, ran, lambda s: s.live, lambda g: g.check, lambda g: g.live)
    charged = [
        f"check {f.check!r} reads {f.selector} ({f.text!r}), in no live region"
        f" ({b.where}: {was.live})"
        for f, was, b in lost
    ]
    return not charged, charged


def a11y_continuity(
    contract: Contract,
    final: Mapping[str, A11ySnapshot],
    bases: Sequence[tuple[str, Mapping[str, A11ySnapshot]]],
) -> list[CheckResult]:
    """The accessibility continuity checks of every state the final and a base observed."""
    out: list[CheckResult] = []
    debt = _axe_debt(bases)
    for state in contract.states:
        snap = final.get(state.id)
        if snap is None or not snap.reached:
            continue
        near = bases_for(contract, state, bases)
        if not near:
            continue
        verdicts = {
            "a11y-contrast": _axe(snap, near, True, debt),
            "a11y-axe": _axe(snap, near, False, debt),
            "a11y-focus": _focus(snap, near),
            "a11y-form": _form(snap, near),
            "a11y-live": _live(snap, near),
            "a11y-trap": trap(snap, near),
            "a11y-title": title(contract, state, final, near, bases),
            "a11y-announce": announce(snap, near),
        }
        where = summarize_state(contract, state)
        for name, verdict in verdicts.items():
            if verdict is None:
                continue
            ok, charged = verdict
            observed = _listed(charged) if charged else "nothing regressed"
            out.append(
                CheckResult(
                    id=f"{name}@{state.id}",
                    gate=GATE[name],
                    state=state.id,
                    passed=ok,
                    observed=observed,
                    message=grounded(DESCRIBE[name], where, observed),
                    authored=False,
                )
            )
    return out


def with_a11y_continuity(
    report: VerifyReport,
    contract: Contract,
    bases: Sequence[tuple[str, Mapping[str, A11ySnapshot]]],
) -> VerifyReport:
    """`report` with the accessibility continuity checks added, and the main thread's
    (`_perf_gate.py`, measured with the same snapshots), and its gates regraded.
    Without a base snapshot (none recorded, or a report of a partial run) it is unchanged."""
    if not report.a11y or not any(snaps for _, snaps in bases):
        return report
    added = a11y_continuity(contract, report.a11y, bases)
    added += main_thread_continuity(contract, report.a11y, bases)
    added += weight_continuity(contract, report.a11y, bases)
    added += layout_shift_continuity(contract, report.a11y, bases)
    if not added:
        return report
    checks = (*report.checks, *added)
    return VerifyReport(
        checks=checks,
        gates=gate_results(checks),
        states=report.states,
        warm_discarded=report.warm_discarded,
        a11y=report.a11y,
    )
