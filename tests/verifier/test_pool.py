"""BrowserPool: launch failure is infra, crashes are retried once, browsers recycle."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from orchestrator.contract import Viewport
from orchestrator.verifier import (
    BrowserCrashed,
    BrowserPool,
    BrowserSession,
    VerifierInfraError,
    verify,
)

from .conftest import check, make_task, need_chromium

pytestmark = [pytest.mark.anyio, pytest.mark.browser]
VP = Viewport(width=800, height=600)


async def test_launch_failure_is_an_infra_error() -> None:
    with pytest.raises(VerifierInfraError, match="cannot launch"):
        async with BrowserPool(executable_path="/nonexistent/chromium"):
            pass


async def test_crash_is_relaunched_and_retried_once(site_url: str) -> None:
    need_chromium()
    attempts = 0

    async def crash_first(session: BrowserSession) -> str:
        nonlocal attempts
        attempts += 1
        if attempts == 1:
            assert session.context.browser is not None
            await session.context.browser.close()  # what a dead browser looks like
        await session.page.goto(site_url + "/index.html")
        return await session.page.title()

    async with BrowserPool() as pool:
        assert await pool.run(site_url, VP, crash_first) == "Home"
        assert attempts == 2 and pool.launches == 2


async def test_second_crash_fails_the_state(site_url: str) -> None:
    need_chromium()

    async def always_crash(session: BrowserSession) -> None:
        assert session.context.browser is not None
        await session.context.browser.close()
        await session.page.goto(site_url + "/index.html")

    async with BrowserPool() as pool:
        with pytest.raises(BrowserCrashed):
            await pool.run(site_url, VP, always_crash)

        # The pool is still usable for the next state.
        async def title(session: BrowserSession) -> str:
            await session.page.goto(site_url + "/about.html")
            return await session.page.title()

        assert await pool.run(site_url, VP, title) == "About"


async def test_browser_is_recycled_after_n_contexts(site_url: str) -> None:
    need_chromium()

    async def noop(session: BrowserSession) -> None:
        return None

    async with BrowserPool(recycle_after=2, max_contexts=1) as pool:
        for _ in range(5):
            await pool.run(site_url, VP, noop)
        assert pool.launches == 3


async def test_off_origin_navigation_is_blocked(site_url: str) -> None:
    need_chromium()

    async def visit(session: BrowserSession) -> str:
        try:
            await session.page.goto("http://example.com/")
        except Exception as exc:  # Playwright's error: the test may import it
            return str(exc)
        return "loaded"

    async with BrowserPool() as pool:
        assert "ERR_BLOCKED_BY_CLIENT" in await pool.run(site_url, VP, visit)


async def test_same_state_twenty_times_same_verdict(
    pool: BrowserPool, site_url: str, tmp_path: Path
) -> None:
    import anyio

    states: list[dict[str, Any]] = [
        {"id": "shop", "route": "/shop.html"},
        {
            "id": "red",
            "route": "/shop.html",
            "from": "shop",
            "actions": [{"do": "click", "selector": "#chip-red"}],
        },
    ]
    checks = [
        check(
            "filtered",
            "interaction",
            "red",
            kind="text_equals",
            selector="#result",
            value="2 items",
            changed_from="shop",
            require_interaction=True,
        ),
        check("cards", "dom", "red", kind="count", selector=".card:visible", equals=2),
        check("active", "dom", "red", kind="exists", selector=".chip.active"),
    ]
    task = make_task(tmp_path, states, checks)
    verdicts: list[tuple[tuple[str, bool], ...]] = []

    async def once() -> None:
        rep = await verify(pool, task, site_url, states=["red"])
        verdicts.append(tuple(sorted((c.id, c.passed) for c in rep.checks)))

    async with anyio.create_task_group() as tg:
        for _ in range(20):
            tg.start_soon(once)
    assert len(set(verdicts)) == 1, set(verdicts)
    assert all(passed for _, passed in verdicts[0])


async def test_harness_side_timeout_is_retried_not_scored_against_the_site(
    site_url: str,
) -> None:
    """A Playwright timeout in the harness's own calls (a loaded host) re-runs the state."""
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    need_chromium()
    attempts = 0

    async def slow_host_first(session: BrowserSession) -> str:
        nonlocal attempts
        attempts += 1
        if attempts <= 2:
            raise PlaywrightTimeout("Timeout 30000ms exceeded (screenshot)")
        await session.page.goto(site_url + "/index.html")
        return await session.page.title()

    async with BrowserPool() as pool:
        pool.TIMEOUT_PAUSE_S = 0.01
        assert await pool.run(site_url, VP, slow_host_first) == "Home"
        assert attempts == 3 and pool.launches == 1


async def test_a_timeout_that_persists_is_the_pages(site_url: str) -> None:
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    from orchestrator.verifier import HarnessTimeout, ReplayError

    need_chromium()

    async def always(session: BrowserSession) -> None:
        raise PlaywrightTimeout("Timeout 30000ms exceeded")

    async with BrowserPool() as pool:
        pool.TIMEOUT_PAUSE_S = 0.01
        with pytest.raises(HarnessTimeout) as info:
            await pool.run(site_url, VP, always)
        assert isinstance(info.value, ReplayError)  # the state then fails as the page's
