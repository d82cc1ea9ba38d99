"""Keyboard operability (#38, WCAG 2.1.1): every control a unit check operates by click
must be reached by Tab and operated by Enter/Space (arrows in a radio group).

One contract holds every pattern (fixture pages `keys-*.html`); it is verified once. Each
failing page works with the mouse: its check passes by click, and only `keyboard:<id>`
(gate `a11y`) fails, saying why.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from orchestrator.contract import Contract, TaskPackage
from orchestrator.records import VerifyReport
from orchestrator.verifier import BrowserPool, verify

pytestmark = [pytest.mark.anyio, pytest.mark.browser]


def click(selector: str) -> dict[str, str]:
    return {"do": "click", "selector": selector}


STATES: list[dict[str, Any]] = [
    {"id": "btn", "route": "/keys-native.html", "actions": [click("#f-red .label")]},
    {"id": "radio", "route": "/keys-native.html", "actions": [click("label[for=size-l]")]},
    {"id": "box", "route": "/keys-native.html", "actions": [click("#wrap")]},
    # The text inside a label: the label's checkbox is the control.
    {"id": "news", "route": "/keys-native.html", "actions": [click("main >> text=News")]},
    {"id": "aria", "route": "/keys-native.html", "actions": [click("[data-v=price]")]},
    {"id": "link", "route": "/keys-native.html", "actions": [click("#more")]},
    {"id": "spans", "route": "/keys-spans.html", "actions": [click(".chip[data-v=blue]")]},
    {"id": "spans_ok", "route": "/keys-spans.html", "actions": [click(".chip[data-v=blue]")]},
    {"id": "minus1", "route": "/keys-tabindex.html", "actions": [click("#f-red")]},
    {"id": "noarrows", "route": "/keys-radio-noarrows.html", "actions": [click("[data-v=price]")]},
    {"id": "noenter", "route": "/keys-noenter.html", "actions": [click("#f-red")]},
    # The click works, the check it is read by does not hold: no keyboard replay (#51).
    {"id": "wrong", "route": "/keys-native.html", "actions": [click("#f-red")]},
]


def text(cid: str, state: str, selector: str, value: str, **extra: Any) -> dict[str, Any]:
    a = {"kind": "text_equals", "selector": selector, "value": value}
    return {"id": cid, "gate": "interaction", "state": state, "assert": a, "describe": cid, **extra}


EXEMPT = "a colour picker with its own keyboard route (the hex field below)"
CHECKS = [
    text("btn", "btn", "#out", "red"),
    text("radio", "radio", "#out", "size l"),
    text("box", "box", "#out", "wrap true"),
    text("news", "news", "#out", "news true"),
    text("aria", "aria", "#sorted", "price"),
    {
        "id": "link",
        "gate": "state_artifacts",
        "state": "link",
        "describe": "link",
        "assert": {"kind": "url", "contains": "#details"},
    },
    text("spans", "spans", "#out", "blue"),
    text("spans_ok", "spans_ok", "#out", "blue", keyboard_exempt=EXEMPT),
    text("minus1", "minus1", "#out", "red"),
    text("noarrows", "noarrows", "#sorted", "price"),
    text("noenter", "noenter", "#out", "red"),
    text("wrong", "wrong", "#out", "not what it says"),
    # A preservation check (no unit owns it) is not held to the rule.
    text("keep", "spans", "h1", "Filters"),
]


@pytest.fixture(scope="module")
async def report(
    pool: BrowserPool, site_url: str, tmp_path_factory: pytest.TempPathFactory
) -> VerifyReport:
    raw = {
        "id": "keys", "regime": "change", "capability": "edit", "facet": "experience",
        "stack": "static", "framework": "html", "allowed_paths": ["**"],
        "serve": {"start": "python -m http.server $PORT"},
        "states": STATES, "checks": CHECKS,
        "units": [{"id": "u1", "request": "r", "checks": [c["id"] for c in CHECKS[:-1]]}],
    }  # fmt: skip
    root = tmp_path_factory.mktemp("keys")
    task = TaskPackage(root=root, contract=msgspec.convert(raw, Contract), contract_hash="t")
    return await verify(pool, task, site_url, states=[])


@pytest.mark.parametrize("cid", ["btn", "radio", "box", "news", "aria", "link"])
async def test_native_controls_and_the_aria_pattern_pass(report: VerifyReport, cid: str) -> None:
    got = report.check(f"keyboard:{cid}")
    assert got is not None and got.gate == "a11y" and got.applicable, got
    assert got.passed, got.message


@pytest.mark.parametrize(
    ("cid", "why"),
    [
        ("spans", "it is not focusable: neither a native control nor given tabindex=0"),
        ("minus1", 'it has tabindex="-1": out of the tab order'),
        ("noarrows", "the arrow keys never move the focus to it"),
        ("noenter", "does not hold (it does by click)"),
    ],
)
async def test_a_mouse_only_control_fails_a11y_saying_why(
    report: VerifyReport, cid: str, why: str
) -> None:
    mouse, keys = report.check(cid), report.check(f"keyboard:{cid}")
    assert mouse is not None and mouse.passed, mouse  # the mouse path works ...
    assert keys is not None and keys.failed, keys  # ... the keyboard does not
    assert why in keys.observed, keys.observed
    assert "WCAG 2.1.1" in keys.message and f"state {cid!r}" in keys.message, keys.message
    assert f"keyboard:{cid}" in report.gate("a11y").failed_checks


async def test_an_opted_out_check_passes_with_its_reason(report: VerifyReport) -> None:
    got = report.check("keyboard:spans_ok")
    assert got is not None and got.passed and not got.failed, got
    assert EXEMPT in got.observed
    assert not any(s.state == "spans_ok~keys" for s in report.states)  # never replayed


async def test_only_unit_checks_are_held_to_it(report: VerifyReport) -> None:
    assert report.check("keyboard:keep") is None
    assert report.check("keep") is not None


async def test_a_state_failing_by_pointer_is_not_replayed_by_keyboard(
    report: VerifyReport,
) -> None:
    """Its keyboard result is not applicable whatever the keyboard does, so the keyboard
    replay is never run (a verdict paid for once, #51); a passing one is."""
    got = report.check("keyboard:wrong")
    assert got is not None and not got.applicable and "fails with the pointer too" in got.observed
    replayed = {s.state for s in report.states}
    assert "wrong~keys" not in replayed and "wrong" in replayed
    assert "btn~keys" in replayed
