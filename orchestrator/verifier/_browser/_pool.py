"""`BrowserPool`: one headless Chromium per process, a fresh context or a reset tab per state.

The pool owns the Playwright driver and the browser. The browser renders in the pinned
environment (`_environment.py`: its own fontconfig and nothing else of the host's
environment), runs as an unprivileged user with its own sandbox on (`_confine.py`), and
reaches the network only through the pool's `Egress` (`_egress.py`): each context's proxy
tunnels to its origin and nowhere else, loopback included, and the browser's own traffic
is refused. Each `run()` gets a new context (viewport, scale 1, light colour scheme,
reduced motion, UTC, en-US, its proxy, off-origin requests and WebSockets aborted before
they reach it) behind a `CapacityLimiter`,
or, given a checkpoint's `WarmContexts`, the reset tab of a warm context (`_warm.py`;
`warm_contexts()` gives one whose idle contexts the pool keeps for later checkpoints).
The browser is replaced after `recycle_after` contexts, and when it disconnects
mid-state it is relaunched and that one state is retried once. `environment()` measures
the running environment's fingerprint once per pool.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass
from types import TracebackType
from typing import Literal, Self, TypeVar

import anyio
from playwright.async_api import Browser, Playwright, async_playwright
from playwright.async_api import Error as PlaywrightError

from ...contract import Viewport
from .._core import BrowserCrashed, HarnessTimeout, VerifierError, VerifierInfraError
from ._confine import BROWSER_USER, Confinement, browser_user, confine_network
from ._context import open_context, origin_of
from ._egress import Egress
from ._environment import PinnedFonts, RenderEnv, fonts_digest, pixels_digest
from ._headroom import Headroom
from ._session import BrowserSession, calibration, close_quietly, open_session, translated
from ._warm import WarmContext, WarmContexts, WarmStore, open_warm
from ._world import register_engine

# "reuse": reuse unchanged states and warm contexts; "states": reuse unchanged states,
# a fresh context per replayed state; "full": replay everything, fresh contexts (audit).
ReplayMode = Literal["reuse", "states", "full"]

T = TypeVar("T")

CHROMIUM = "/usr/bin/chromium"
# No --no-sandbox (`_confine.py`). The egress flags: WebRTC sends no UDP (its only other
# way out is TCP through the proxy, which refuses it); no name is resolved here (SOCKS5
# resolves at the proxy, and nothing else may), the proxy's own address excepted.
CHROMIUM_ARGS = (
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--force-color-profile=srgb",
    "--force-device-scale-factor=1",
    "--disable-lcd-text",
    "--font-render-hinting=slight",
)
CALIBRATION_VIEWPORT = Viewport(width=640, height=240)


@dataclass(slots=True)
class _Generation:
    """One launched browser and the contexts it has served."""

    browser: Browser
    served: int = 0
    active: int = 0
    retired: bool = False


class BrowserPool:
    """An async context manager owning one Chromium; see the module docstring."""

    TIMEOUT_RETRIES = 2
    TIMEOUT_PAUSE_S = 1.0
    WARM_PER_SLOT = 3
    # Adaptive slots: at most this many concurrent states a core (`_headroom.py`).
    HEADROOM_CEILING = 4

    def __init__(
        self,
        *,
        max_contexts: int | None = None,
        recycle_after: int = 200,
        executable_path: str = CHROMIUM,
        launch_timeout: float = 30.0,
        allow_env_drift: bool = False,
        replay: ReplayMode = "reuse",
        user: str = BROWSER_USER,
    ) -> None:
        # A fixed number of concurrent states, or (None) as many as the CPU has room
        # for: a core each at first, up to `HEADROOM_CEILING` a core (`_headroom.py`).
        cores = os.cpu_count() or 1
        self.limiter = anyio.CapacityLimiter(max_contexts or cores)
        self.headroom: Headroom | None = None
        if max_contexts is None:
            ceiling = self.HEADROOM_CEILING * cores
            self.headroom = Headroom(self.limiter, floor=cores, ceiling=ceiling)
        self.recycle_after = recycle_after
        self.executable_path = executable_path
        self.launch_timeout = launch_timeout
        self.user_name = user
        # When the environment differs from a task's evidence: grade its visual gates
        # not applicable (True) instead of refusing to verify (False).
        self.allow_env_drift = allow_env_drift
        # "reuse": checkpoints reuse unchanged states (`_reuse/_cache.py`); "full": audit mode.
        self.replay: ReplayMode = replay
        self.launches = 0
        self._fonts: PinnedFonts | None = None
        self._env: RenderEnv | None = None
        self._confine: Confinement | None = None
        self._egress: Egress | None = None
        self._stack: AsyncExitStack | None = None
        self._pw: Playwright | None = None
        self._gen: _Generation | None = None
        # Idle warm contexts kept between checkpoints: a few per concurrent state.
        slots = self.headroom.ceiling if self.headroom else int(self.limiter.total_tokens)
        self._warm = WarmStore(cap=self.WARM_PER_SLOT * slots)
        self._lock = anyio.Lock()
        self._env_lock = anyio.Lock()  # one calibration render, however many ask at once

    async def __aenter__(self) -> Self:
        if self._stack is not None:
            raise VerifierError("a BrowserPool cannot be entered twice")
        if not os.access(self.executable_path, os.X_OK):
            raise VerifierInfraError(f"cannot launch {self.executable_path}: not an executable")
        async with AsyncExitStack() as stack:
            user = browser_user(self.user_name)
            if user is not None:
                await confine_network(user)
            self._fonts = PinnedFonts(owner=user)
            stack.callback(self._fonts.close)
            self._confine = stack.enter_context(Confinement(self.executable_path, user))
            self._egress = await stack.enter_async_context(Egress())
            try:
                self._pw = await async_playwright().start()
                stack.push_async_callback(self._stop_driver)
                await register_engine(self._pw.selectors)  # the probes (`_world.py`)
            except PlaywrightError as exc:
                raise VerifierInfraError(f"cannot start the Playwright driver: {exc}") from exc
            self._gen = _Generation(browser=await self._launch())
            if self.headroom is not None:
                # Its loop lives as long as the pool; cancelled first on the way out.
                tg = await stack.enter_async_context(anyio.create_task_group())
                tg.start_soon(self.headroom.run)
                stack.callback(tg.cancel_scope.cancel)
            self._stack = stack.pop_all()
        return self

    async def __aexit__(
        self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._warm.idle.clear()  # closed with their browser
        if self._stack is not None:
            await self._stack.aclose()

    async def _stop_driver(self) -> None:
        with anyio.move_on_after(30, shield=True):
            if self._gen is not None:
                await close_quietly(self._gen.browser)
            if self._pw is not None:
                await self._pw.stop()
        self._gen = None

    @property
    def refused(self) -> list[str]:
        """The destinations (host:port) the pool's egress refused to its pages."""
        return [] if self._egress is None else self._egress.refused

    def idle_slot(self) -> bool:
        """A state started now would replay at once: a slot is free and nothing waits."""
        stats = self.limiter.statistics()
        return stats.borrowed_tokens < stats.total_tokens and stats.tasks_waiting == 0

    def warm_contexts(self) -> WarmContexts:
        """A checkpoint's warm contexts, drawing on and returning to the pool's store."""
        return WarmContexts(store=self._warm)

    @property
    def running(self) -> bool:
        """Entered (a pool is entered once): `environment` measures in its browser."""
        return self._pw is not None

    async def environment(self) -> RenderEnv:
        """The running environment's fingerprint (measured once, on first use)."""
        async with self._env_lock:
            if self._env is None:
                self._env = await self._measure_environment()
            return self._env

    async def _measure_environment(self) -> RenderEnv:
        async with self.limiter:
            png = await self._run_once("about:blank", CALIBRATION_VIEWPORT, calibration)
        gen = self._gen
        assert gen is not None
        version = gen.browser.version
        return RenderEnv(
            browser=gen.browser.browser_type.name,
            browser_major=int(version.split(".")[0]),
            browser_version=version,
            fonts=await anyio.to_thread.run_sync(fonts_digest),
            calibration=pixels_digest(png),
        )

    async def _launch(self) -> Browser:
        assert self._pw is not None and self._fonts is not None
        assert self._confine is not None and self._egress is not None
        try:
            browser = await self._pw.chromium.launch(
                executable_path=self._confine.executable,
                headless=True,
                chromium_sandbox=True,
                # Traffic of no context (the browser's own) is refused; loopback too.
                proxy={"server": self._egress.deny_url, "bypass": "<-loopback>"},
                args=list(CHROMIUM_ARGS),
                env=dict(self._fonts.env),
                timeout=self.launch_timeout * 1000,
            )
        except PlaywrightError as exc:
            raise VerifierInfraError(f"cannot launch {self.executable_path}: {exc}") from exc
        self.launches += 1
        return browser

    async def _acquire(self) -> _Generation:
        """The generation a new context should use, replacing a dead or worn-out browser."""
        async with self._lock:
            gen = self._gen
            if gen is None or self._egress is None:
                raise VerifierError("BrowserPool used outside `async with`")
            if not gen.browser.is_connected() or gen.served >= self.recycle_after:
                gen.retired = True
                if gen.active == 0:
                    await close_quietly(gen.browser)
                gen = self._gen = _Generation(browser=await self._launch())
            gen.served += 1
            gen.active += 1
            return gen

    async def _release(self, gen: _Generation) -> None:
        gen.active -= 1
        if gen.retired and gen.active == 0:
            with anyio.move_on_after(10, shield=True):
                await close_quietly(gen.browser)

    async def run(
        self,
        base_url: str,
        viewport: Viewport,
        job: Callable[[BrowserSession], Awaitable[T]],
        warm: WarmContexts | None = None,
    ) -> T:
        """Run `job` on a fresh context, or on the reset tab of a warm context of
        `warm` (`_warm.py`); a browser crash is retried once on a new browser, a
        harness-side timeout (a loaded host) up to `TIMEOUT_RETRIES` times, backing off."""
        crashes = timeouts = 0
        async with self.limiter:
            while True:
                try:
                    if warm is not None:
                        return await self._run_warm(base_url, viewport, job, warm)
                    return await self._run_once(base_url, viewport, job)
                except BrowserCrashed:
                    crashes += 1  # relaunched by `_acquire`; only this state is re-run
                    if crashes > 1:
                        raise
                except HarnessTimeout:
                    timeouts += 1
                    if timeouts > self.TIMEOUT_RETRIES:
                        raise
                    await anyio.sleep(self.TIMEOUT_PAUSE_S * timeouts)

    async def _run_once(
        self, base_url: str, viewport: Viewport, job: Callable[[BrowserSession], Awaitable[T]]
    ) -> T:
        gen = await self._acquire()
        assert self._egress is not None
        try:
            with translated(gen.browser):
                session = await open_session(gen.browser, self._egress, base_url, viewport)
                try:
                    return await job(session)
                finally:
                    with anyio.move_on_after(10, shield=True):
                        await close_quietly(session.context)
        finally:
            await self._release(gen)

    async def _run_warm(
        self,
        base_url: str,
        viewport: Viewport,
        job: Callable[[BrowserSession], Awaitable[T]],
        warm: WarmContexts,
    ) -> T:
        gen = await self._acquire()
        assert self._egress is not None
        origin = origin_of(base_url)
        held: WarmContext | None = None
        try:
            with translated(gen.browser):
                held = warm.take(
                    origin, viewport, lambda g: g is gen and gen.browser.is_connected()
                )
                kind = "fresh" if held is None else "warm"
                if held is None:
                    context = await open_context(gen.browser, self._egress, origin, viewport)
                    held = await open_warm(context, origin, gen)
                    warm.counts["opened"] += 1
                page = await held.new_page()
                session = BrowserSession(context=held.context, page=page, origin=origin, kind=kind)
                result = await job(session)
                why = "its reset did not finish in time"
                with anyio.move_on_after(20, shield=True):
                    try:
                        why = await held.reset(page)
                    except PlaywrightError as exc:
                        why = f"its reset failed: {exc}"
                if why:
                    warm.discard(why)
                elif not warm.closed:
                    warm.give(held, viewport)
                    held = None
                return result
        finally:
            if held is not None:
                with anyio.move_on_after(10, shield=True):
                    await close_quietly(held.context)
            await self._release(gen)
