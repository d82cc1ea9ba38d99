"""Isolated awaits share one CDP session per page (`_browser._world.page_session`).

A state awaits in an isolated world after its load, after every action and in its
settle; attaching a CDP session for each cost the browser ~6 ms a time
(`tests/perf/profile_state.py`). One session per page must change nothing else: every
await still runs in a world of the *current* document (after a navigation too), and the
session goes with its page.
"""

from __future__ import annotations

import gc
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import BrowserContext, Page, Route

from orchestrator.contract import Viewport
from orchestrator.verifier import BrowserPool, BrowserSession, verify
from orchestrator.verifier._browser import _world as _replay_world
from tests.verifier.conftest import check, make_task

pytestmark = pytest.mark.anyio

VIEWPORT = Viewport(width=800, height=600)

# The DOM changes every 50 ms for 400 ms from when the script runs: a quiet wait of 100 ms on this
# document must outlast the burst.
LATE = """<!doctype html><body><p id="p">0</p><script>
let n = 0;
const tick = setInterval(() => {
  document.getElementById('p').textContent = String(++n);
  if (n === 8) clearInterval(tick);
}, 50);
</script></body>"""


async def test_one_session_per_page_for_every_await(
    pool: BrowserPool, site_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A state with two actions awaits at least four times on its page, through one
    session (the keeper's own session is not made here)."""
    made: dict[int, int] = {}
    awaits = 0
    orig_session = BrowserContext.new_cdp_session
    orig_eval = _replay_world.isolated_eval

    async def counting_session(self: BrowserContext, page: Any) -> Any:
        made[id(page)] = made.get(id(page), 0) + 1
        return await orig_session(self, page)

    async def counting_eval(*a: Any, **k: Any) -> Any:
        nonlocal awaits
        awaits += 1
        return await orig_eval(*a, **k)

    monkeypatch.setattr(BrowserContext, "new_cdp_session", counting_session)
    monkeypatch.setattr(_replay_world, "isolated_eval", counting_eval)
    states = [
        {
            "id": "red",
            "route": "/shop.html",
            "actions": [
                {"do": "click", "selector": "#chip-red"},
                {"do": "click", "selector": "#chip-red"},
            ],
        }
    ]
    checks = [
        check("two", "interaction", "red", kind="text_equals", selector="#result", value="2 items")
    ]
    task = make_task(tmp_path, states, checks)
    report = await verify(pool, task, site_url)
    assert report.check("two") is not None and report.check("two").passed  # type: ignore[union-attr]
    assert awaits >= 4, awaits
    # Pages that awaited: one session each (a warm context's keeper may add its own).
    assert made and max(made.values()) == 1, made


async def test_an_await_after_a_navigation_reads_the_new_document(
    pool: BrowserPool, site_url: str
) -> None:
    """The session outlives a navigation; the world each await makes is the new
    document's: its quiet wait sees the late mutation (a world kept from the first
    document would end at once, or fail)."""

    async def job(session: BrowserSession) -> tuple[float, str | None, bool]:
        page = session.page

        async def late(route: Route) -> None:
            await route.fulfill(status=200, content_type="text/html", body=LATE)

        await page.route("**/late.html", late)
        await page.goto(site_url + "/index.html")
        await _replay_world.dom_quiet(page, 100, 5.0)
        first = await _replay_world.page_session(page)
        await page.goto(site_url + "/late.html")
        start = time.monotonic()
        await _replay_world.dom_quiet(page, 100, 5.0)
        waited = time.monotonic() - start
        text = await page.locator("#p").text_content()
        same = first is await _replay_world.page_session(page)
        return waited, text, same

    waited, text, same = await pool.run(site_url, VIEWPORT, job)
    assert same, "the page's session was replaced"
    # The burst began when the document's script ran, before `goto` returned, so how
    # much of it is left depends on the machine's load: what is guarded is that the wait
    # saw the burst to its end (the last text) and then a quiet window of its own.
    assert text == "8", f"the quiet wait ended at {text!r}, before the burst ended"
    assert waited >= 0.1, f"the quiet wait ended after {waited:.3f} s, inside its window"


async def test_the_session_goes_with_its_page(pool: BrowserPool, site_url: str) -> None:
    # Live tabs of warm contexts an earlier test left idle in the pool keep theirs.
    gc.collect()
    held = len(_replay_world._SESSIONS)
    pages: list[Page] = []

    async def job(session: BrowserSession) -> None:
        await session.page.goto(site_url + "/index.html")
        await _replay_world.settle_frames(session.page, 5.0)
        pages.append(session.page)

    await pool.run(site_url, VIEWPORT, job)
    assert pages[0].is_closed()
    pages.clear()
    gc.collect()
    assert len(_replay_world._SESSIONS) == held, "a closed page's session is still held"
