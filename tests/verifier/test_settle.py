"""A state settles once, after its load or its last action (`_replay/_drive.py`, #51), and the
settle waits for what the page has pending, not for a fixed silence
(`_replay/_settle.py`, session 21). A request a handler sends 150 ms after the load or
the click, and the text its answer writes, are seen by the state's checks; so is what a
timer due within the horizon writes without any request; a timer due seconds later is
not waited for (every state would pay for its page's slowest timer)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from playwright.async_api import Locator, Route

from orchestrator.contract import Click, Viewport
from orchestrator.verifier import BrowserPool, BrowserSession, verify
from orchestrator.verifier._browser._world import isolated_await
from orchestrator.verifier._replay._drive import ReplayOptions, prepare
from orchestrator.verifier._replay._keyboard import operate
from orchestrator.verifier._replay._settle import SETTLE_WORLD

from .conftest import check, make_task

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

ROUTE = "/late-fetch.html"
STATES: list[dict[str, Any]] = [
    {"id": "loaded", "route": ROUTE},
    {"id": "clicked", "route": ROUTE, "actions": [{"do": "click", "selector": "#go"}]},
    {
        "id": "twice",
        "route": ROUTE,
        "actions": [
            {"do": "click", "selector": "#go"},
            {"do": "click", "selector": "h1"},
        ],
    },
]
CHECKS = [
    check("load_seen", "text", "loaded", kind="text_equals", selector="#onload", value="done"),
    check(
        "click_seen",
        "interaction",
        "clicked",
        kind="text_equals",
        selector="#onclick",
        value="done",
    ),
    check(
        "first_seen", "interaction", "twice", kind="text_equals", selector="#onclick", value="done"
    ),
]


async def test_the_one_settle_window_waits_for_a_late_request(
    pool: BrowserPool, site_url: str, tmp_path: Path
) -> None:
    report = await verify(pool, make_task(tmp_path, STATES, CHECKS), site_url)
    for cid in ("load_seen", "click_seen", "first_seen"):
        result = report.check(cid)
        assert result is not None and result.passed, result
    network = [g for g in report.gates if g.gate == "network"]
    assert all(g.status != "fail" for g in network), network


TIMER_STATES = [
    {"id": "clicked", "route": "/late-timer.html", "actions": [{"do": "click", "selector": "#go"}]}
]


def _timer_check(cid: str, selector: str, value: str) -> dict[str, object]:
    return check(cid, "interaction", "clicked", kind="text_equals", selector=selector, value=value)


async def test_the_settle_waits_for_a_pending_timer_not_for_a_later_one(
    pool: BrowserPool, site_url: str, tmp_path: Path
) -> None:
    """With the ledger's pending timers ignored, the page is read before 190 ms and both
    waited checks read "waiting"; with every timer waited for, `later` reads "done"."""
    checks = [
        _timer_check("soon", "#soon", "done"),
        _timer_check("chained", "#chained", "done"),
        _timer_check("later", "#later", "waiting"),
    ]
    report = await verify(pool, make_task(tmp_path, TIMER_STATES, checks), site_url)
    for cid in ("soon", "chained", "later"):
        result = report.check(cid)
        assert result is not None and result.passed, result


async def test_a_page_cannot_cut_the_ledger_off(
    pool: BrowserPool, site_url: str, tmp_path: Path
) -> None:
    """Replacing `dispatchEvent` and `CustomEvent` after the ledger's script ran does not
    hide the page's timer from the settle (the ledger holds the originals)."""
    states = [{**TIMER_STATES[0], "route": "/late-timer-hostile.html"}]
    report = await verify(
        pool, make_task(tmp_path, states, [_timer_check("soon", "#soon", "done")]), site_url
    )
    result = report.check("soon")
    assert result is not None and result.passed, result


async def test_the_ledger_holds_the_sites_timers_not_the_clocks(
    pool: BrowserPool, site_url: str
) -> None:
    """Playwright's clock (`FIXED_TIME`) drives the site's timers with its own, one at
    most 100 ms ahead at all times. The ledger must wrap the clock's `setTimeout`, not
    the one under it: else that heartbeat is always pending and every settle lasts its
    whole horizon (200 ms, twice a state), the cost this settle exists to remove."""

    async def job(session: BrowserSession) -> tuple[object, object]:
        page = session.page
        await prepare(page, ReplayOptions())
        await page.goto(site_url + "/late-timer.html")
        idle = await isolated_await(page, "__pwbPending()", 5.0, SETTLE_WORLD)
        # Three timers the site sets, due long after this test reads them: a loaded host
        # cannot make one fire first (the click's 120-190 ms timers once read as 2).
        await page.evaluate("() => { for (let i = 0; i < 3; i++) setTimeout(() => {}, 60000); }")
        busy = await isolated_await(page, "__pwbPending()", 5.0, SETTLE_WORLD)
        return idle, busy

    idle, busy = await pool.run(site_url, Viewport(width=800, height=600), job)
    assert idle == 0, f"{idle} timer(s) pending on a page that set none"
    assert busy == 3, f"the site's three timers read as {busy}"


