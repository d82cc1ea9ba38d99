"""One browser context in the pinned emulation, confined to the site's origin.

`open_context` gives a context with the viewport, scale 1, light colour scheme, reduced
motion, UTC and en-US, behind its own door of the pool's `Egress` (`_egress.py`: a proxy
to that origin only), its off-origin requests and WebSockets aborted before they reach
the door. `BrowserPool` (`_pool.py`) opens one per fresh state or warm context.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from playwright.async_api import Browser, BrowserContext, WebSocketRoute

from ...contract import Viewport
from ._egress import Egress


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def off_origin_pattern(origin: str) -> re.Pattern[str]:
    # A regex (not a callable) so Chromium matches it without a round trip per request;
    # data:/blob: URLs are never routed, so only http(s)/ws(s) need excluding.
    return re.compile(rf"^(?:https?|wss?)://(?!{re.escape(urlsplit(origin).netloc)}(?:[/?#]|$))")


async def open_context(
    browser: Browser, egress: Egress, origin: str, viewport: Viewport
) -> BrowserContext:
    """A context in the pinned emulation, behind its own door of `egress` (to `origin`
    only), its off-origin requests and WebSockets aborted before they reach the door."""
    door = await egress.door(origin)
    try:
        context = await _new_context(browser, door.url, viewport)
    except BaseException:
        door.close()
        raise
    context.on("close", lambda _: door.close())
    pattern = off_origin_pattern(origin)
    await context.route(pattern, lambda route: route.abort("blockedbyclient"))
    await context.route_web_socket(pattern, _refuse_socket)
    return context


async def _refuse_socket(ws: WebSocketRoute) -> None:
    await ws.close(code=1008, reason="off-origin")


async def _new_context(browser: Browser, proxy: str, viewport: Viewport) -> BrowserContext:
    return await browser.new_context(
        proxy={"server": proxy, "bypass": "<-loopback>"},
        viewport={"width": viewport.width, "height": viewport.height},
        device_scale_factor=1,
        color_scheme="light",
        forced_colors="none",
        reduced_motion="reduce",
        timezone_id="UTC",
        locale="en-US",
        # Service workers would serve requests past `context.route`.
        service_workers="block",
    )
