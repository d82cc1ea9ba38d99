"""A job's `BrowserSession` (its context, page and origin) opened on a fresh context, and
the pool's translation of Playwright's errors, and of a browser gone away, into the
verifier's (`_core/_errors.py`)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from playwright.async_api import Browser, BrowserContext, Page
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

from ...contract import Viewport
from .._core import BrowserCrashed, HarnessTimeout, ReplayError, VerifierError
from ._context import open_context, origin_of
from ._egress import Egress
from ._environment import CALIBRATION_HTML
from ._warm import dismiss_dialog
from ._world import settle_frames


@dataclass(frozen=True, slots=True)
class BrowserSession:
    """What a job sees: its own context and page, and the site's origin."""

    context: BrowserContext
    page: Page
    origin: str
    # "warm": a page of a warm context an earlier state used (`_warm.py`);
    # "fresh": the first page of a new context.
    kind: str = "fresh"


@contextmanager
def translated(browser: Browser) -> Iterator[None]:
    """Playwright's errors, and any error of a browser that went away, as the verifier's."""
    try:
        yield
    except PlaywrightError as exc:
        raise _browser_failure(browser, exc) from exc
    except VerifierError:
        raise
    except Exception as exc:
        if not browser.is_connected():
            raise BrowserCrashed(f"browser crashed: {exc!r}") from exc
        raise


def _browser_failure(browser: Browser, exc: PlaywrightError) -> VerifierError:
    if not browser.is_connected():
        return BrowserCrashed(f"browser crashed: {exc}")
    if isinstance(exc, PlaywrightTimeout):
        return HarnessTimeout(f"browser timed out: {exc}")
    return ReplayError(f"browser error: {exc}")


async def calibration(session: BrowserSession) -> bytes:
    await session.page.set_content(CALIBRATION_HTML)
    await settle_frames(session.page, timeout=10)
    return await session.page.screenshot(animations="disabled", caret="hide")


async def open_session(
    browser: Browser, egress: Egress, base_url: str, viewport: Viewport
) -> BrowserSession:
    origin = origin_of(base_url)
    context = await open_context(browser, egress, origin, viewport)
    page = await context.new_page()
    page.on("dialog", dismiss_dialog)
    return BrowserSession(context=context, page=page, origin=origin)


async def close_quietly(target: Browser | BrowserContext) -> None:
    try:
        await target.close()
    except PlaywrightError:
        pass  # already gone (crashed or closed): nothing left to release