async def test_the_ledger_holds_a_request_from_the_call_to_the_answer(
    pool: BrowserPool, site_url: str
) -> None:
    """A `fetch` or an XHR the page starts is pending at once, before the browser's
    request event has reached the verifier (late on a loaded host: a debounced form was
    once read before its answer), and until its answer; one that fails ends too."""

    async def job(session: BrowserSession) -> list[object]:
        page = session.page
        release = anyio.Event()

        async def slow(route: Route) -> None:
            await release.wait()
            await route.fulfill(status=200, body="{}")

        await page.route("**/slow*", slow)
        await page.route("**/refused", lambda route: route.abort())
        await prepare(page, ReplayOptions())
        await page.goto(site_url + "/late-timer.html")

        async def pending() -> object:
            return await isolated_await(page, "__pwbPending()", 5.0, SETTLE_WORLD)

        seen = [await pending()]
        await page.evaluate(
            """() => { fetch('/slow?f');
                       const x = new XMLHttpRequest(); x.open('GET', '/slow?x'); x.send(); }"""
        )
        seen.append(await pending())
        await page.evaluate("() => { fetch('/refused').catch(() => {}); }")
        release.set()
        with anyio.fail_after(10):
            while await pending() != 0:
                await anyio.sleep(0.05)
        seen.append(await pending())
        return seen

    got = await pool.run(site_url, Viewport(width=800, height=600), job)
    assert got[0] == 0 and got[2] == 0, got
    assert got[1] == 2, f"the fetch and the XHR in flight read as {got[1]}"


async def test_a_request_the_page_does_not_catch_still_fails_as_its_own(
    pool: BrowserPool, site_url: str
) -> None:
    """The wrapper must not handle what the page leaves unhandled: a failed `fetch` with
    no `catch` is still the page's uncaught rejection (graded under `console`)."""

    async def job(session: BrowserSession) -> list[str]:
        page = session.page
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        await page.route("**/refused", lambda route: route.abort())
        await prepare(page, ReplayOptions())
        await page.goto(site_url + "/late-timer.html")
        await page.evaluate("() => { fetch('/refused'); }")
        with anyio.fail_after(10):
            while not errors:
                await anyio.sleep(0.05)
        return errors

    errors = await pool.run(site_url, Viewport(width=800, height=600), job)
    assert any("Failed to fetch" in e for e in errors), errors


FORM = """<!doctype html><html lang="en"><title>Fares</title>
<form action="/fares" method="get"><label>From <input name="from" value="Skerrow"></label>
<button id="go" type="submit">Find fares</button></form>"""


async def _page_keyboard_press(self: Locator, key: str, **_: object) -> None:
    await self.page.keyboard.press(key)  # the planted bug: the page's keyboard, no wait


@pytest.mark.parametrize("planted", [False, True], ids=["element-press", "planted-page-keyboard"])
async def test_a_key_that_submits_a_form_has_left_the_page_when_the_settle_begins(
    pool: BrowserPool, site_url: str, monkeypatch: pytest.MonkeyPatch, planted: bool
) -> None:
    """The keyboard replay's Enter or Space (`_replay/_keyboard.py` `operate`) waits, as
    the pointer's click does, for the navigation it starts to commit: the settle after it
    begins on the answer's document. On the page's keyboard it did not, and on a loaded
    host the navigation's request reached the verifier after the old page had settled:
    `keyboard:u1-no-traveller` (build-skerrow-ferry-fares) read the form 1 run in 3.
    Here the answer is held back 1.5 s; right after `operate` the page must be it."""
    if planted:
        monkeypatch.setattr(Locator, "press", _page_keyboard_press)

    async def job(session: BrowserSession) -> str:
        page = session.page

        async def answer(route: Route) -> None:
            await anyio.sleep(1.5)  # a slow server, or a loaded host
            await route.fulfill(status=200, content_type="text/html", body="<p>3 fares</p>")

        await page.route("**/fares*", answer)
        await page.route(
            "**/form.html", lambda route: route.fulfill(body=FORM, content_type="text/html")
        )
        await page.goto(site_url + "/form.html")
        await operate(page, site_url, Click(selector="#go"))
        return page.url  # at once: where the settle after the action would begin

    url = await pool.run(site_url, Viewport(width=800, height=600), job)
    assert url == (site_url + "/form.html" if planted else site_url + "/fares?from=Skerrow")
