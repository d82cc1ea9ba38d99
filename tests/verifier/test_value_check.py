"""The `value` check kind: what a form control holds as the user left it (#53).

`attribute` reads the DOM attribute, which typing does not change; `value` reads the
control's live state (an input's or a textarea's text, a select's selected values, a
checkbox's or a radio button's `checked`) in Playwright's utility world, so a site that
redefines `value` or `checked` in its own world cannot forge it. One contract holds
every case, verified once.
"""

from __future__ import annotations

from typing import Any

import pytest

from orchestrator.contract import Viewport
from orchestrator.records import VerifyReport
from orchestrator.verifier import BrowserPool, BrowserSession, verify

from .conftest import check, make_task

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

TYPE_IN = [
    {"do": "fill", "selector": "#name", "value": "Ada Lovelace"},
    {"do": "fill", "selector": "#note", "value": "Leave it by the second door"},
    {"do": "select", "selector": "#size", "value": "M"},
    {"do": "check", "selector": "#agree"},
    {"do": "check", "selector": "#ship-b"},
]
STATES: list[dict[str, Any]] = [
    {"id": "typed", "route": "/form.html", "actions": TYPE_IN},
    {"id": "untouched", "route": "/form.html"},
    {"id": "wiped", "route": "/form-wipe.html", "actions": TYPE_IN},
    {"id": "lie", "route": "/form-lie.html"},
]


def value(cid: str, state: str, selector: str, **want: Any) -> dict[str, Any]:
    return check(cid, "interaction", state, kind="value", selector=selector, **want)


PASS, FAIL = True, False
# (check, the truth, a piece of what `observed` must say)
CASES: list[tuple[dict[str, Any], bool, str]] = [
    (value("name", "typed", "#name", equals="Ada Lovelace"), PASS, "value 'Ada Lovelace'"),
    # The attribute is not what was typed: why this kind exists.
    (
        check(
            "name-attr",
            "dom",
            "typed",
            kind="attribute",
            selector="#name",
            name="value",
            equals="default",
        ),
        PASS,
        "value='default'",
    ),
    (value("note", "typed", "#note", contains="second door"), PASS, "second door"),
    (value("size", "typed", "#size", equals="M"), PASS, "value 'M'"),
    (value("size-re", "typed", "#size", regex="^[ML]$"), PASS, "value 'M'"),
    (value("agree", "typed", "#agree", checked=True), PASS, "checked true"),
    (value("ship", "typed", "#ship-b", checked=True, equals="collect"), PASS, "checked true"),
    (value("ship-a", "typed", "#ship-a", checked=False), PASS, "checked false"),
    (value("name-0", "untouched", "#name", equals="Ada Lovelace"), FAIL, "value 'default'"),
    (value("agree-0", "untouched", "#agree", checked=True), FAIL, "checked false"),
    (value("size-0", "untouched", "#size", equals="M"), FAIL, "value 'S'"),
    # Typed, then wiped by the page 60 ms later (the settle waits for that timer).
    (value("wiped", "wiped", "#name", equals="Ada Lovelace"), FAIL, "value ''"),
    (value("para", "typed", "#para", equals="x"), FAIL, "not a form control"),
    (value("text-checked", "typed", "#name", checked=True), FAIL, "not a checkbox"),
    (value("missing", "typed", "#nope", equals="x"), FAIL, "no element matches"),
    # The site's own world says "Ada Lovelace" and checked: the truth is neither.
    (value("lie", "lie", "#name", equals="Ada Lovelace"), FAIL, "value 'default'"),
    (value("lie-agree", "lie", "#agree", checked=True), FAIL, "checked false"),
]


@pytest.fixture(scope="module")
async def report(
    pool: BrowserPool, site_url: str, tmp_path_factory: pytest.TempPathFactory
) -> VerifyReport:
    task = make_task(tmp_path_factory.mktemp("task"), STATES, [c for c, _, _ in CASES])
    return await verify(pool, task, site_url)


@pytest.mark.parametrize(("case", "truth", "said"), CASES, ids=[c["id"] for c, _, _ in CASES])
async def test_value_reads_the_live_state(
    report: VerifyReport, case: dict[str, Any], truth: bool, said: str
) -> None:
    result = report.check(case["id"])
    assert result is not None, case["id"]
    assert result.passed is truth, result.message
    assert said in result.observed, result.observed


async def test_control_the_lie_is_live_in_the_main_world(pool: BrowserPool, site_url: str) -> None:
    """What a main-world read gets on the lying page (so the case above would flip)."""

    async def job(session: BrowserSession) -> list[Any]:
        await session.page.goto(site_url + "/form-lie.html")
        got: list[Any] = await session.page.evaluate(
            "[document.querySelector('#name').value, document.querySelector('#agree').checked]"
        )
        return got

    assert await pool.run(site_url, Viewport(width=1280, height=800), job) == [
        "Ada Lovelace",
        True,
    ]


def test_lint_calls_a_value_with_nothing_to_compare_trivial() -> None:
    from orchestrator.contract import CheckSpec, Value
    from orchestrator.lint import _trivial

    bare = CheckSpec(id="v", gate="dom", state="s", assert_=Value(selector="#x"), describe="d")
    some = CheckSpec(
        id="v", gate="dom", state="s", assert_=Value(selector="#x", checked=False), describe="d"
    )
    assert _trivial(bare) == "a value with nothing to compare"
    assert _trivial(some) == ""
