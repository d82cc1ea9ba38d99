"""An action that times out may be the host's load, not the site (issue #14): the state is
replayed once with more patience; a site that fails again is graded as failing."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.verifier import BrowserPool, verify

from .conftest import check, make_task

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

CLICK = [{"do": "click", "selector": "#go"}]
STATES = [
    {"id": "slow", "route": "/slow-button.html", "actions": CLICK},
    {"id": "never", "route": "/index.html", "actions": CLICK},
]
CHECKS = [
    check("slow_done", "interaction", "slow", kind="text_equals", selector="#result", value="done"),
    check("never_done", "interaction", "never", kind="exists", selector="#go"),
]


async def test_a_timed_out_action_is_replayed_with_more_patience(
    pool: BrowserPool, site_url: str, tmp_path: Path
) -> None:
    report = await verify(pool, make_task(tmp_path, STATES, CHECKS), site_url)
    slow, never = report.check("slow_done"), report.check("never_done")
    assert slow is not None and slow.passed, slow
    assert never is not None and not never.passed
    assert "Timeout" in never.observed and "exceeded" in never.observed


MENU_LINKS = {
    "kind": "links",
    "selector": 'role=navigation[name="Main"]',
    "entries": [{"text": "Home", "href": "index.html"}, {"text": "About", "href": "about.html"}],
}


async def test_a_menu_control_not_clickable_in_time_is_tried_again_with_more_patience(
    pool: BrowserPool, site_url: str, tmp_path: Path
) -> None:
    """The `links` check's menu trial (`_replay/_menu.py`) clicks the page's Menu button; a
    banner covers it for 4.5 s after load, past the trial's 2 s. A timed-out click may be
    the host's load (a CI machine's stolen CPU made such a check flip), so the state is
    replayed with more patience and passes; a button covered for good still fails, and
    says it timed out."""
    states = [
        {"id": "late", "route": "/menu-slow.html"},
        {"id": "covered", "route": "/menu-slow.html?forever"},
    ]
    checks = [
        check("late_nav", "navigation", "late", **MENU_LINKS),
        check("never_nav", "navigation", "covered", **MENU_LINKS),
    ]
    report = await verify(pool, make_task(tmp_path, states, checks), site_url)
    late, never = report.check("late_nav"), report.check("never_nav")
    assert late is not None and late.passed, late
    assert never is not None and not never.passed
    # Tried the second time with three times the trial's 2 s.
    assert "could not be clicked: ElementHandle.click: Timeout 6000ms" in never.observed
