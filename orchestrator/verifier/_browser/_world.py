"""Read the page from outside its own JavaScript world: every verdict comes from here.

`page.evaluate` and `locator.evaluate` run in the site's main world, where its code
can redefine whatever a probe reads (`Element.prototype.getBoundingClientRect`,
`getComputedStyle`, `Storage.prototype.getItem`, `innerText`, `document.fonts`) and
forge a verdict. So:

- element and page probes run in Playwright's utility world through the selector
  engine of `_js.py` (`probe_each`, `probe_page`): Playwright resolves the
  task's selector there and the probe reads the element in the same synchronous call;
- the settle wait (fonts, two frames) and the DOM-quiet window (a MutationObserver)
  are awaited in an isolated world made with CDP
  `Page.createIsolatedWorld` (a selector engine cannot await);
- locator reads (`count`, `inner_text`, `get_attribute`, `filter(visible=True)`,
  `get_by_role`) already run in the utility world; `all_inner_texts`/`evaluate*` do
  not, and are not used for verdicts; cookies and the URL come from the browser.
"""

from __future__ import annotations

import json
import uuid
from typing import Any
from weakref import WeakKeyDictionary

import anyio
from playwright.async_api import CDPSession, Locator, Page, Selectors
from playwright.async_api import Error as PlaywrightError

from ._js import DOM_QUIET, ENGINE_NAME, FRAMES, PROBE_ENGINE

# A probe is one synchronous call; this bounds the case of the element vanishing
# between the caller's count and the probe (Playwright would wait for it to reappear).
PROBE_TIMEOUT_MS = 10_000.0


async def register_engine(selectors: Selectors) -> None:
    """Once per Playwright instance, before any context (BrowserPool does it)."""
    await selectors.register(ENGINE_NAME, PROBE_ENGINE, content_script=True)


def _selector(probe: str, arg: object, elements: bool = False) -> str:
    spec = json.dumps({"n": uuid.uuid4().hex, "p": probe, "a": arg, "e": elements})
    return f"{ENGINE_NAME}={spec.encode().hex()}"


async def _read(loc: Locator) -> list[Any]:
    raw = await loc.text_content(timeout=PROBE_TIMEOUT_MS)
    out: list[Any] = json.loads(raw or "[]")
    return out


async def probe_each(loc: Locator, probe: str, arg: object = None) -> list[Any]:
    """`probe` on every element `loc` matches, in order; the caller knows there is one."""
    return await _read(loc.locator(_selector(probe, arg)))


def probe_elements(loc: Locator, probe: str, arg: object = None) -> Locator:
    """The document's elements a probe picks for `loc`'s first match (to act on them)."""
    return loc.locator(_selector(probe, arg, elements=True))


async def probe_page(page: Page, probe: str, arg: object = None) -> Any:
    """`probe` once, with the document."""
    (result,) = await _read(page.locator(_selector(probe, arg)))
    return result


async def settle_frames(page: Page, timeout: float) -> None:
    """Web fonts ready and two animation frames, awaited where the site cannot reach.

    Bounded by `timeout`; a navigation in the middle (the world goes with its
    document) ends the wait early, as the old document is no longer the one read.
    """
    await _isolated_await(page, FRAMES, timeout, "pwb-settle")


async def dom_quiet(page: Page, quiet_ms: int, timeout: float) -> None:
    """Until `quiet_ms` pass with no DOM mutation (observed from an isolated world).

    The observer and its timers live in a world of their own: the site can neither see
    nor fake them (its frozen clock and its `setTimeout` are not these). Bounded by
    `timeout`; ends early when the page navigates.
    """
    bound = max(int(timeout * 1000), quiet_ms)
    await _isolated_await(page, DOM_QUIET % (quiet_ms, quiet_ms, bound), timeout, "pwb-quiet")


# One CDP session per page for the awaits above, made on first use and kept until the
# page closes (its session goes with it): a state awaits 3 or more times (after the load,
# after every action, the settle), and attaching a session costs the browser ~6 ms a time.
_SESSIONS: WeakKeyDictionary[Page, CDPSession] = WeakKeyDictionary()


async def page_session(page: Page) -> CDPSession:
    """The page's CDP session for isolated awaits (`_SESSIONS`)."""
    session = _SESSIONS.get(page)
    if session is None:
        session = _SESSIONS[page] = await page.context.new_cdp_session(page)
    return session


async def isolated_eval(cdp: CDPSession, expression: str, world: str) -> dict[str, Any]:
    """`expression`'s answer (`Runtime.evaluate`'s, by value) in a new isolated world of
    `cdp`'s main frame: nothing of an earlier evaluation is left in it, and the site's
    scripts can neither see nor fake it."""
    tree = await cdp.send("Page.getFrameTree")
    made = await cdp.send(
        "Page.createIsolatedWorld",
        {"frameId": tree["frameTree"]["frame"]["id"], "worldName": world},
    )
    answer: dict[str, Any] = await cdp.send(
        "Runtime.evaluate",
        {
            "expression": expression,
            "contextId": made["executionContextId"],
            "awaitPromise": True,
            "returnByValue": True,
        },
    )
    return answer


async def isolated_await(page: Page, expression: str, timeout: float, world: str) -> Any:
    """`expression`'s value, awaited in `world` (`isolated_eval`); None when the timeout
    cut it short (the evaluation is abandoned, its answer dropped) or the page went."""
    try:
        with anyio.move_on_after(timeout):
            answer = await isolated_eval(await page_session(page), expression, world)
            result = answer.get("result")
            return result.get("value") if isinstance(result, dict) else None
    except PlaywrightError:
        _SESSIONS.pop(page, None)  # navigated away, or the page closed: nothing to wait for
    return None


async def _isolated_await(page: Page, expression: str, timeout: float, world: str) -> None:
    await isolated_await(page, expression, timeout, world)
