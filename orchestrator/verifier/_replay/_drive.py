"""Drive one state on a page, deterministically, and record what went wrong on the way.

Determinism: reduced motion, UTC and en-US are context options (`_browser/_context.py`);
here a stylesheet injected into every document disables animations, transitions and the
caret, and the clock's *start* is pinned: every state begins with `Date` at `FIXED_TIME`
(`clock.set_system_time`, Playwright's clock without `install`), and from there `Date`
moves with real time, as in any browser, through every navigation of the state (#53).
A page that waits or debounces on `Date.now()` then works as it does for its users;
a frozen `Date` (`set_fixed_time`, before #53) hung it, and it was graded as a site that
does not load. Why this does not make verdicts drift: a state lasts seconds (bounded by
its timeouts, minutes at most), so whatever a page derives from the date at a
granularity of a minute or coarser — the day, "today", "5 minutes ago" against a fixed
timestamp, a month's calendar — reads the same at every replay, in `capture` and in
`verify` alike (`FIXED_TIME` is noon UTC, far from a day's edges, and the time zone is
UTC). Only a page that shows the seconds of the current time, or computes from the
milliseconds, differs between replays, as it would between two visits; AUTHORING.md
already keeps `Date.now()` out of what checks look at. Timers, `performance.now()` and
animation frames run in real time; their functions are the clock's (Playwright's
`set_system_time` replaces them and drives them through its own scheduler), which the
settle's timer ledger wraps (`prepare`). After loading and after every action the page settles
(after the last one, or after the load of a state with no action, the final `settle`'s
window is that settle: one window, not two back to back, #51):
it waits, from the end of that action (never from before it), until the page has
nothing pending (`_settle.py`, session 21): no same-origin request in flight, no
timer due within the horizon two fixed `quiet_ms` windows gave (`2 * quiet_ms` after
the settle began or a request moved, `quiet_ms` after the last DOM mutation), and
`QUIET_FRAMES` frames with no DOM mutation, with no request started meanwhile; bounded
by `settle_timeout`. A request a handler sends 150 ms after the click is therefore
waited for, however late the host runs that timer. Then web fonts ready, loaded
images decoded, two animation frames (also in an isolated world); then the state's
`settle` selector, when given, must be visible. Screenshots disable animations and hide
the caret.

Network rule (`network` gate): a same-origin request fails it when it is aborted or
fails at the network level, or is answered 5xx; a 4xx fails it for the document's
subresources (scripts, styles, images, fonts, media, ...) but not for a script's own
`fetch`/XHR, where a 4xx (a 422 validation error, a 404 the page handles) is the
application's answer, graded by the authored checks. Images, fonts and stylesheets are
graded by `assets` instead; the main document's status by `routes`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from weakref import WeakSet

import anyio
from playwright.async_api import BrowserContext, ConsoleMessage, Page, Request, Response
from playwright.async_api import Error as PlaywrightError

from ...contract import (
    Action,
    Check,
    Click,
    Fill,
    Goto,
    Hover,
    Press,
    Reload,
    ScrollTo,
    Select,
    WaitFor,
)
from .._browser import settle_frames
from .._core import describe_action
from ._perf import watch_main_thread
from ._settle import MAIN as TIMERS
from ._settle import page_settled, watch_timers

FIXED_TIME = "2024-01-01T12:00:00Z"
FREEZE_CSS = (
    "*, *::before, *::after { animation: none !important; transition: none !important;"
    " caret-color: transparent !important; scroll-behavior: auto !important; }"
)
_INJECT = (
    "(() => { const css = " + json.dumps(FREEZE_CSS) + ";"
    " const add = () => { const s = document.createElement('style');"
    " s.setAttribute('data-pwb', ''); s.textContent = css;"
    " (document.head || document.documentElement).appendChild(s); };"
    " if (document.documentElement) add();"
    " else document.addEventListener('DOMContentLoaded', add); })();"
)
# Resource types graded by the `assets` gate; every other failed request is `network`.
ASSET_TYPES = frozenset({"image", "font", "stylesheet"})
# A script's own requests: a 4xx answer to them is application behaviour, not a failure.
SCRIPT_TYPES = frozenset({"fetch", "xhr"})


@dataclass(frozen=True, slots=True)
class ReplayOptions:
    action_timeout: float = 5.0
    navigation_timeout: float = 15.0
    settle_timeout: float = 10.0
    # The settle's horizon unit (`_settle.py`): a timer due within 2x of the
    # settle's start or a request, or 1x of a DOM mutation, is waited for; 0: no wait.
    quiet_ms: int = 100


# Not slotted: Playwright caches wrappers as attributes of a bound handler's instance.
@dataclass
class Recorder:
    """Collects console errors, page errors and failed requests, labelled by phase."""

    origin: str
    phase: str = "load"
    console_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    failed_assets: list[str] = field(default_factory=list)
    status: int | None = None
    inflight: int = 0
    last_change: float = field(default_factory=time.monotonic)
    # Main-frame navigations started so far, and the one each live request belongs to:
    # a request the harness's own reload/goto/link click cut off is not the site's fault.
    epoch: int = 0
    started_in: dict[Request, int] = field(default_factory=dict)
    # Every same-origin request of the context ("METHOD url"), and why the state's
    # inputs are not bounded by them (a WebSocket, a worker): see `_reuse/_cache.py`.
    requests: list[str] = field(default_factory=list)
    unbounded: str = ""
    # Set when the last request in flight ends, for a settle waiting on it.
    _idle: anyio.Event | None = None

    def attach_context(self, context: BrowserContext) -> None:
        context.on("request", self._on_any_request)

    def detach_context(self, context: BrowserContext) -> None:
        """Stop recording (a warm context serves further states after this one)."""
        context.remove_listener("request", self._on_any_request)

    def _on_any_request(self, request: Request) -> None:
        if self._same_origin(request.url):
            self.requests.append(f"{request.method} {request.url}")

    def _handlers(self) -> dict[str, Callable[[Any], None]]:
        return {
            "console": self._on_console,
            "pageerror": self._on_page_error,
            "request": self._on_request,
            "requestfinished": self._on_finished,
            "requestfailed": self._on_failed,
            "response": self._on_response,
            "websocket": self._on_websocket,
            "worker": self._on_worker,
        }

    def attach(self, page: Page) -> None:
        for event, handler in self._handlers().items():
            page.on(event, handler)  # type: ignore[call-overload]

    def detach(self, page: Page) -> None:
        """Stop recording the page (a warm context's tab serves later states too)."""
        for event, handler in self._handlers().items():
            page.remove_listener(event, handler)

    def _on_page_error(self, exc: object) -> None:
        self.console_errors.append(f"[{self.phase}] {exc}")

    def _on_websocket(self, _ws: object) -> None:
        self._unbound("it opened a WebSocket")

    def _on_worker(self, _worker: object) -> None:
        self._unbound("it started a worker")

    def _unbound(self, why: str) -> None:
        self.unbounded = self.unbounded or why

    def _same_origin(self, url: str) -> bool:
        return url.startswith(self.origin + "/") or url == self.origin

    def _on_console(self, msg: ConsoleMessage) -> None:
        # "Failed to load resource" repeats a network/assets failure (or an off-origin
        # request we aborted on purpose); those gates grade it, not `console`.
        if msg.type == "error" and not msg.text.startswith("Failed to load resource"):
            self.console_errors.append(f"[{self.phase}] {msg.text}")

    def _moved(self, by: int) -> None:
        """A same-origin request started (+1) or ended (-1)."""
        self.inflight += by
        self.last_change = time.monotonic()
        if self.inflight <= 0 and self._idle is not None:
            self._idle.set()

    def _on_request(self, request: Request) -> None:
        if request.is_navigation_request() and request.frame.parent_frame is None:
            self.epoch += 1
        if self._same_origin(request.url):
            self._moved(+1)
            self.started_in[request] = self.epoch

    def _on_finished(self, request: Request) -> None:
        if self._same_origin(request.url):
            self._moved(-1)
            self.started_in.pop(request, None)

    def _on_failed(self, request: Request) -> None:
        if not self._same_origin(request.url):
            return
        self._moved(-1)
        started = self.started_in.pop(request, self.epoch)
        why = request.failure or "aborted"
        if "ERR_ABORTED" in why and started < self.epoch:
            return  # its page was navigated away from: the abort is the navigation's
        self._fail(request, why)

    def _on_response(self, response: Response) -> None:
        request = response.request
        if not self._same_origin(response.url):
            return
        if request.is_navigation_request() and request.frame.parent_frame is None:
            self.status = response.status
        elif response.status >= 500 or (
            response.status >= 400 and request.resource_type not in SCRIPT_TYPES
        ):
            self._fail(request, f"HTTP {response.status}")

    def _fail(self, request: Request, why: str) -> None:
        path = request.url[len(self.origin) :] or "/"
        line = f"[{self.phase}] {request.resource_type} {path}: {why}"
        if request.resource_type in ASSET_TYPES:
            self.failed_assets.append(line)
        elif not request.is_navigation_request():
            self.failed_requests.append(line)

    async def _no_request_in_flight(self) -> None:
        while self.inflight > 0:
            self._idle = anyio.Event()
            await self._idle.wait()

    async def quiet(self, page: Page, opts: ReplayOptions) -> None:
        """Wait, from now, until the page has nothing pending (`_settle.py`): no
        request in flight, no timer due within the horizon, its DOM still (bounded)."""
        since = time.monotonic()
        with anyio.move_on_after(opts.settle_timeout):
            while True:
                await self._no_request_in_flight()
                mark = time.monotonic()
                moved = max(self.last_change, since)
                net_left = 2 * opts.quiet_ms - (mark - moved) * 1000
                await page_settled(page, net_left, opts.quiet_ms, opts.settle_timeout)
                if self.inflight <= 0 and self.last_change <= mark:
                    return


# Pages whose init scripts are in place: a warm context's tab serves many states, and a
# second init script would add a second freeze stylesheet to each document.
_PREPARED: WeakSet[Page] = WeakSet()


async def prepare(page: Page, opts: ReplayOptions) -> None:
    """Per-state determinism that must be in place before the state's first navigation:
    the freeze stylesheet and the main-thread watch (`_perf.py`) once per page,
    the clock's start at every state (a warm tab's next state starts at `FIXED_TIME`
    again, not where the last one left it)."""
    # The clock first: its init script must run before the timer ledger's in every
    # document, so the ledger wraps the clock's `setTimeout` (the site's), not the one
    # the clock drives its own timers with (`_settle.py`).
    await page.clock.set_system_time(FIXED_TIME)
    if page not in _PREPARED:
        await page.add_init_script(_INJECT + TIMERS)
        await watch_main_thread(page)
        await watch_timers(page)
        _PREPARED.add(page)
    page.set_default_timeout(opts.action_timeout * 1000)
    page.set_default_navigation_timeout(opts.navigation_timeout * 1000)


async def settle(page: Page, rec: Recorder, opts: ReplayOptions, selector: str | None) -> None:
    """The state's settle, right after its load or its last action: a quiet window, fonts
    and frames, then its `settle` selector visible. What the page does in the window is
    the load's or the last action's (its phase); after it, "after actions"."""
    await rec.quiet(page, opts)
    rec.phase = "after actions"
    await settle_frames(page, opts.settle_timeout)
    if selector:
        await page.locator(selector).first.wait_for(
            state="visible", timeout=opts.settle_timeout * 1000
        )


async def navigate(page: Page, base_url: str, route: str, rec: Recorder) -> str:
    """Load `route`; the error text when the document could not be loaded at all."""
    try:
        response = await page.goto(base_url.rstrip("/") + route, wait_until="load")
    except PlaywrightError as exc:
        return f"navigation to {route} failed: {_first_line(exc)}"
    if response is not None:
        rec.status = response.status
    return ""


async def perform(page: Page, base_url: str, action: Action) -> None:
    match action:
        case Click(selector=s):
            await page.locator(s).first.click()
        case Fill(selector=s, value=v):
            await page.locator(s).first.fill(v)
        case Press(selector=s, key=k):
            await page.locator(s).first.press(k)
        case Hover(selector=s):
            await page.locator(s).first.hover()
        case Check(selector=s):
            await page.locator(s).first.check()
        case Select(selector=s, value=v):
            await page.locator(s).first.select_option(v)
        case ScrollTo(selector=s):
            await page.locator(s).first.scroll_into_view_if_needed()
        case WaitFor(selector=s, state=st):
            await page.locator(s).first.wait_for(state=st)
        case Reload():
            await page.reload(wait_until="load")
        case Goto(route=r):
            await page.goto(base_url.rstrip("/") + r, wait_until="load")


class ActionFailed(Exception):
    """An action could not be done the way it was asked (its text says why): the state
    was not reached, like a Playwright error performing it (`_keyboard.py`)."""


Act = Callable[[Page, str, Action], Awaitable[None]]


async def run_actions(
    page: Page,
    base_url: str,
    actions: tuple[Action, ...],
    rec: Recorder,
    opts: ReplayOptions,
    act: Act = perform,
) -> str:
    """Load-settled page in, actions performed in order (each by `act`), each but the
    last followed by a quiet window: the caller's `settle` is the last one's. The first
    failure (as text) stops the replay."""
    for i, action in enumerate(actions, 1):
        rec.phase = f"action {i}: {describe_action(action)}"
        try:
            await act(page, base_url, action)
            if i < len(actions):
                await rec.quiet(page, opts)
        except (PlaywrightError, ActionFailed) as exc:
            return f"{rec.phase} failed: {_first_line(exc)}"
    return ""


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
