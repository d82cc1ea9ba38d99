"""Warm contexts: states share a context, its renderer and one tab, across checkpoints too.

A fresh context per state costs a new renderer process (≈ 0.5 CPU-s, most of a simple
state's cost), and a new page per state most of the rest. `WarmContexts` is one
checkpoint's view of idle contexts per (origin, viewport); the states of a context are
replayed one after another on its one *tab*, and between two states the tab and the
context are reset. The idle contexts live in a `WarmStore`: the pool's
(`BrowserPool.warm_contexts`) keeps up to `cap` of them, least recently used closed
first, for the next checkpoint (of the same cell, or of any cell whose site has the same
origin), so a cell opens its few contexts once instead of at every checkpoint; a state
gets exactly the same reset whichever checkpoint used the context before. A private
store (cap 0) closes all at the checkpoint's end. The reset:

- the tab is navigated to `about:blank` (the state's unload handlers run, its document
  and JavaScript heap go), its session history is reset to that one entry
  (`Page.resetNavigationHistory`: a new page's `about:blank` then the state's load, so
  `history.length` and back/forward are a new page's) and `window.name` emptied; then
  proven: the tab must read `about:blank`, one history entry and no name;
- cookies, permissions, and every storage type of the origin are cleared (CDP
  `Storage.clearDataForOrigin` "all": localStorage, sessionStorage of every tab,
  IndexedDB, cache storage, service workers, ...), and the HTTP cache
  (`Network.clearBrowserCache`);
- the reset is then proven: the *keeper* (a blank same-origin document the harness
  serves itself for that one load, `KEEPER_PATH`, never the site's) reads localStorage,
  IndexedDB, cache storage, service workers and `document.cookie` and must find them
  empty, the context's cookie jar must be empty, and the context must hold no target
  but the keeper and the tab.

The keeper also keeps the origin's renderer process alive between states. A context
whose reset cannot be proven is closed instead, and the next state gets a new one: a
state that left another page open (a popup), a worker or other target alive, made a
request after its job ended (an unload beacon), closed its tab, or was answered with a
header the browser keeps per origin beyond storage (`PERSISTED_HEADERS`: client hints,
reporting/NEL). Emulation (viewport, scale, colour scheme, reduced motion, locale,
timezone, blocked service workers, off-origin routing) is a context option and the same
for every state of the context (`_browser._context.open_context`); the freeze stylesheet and the
fixed clock are the tab's, installed once (`_replay._drive.prepare`); the dialog handler too
(it dismisses, but answers a state's "leave this page?" with yes while the reset
leaves it, as closing a new page would not ask).

What the states of one context do share is the renderer process and the tab: a later
state could tell from timing or `performance.memory` that it is not the first, but reads
no data of an earlier one. The pointer is not carried over: a new document has no
hovered element until the pointer moves (`tests/verifier/test_warm.py` clicks where the
next state shows a `:hover` rule). Its memory cache is not a channel either: the
off-origin route makes Playwright disable the cache for every page
(`Network.setCacheDisabled`, which also evicts the renderer's memory cache), as in a
fresh context.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import anyio
from playwright.async_api import (
    BrowserContext,
    CDPSession,
    Dialog,
    Page,
    Request,
    Response,
    Route,
)
from playwright.async_api import Error as PlaywrightError

from ...contract import Viewport
from ._world import isolated_eval, page_session

KEEPER_PATH = "/__pwb_keeper__"
_KEEPER_HTML = "<!doctype html><title>pwb keeper</title>"
# Response headers whose effect the browser stores per origin outside cleared storage.
PERSISTED_HEADERS = frozenset(
    {"accept-ch", "critical-ch", "nel", "report-to", "reporting-endpoints"}
)
# Read in the keeper (a document with no script of the site's): what must be empty.
_LEFTOVERS = """async () => {
  const out = [];
  if (localStorage.length) out.push(`localStorage has ${localStorage.length} item(s)`);
  if (sessionStorage.length) out.push('sessionStorage of the keeper is not empty');
  if (document.cookie) out.push('document.cookie is not empty');
  if (indexedDB.databases) {
    const dbs = await indexedDB.databases();
    if (dbs.length) out.push(`IndexedDB has ${dbs.length} database(s)`);
  }
  if (typeof caches !== 'undefined' && (await caches.keys()).length)
    out.push('cache storage is not empty');
  if (navigator.serviceWorker && (await navigator.serviceWorker.getRegistrations()).length)
    out.push('a service worker is registered');
  return out;
}"""

Key = tuple[str, int, int]


async def dismiss_dialog(dialog: Dialog) -> None:
    try:
        await dialog.dismiss()
    except PlaywrightError:
        pass  # the page went away first


# Not slotted: Playwright caches wrappers as attributes of a bound handler's instance.
@dataclass
class WarmContext:
    """One reusable context: its keeper page, and why it can no longer be reused."""

    context: BrowserContext
    keeper: Page
    cdp: CDPSession
    origin: str
    owner: object  # the browser generation it belongs to (`_browser._pool._Generation`)
    context_id: str = ""  # CDP's browserContextId, to find the context's targets
    tab: Page | None = None  # the page the states are replayed on, reset between them
    leaving: bool = False  # the reset is taking the tab off the state's document
    tainted: str = ""
    states: int = 0

    def taint(self, why: str) -> None:
        self.tainted = self.tainted or why

    def on_response(self, response: Response) -> None:
        if response.url.startswith(self.origin + "/") and not response.url.endswith(KEEPER_PATH):
            found = PERSISTED_HEADERS & set(response.headers)
            if found:
                self.taint(f"the site sent {sorted(found)[0]}, which the browser keeps")

    def _pages(self) -> int:
        return 1 + (self.tab is not None)  # the keeper, and the states' tab once made

    async def new_page(self) -> Page:
        """The states' tab: made at the first state, reused (reset) by every later one."""
        if len(self.context.pages) != self._pages():
            raise PlaywrightError("a warm context must hold only its keeper and tab between states")
        self.states += 1
        if self.tab is None:
            self.tab = await self.context.new_page()
            self.tab.on("dialog", self.on_dialog)
        return self.tab

    async def on_dialog(self, dialog: Dialog) -> None:
        """Dismissed, as on any page; but the state's "leave this page?" is answered
        yes while the reset leaves it (a new page is closed without asking)."""
        if self.leaving and dialog.type == "beforeunload":
            try:
                await dialog.accept()
            except PlaywrightError:
                pass  # the page went away first
        else:
            await dismiss_dialog(dialog)

    async def reset(self, page: Page) -> str:
        """End the state's document and clear the context; why it is not clean, or ''."""
        late: list[str] = []

        def after_job(request: Request) -> None:
            late.append(request.url)

        self.context.on("request", after_job)
        try:
            # Its unload handlers run here, before anything is cleared.
            blank = await self.blank_tab(page)
            others = [p for p in self.context.pages if p is not self.keeper and p is not page]
            if others:
                return f"the state left {len(others)} other page(s) open"
            if blank:
                return blank
            await self.clear()
            if late:
                return f"a request after the state's job: {late[0]}"
            return self.tainted or await self.leftovers()
        finally:
            self.context.remove_listener("request", after_job)

    async def blank_tab(self, page: Page) -> str:
        """Take the tab back to what a new page is, and prove it; why not, or ''."""
        await self.empty_tab(page)
        return await self.tab_leftovers(page)

    async def empty_tab(self, page: Page) -> None:
        """A new document (`about:blank`) as the one history entry, no `window.name`."""
        self.leaving = True
        try:
            await page.goto("about:blank")
        finally:
            self.leaving = False
        cdp = await page_session(page)
        await cdp.send("Page.resetNavigationHistory")
        # The name belongs to the tab, not to a world: set from an isolated one.
        await isolated_eval(cdp, "window.name = ''", "pwb-tab")

    async def tab_leftovers(self, page: Page) -> str:
        """What a new page would not have: another document, history entries, a name."""
        cdp = await page_session(page)
        answer = await isolated_eval(cdp, "[location.href, history.length, window.name]", "pwb-tab")
        seen = answer.get("exceptionDetails") or answer["result"].get("value")
        if seen != ["about:blank", 1, ""]:
            return f"the tab is not blank after its reset (url, history, name): {seen}"
        return ""

    async def clear(self) -> None:
        await self.cdp.send(
            "Storage.clearDataForOrigin", {"origin": self.origin, "storageTypes": "all"}
        )
        await self.cdp.send("Network.clearBrowserCache")
        await self.context.clear_cookies()
        await self.context.clear_permissions()

    async def leftovers(self) -> str:
        if await self.context.cookies():
            return "the cookie jar is not empty after clearing it"
        targets = await self.cdp.send("Target.getTargets")
        mine = [
            t["type"]
            for t in targets["targetInfos"]
            if t.get("browserContextId") == self.context_id and t["type"] != "browser_ui"
        ]
        if mine != ["page"] * self._pages():
            return f"targets other than the keeper and tab are still alive: {sorted(mine)}"
        # Read in an isolated world of the keeper (same origin, same storage), never in
        # a main world a site's script could have reached.
        answer = await isolated_eval(self.cdp, f"({_LEFTOVERS})()", "pwb-keeper")
        if "exceptionDetails" in answer:
            return f"the keeper could not read its storage: {answer['exceptionDetails']}"
        found: list[str] = answer["result"].get("value", [])
        return "; ".join(found)


