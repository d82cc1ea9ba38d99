"""Accessibility continuity in a real browser (#44): the four silent breakages a careful
reviewer fails at once, each against the same R0.

`sites/a11y/<variant>/index.html` is one booking page: `r0` (the untouched site), `ok`
(a harmless edit; its links' focus ring moved to their nav), `focus` (`:focus`/
`:focus-visible` outlines removed), `contrast` (the lede's colour dropped to 2.16:1),
`form` (the form resets on the validation error), `live` (the validation message's
`role=alert` removed), `debt-r0`/`debt-final` (an R0 that already has all four, and a
final that keeps them), `forged` (all four, with the site's own world forging axe,
`getComputedStyle`, `closest`, `querySelector` and `JSON`). Every variant is verified
once per module (2 states each, concurrently); the verdicts are the pure rules of
`_a11y/_gate.py` on the snapshots the browser took.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from orchestrator.contract import TaskPackage
from orchestrator.records import CheckResult, VerifyReport
from orchestrator.verifier import BrowserPool, a11y_continuity, verify

from .conftest import check, make_task, serve

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

SITE = Path(__file__).parent / "sites" / "a11y"
VARIANTS = ("r0", "ok", "focus", "contrast", "form", "live", "debt-r0", "debt-final", "forged")
TYPE = [
    {"do": "fill", "selector": "#name", "value": "Ada"},
    {"do": "select", "selector": "#day", "value": "tue"},
]
STATES: list[dict[str, Any]] = [
    {"id": "home", "route": "/index.html"},
    # The error path: no email.
    {"id": "bad", "route": "/index.html", "actions": [*TYPE, {"do": "click", "selector": "#send"}]},
]
CHECKS = [
    {
        "id": "error-shown",
        "gate": "text",
        "state": "bad",
        "assert": {"kind": "text_contains", "selector": "#error", "value": "Enter your email"},
        "describe": "The form asks for the missing email.",
    }
]


@pytest.fixture(scope="module")
def a11y_url() -> Iterator[str]:
    with serve(SITE) as url:
        yield url


@pytest.fixture(scope="module")
def task(tmp_path_factory: pytest.TempPathFactory) -> TaskPackage:
    return make_task(tmp_path_factory.mktemp("a11y"), STATES, CHECKS)


@pytest.fixture(scope="module")
async def reports(
    pool: BrowserPool, task: TaskPackage, a11y_url: str
) -> AsyncIterator[dict[str, VerifyReport]]:
    out: dict[str, VerifyReport] = {}

    async def one(variant: str) -> None:
        out[variant] = await verify(pool, task, f"{a11y_url}/{variant}", a11y=True)

    async with anyio.create_task_group() as tg:
        for v in VARIANTS:
            tg.start_soon(one, v)
    yield out


def _against(
    task: TaskPackage, reports: dict[str, VerifyReport], final: str, r0: str = "r0"
) -> dict[str, CheckResult]:
    checks = a11y_continuity(task.contract, reports[final].a11y, [("R0", reports[r0].a11y)])
    return {c.id: c for c in checks}


# What each breakage must fail, and what its message must show.
BROKEN = {
    "focus": ("a11y-focus@home", "visual_anchors", ["input#name", "same as unfocused", "R0"]),
    "contrast": (
        "a11y-contrast@home",
        "visual_anchors",
        ["color-contrast on .lede", "2.16:1", "#b0b0b0 on #ffffff", "needs 4.5:1"],
    ),
    "form": ("a11y-form@bad", "state_artifacts", ["#name typed 'Ada', now ''", "kept 'Ada'"]),
    "live": ("a11y-live@bad", "regression_text", ["#error", "role=alert", "'error-shown'"]),
}


async def test_r0_snapshots_saw_what_the_rules_need(reports: dict[str, VerifyReport]) -> None:
    snaps = reports["r0"].a11y
    assert set(snaps) == {"home", "bad"}
    home, bad = snaps["home"], snaps["bad"]
    assert not home.axe_error and "color-contrast|.lede" in home.passes
    assert [f.element for f in home.focus][:2] == [
        'a[href="#book"] "Book"',
        'a[href="#about"] "About"',
    ]
    assert all(f.visible for f in home.focus) and len(home.focus) == 6
    # After the actions the walk starts at the button they clicked and goes round once.
    assert {f.element for f in bad.focus} == {f.element for f in home.focus}
    assert bad.error_path and [(f.selector, f.value) for f in bad.fields] == [
        ("#name", "Ada"),
        ("#day", "tue"),
    ]
    assert [(f.check, f.live) for f in bad.live] == [("error-shown", "role=alert")]


@pytest.mark.parametrize("variant", sorted(BROKEN))
async def test_each_breakage_fails_its_rule_with_a_grounded_message(
    task: TaskPackage, reports: dict[str, VerifyReport], variant: str
) -> None:
    cid, gate, words = BROKEN[variant]
    got = _against(task, reports, variant)
    check = got[cid]
    assert not check.passed and check.gate == gate
    for w in words:
        assert w in check.message, (w, check.message)
    assert "state " in check.message  # the grounded 'where'
    # Only its own rule: every other continuity check of the variant passes. The alert
    # whose role was removed is also a live region gone (#53's `a11y-announce`, the same
    # gate): it names the region where `a11y-live` names the check.
    others = [c.id for c in got.values() if not c.passed and not c.id.startswith(cid.split("@")[0])]
    assert others == (["a11y-announce@home", "a11y-announce@bad"] if variant == "live" else [])


async def test_the_unbroken_site_passes_every_rule(
    task: TaskPackage, reports: dict[str, VerifyReport]
) -> None:
    got = _against(task, reports, "ok")
    assert all(c.passed for c in got.values()), [c.message for c in got.values() if not c.passed]
    # `ok` moves the links' ring to their nav (`:focus-within`): an ancestor's ring counts.
    link = next(
        f for f in reports["ok"].a11y["home"].focus if f.element.startswith('a[href="#book"]')
    )
    assert link.visible and link.detail.startswith('nav[aria-label="Main"]'), link.detail
    assert ": outline none -> solid 2px" in link.detail
    kinds = {c.id.split("@")[0] for c in got.values()}
    assert kinds == {
        "a11y-contrast", "a11y-axe", "a11y-focus", "a11y-form", "a11y-live", "a11y-trap",
        "a11y-title", "a11y-announce",
    }  # fmt: skip


async def test_debt_r0_already_had_is_not_charged(
    task: TaskPackage, reports: dict[str, VerifyReport]
) -> None:
    debt = _against(task, reports, "debt-final", r0="debt-r0")
    assert debt and all(c.passed for c in debt.values()), [c.message for c in debt.values()]
    # The same final against a clean R0: all four are real regressions there.
    fresh = _against(task, reports, "debt-final")
    failed = {c.id for c in fresh.values() if not c.passed}
    assert {cid for cid, _, _ in BROKEN.values()} <= failed


async def test_the_site_s_own_world_cannot_forge_the_probes(
    task: TaskPackage, reports: dict[str, VerifyReport]
) -> None:
    got = _against(task, reports, "forged")
    failed = {c.id for c in got.values() if not c.passed}
    assert {cid for cid, _, _ in BROKEN.values()} <= failed
    assert "2.16:1" in got["a11y-contrast@home"].observed


async def test_a_state_whose_page_left_the_site_gets_no_accessibility_verdict(
    pool: BrowserPool, site_url: str, tmp_path: Path
) -> None:
    """A back link that leaves the site (`history.back()` out of a state opened straight,
    plantcare-mobile-nav's back-link-history) fails `routes` and the checks that read the
    page; axe on the page it left for (about:blank: no title, no lang, no landmarks) is
    no regression of the site's, so the state's snapshot is not reached and no
    accessibility rule is charged there. The same page before the click is judged."""
    states: list[dict[str, Any]] = [
        {"id": "guide", "route": "/leave.html"},
        {"id": "gone", "route": "/leave.html", "actions": [{"do": "click", "selector": "#back"}]},
    ]
    checks = [
        check("guide-title", "text", "gone", kind="text_contains", selector="h1", value="Guide")
    ]
    task = make_task(tmp_path, states, checks)
    report = await verify(pool, task, site_url, a11y=True)
    assert report.a11y["guide"].reached and not report.a11y["gone"].reached
    routes = report.check("routes@gone")
    assert routes is not None and not routes.passed, routes
    # Against a base that saw the site's page at both states: charged nowhere at "gone".
    base = {"guide": report.a11y["guide"], "gone": report.a11y["guide"]}
    charged = a11y_continuity(task.contract, report.a11y, [("R0", base)])
    assert {c.state for c in charged} == {"guide"}, charged