async def open_warm(context: BrowserContext, origin: str, owner: object) -> WarmContext:
    """Add the keeper to a freshly made context (before any page of the site's)."""

    async def keeper_doc(route: Route) -> None:
        await route.fulfill(status=200, content_type="text/html", body=_KEEPER_HTML)

    # Served by us for the keeper's one load only: the site's own requests to the path
    # reach the site afterwards, as they do in a fresh context.
    await context.route(origin + KEEPER_PATH, keeper_doc)
    keeper = await context.new_page()
    await keeper.goto(origin + KEEPER_PATH)
    await context.unroute(origin + KEEPER_PATH, keeper_doc)
    cdp = await context.new_cdp_session(keeper)
    info = await cdp.send("Target.getTargetInfo")
    warm = WarmContext(context=context, keeper=keeper, cdp=cdp, origin=origin, owner=owner)
    warm.context_id = info["targetInfo"].get("browserContextId", "")
    context.on("response", warm.on_response)
    return warm


@dataclass(slots=True)
class WarmStore:
    """Idle warm contexts, most recently used last; `trim()` keeps the last `cap`."""

    cap: int = 0
    idle: list[tuple[Key, WarmContext]] = field(default_factory=list)

    def take(self, key: Key, alive: Callable[[object], bool]) -> WarmContext | None:
        for i in range(len(self.idle) - 1, -1, -1):
            k, warm = self.idle[i]
            if k == key:
                del self.idle[i]
                if alive(warm.owner):
                    return warm
        return None

    def give(self, key: Key, warm: WarmContext) -> None:
        self.idle.append((key, warm))

    async def trim(self) -> None:
        """Close the least recently used idle contexts beyond `cap`."""
        cut = max(0, len(self.idle) - self.cap)
        gone, self.idle = self.idle[:cut], self.idle[cut:]
        with anyio.move_on_after(30, shield=True):
            for _, warm in gone:
                try:
                    await warm.context.close()
                except PlaywrightError:
                    pass  # its browser is already gone


@dataclass(slots=True)
class WarmContexts:
    """One checkpoint's warm contexts; `close()` ends them, or leaves them idle in a
    shared `store` for the next checkpoint (up to its cap)."""

    store: WarmStore = field(default_factory=WarmStore)
    # opened / reused / discarded (with why): what the reuse bought, for the event log.
    counts: Counter[str] = field(default_factory=Counter)
    discarded: list[str] = field(default_factory=list)
    closed: bool = False

    def take(
        self, origin: str, viewport: Viewport, alive: Callable[[object], bool]
    ) -> WarmContext | None:
        """An idle context of a live browser for (origin, viewport), or None."""
        warm = self.store.take((origin, viewport.width, viewport.height), alive)
        if warm is not None:
            self.counts["reused"] += 1
        return warm

    def give(self, warm: WarmContext, viewport: Viewport) -> None:
        self.store.give((warm.origin, viewport.width, viewport.height), warm)

    def discard(self, why: str) -> None:
        self.counts["discarded"] += 1
        self.discarded.append(why)

    async def close(self) -> None:
        self.closed = True
        await self.store.trim()
