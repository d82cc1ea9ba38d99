"""Navigation entries behind the page's own menu control (the `links` assertion).

An entry of a `links` check counts when a user can see it at the state's viewport, or
can make it appear with the page's own menu control. The second is tried for real, in
the browser, once every other check of the state and its screenshot have read the page
(`_state.py`), and only for a `links` check that fails on what is shown:

- the candidates are the region's `menuControls` (`_browser/_js.py`): a shown, enabled
  button or role=button with aria-expanded/aria-controls, a checkbox with
  aria-controls, the summary of a <details>, the label of a checkbox (the CSS-only
  toggle); those whose menu holds a hidden entry first, at most `MAX_CONTROLS`;
- each is clicked as a user would (Playwright's click: visible, stable, enabled, not
  covered by another element), the page settles as after an action, and the region's
  links are read again: an entry counts when it is now shown (rendered, a box bigger
  than 1 px on the screen, not clipped away by an ancestor's overflow);
- the same control is then clicked again (Escape when it cannot be), so the next
  `links` check of the state starts from the page as replayed; every `links` check
  reads what is shown before any control is clicked;
- a click that times out may be the host's load, not the site: its timeout scales with
  the replay's action timeout, and Playwright's "Timeout ... exceeded" stays in the
  observation, so the state is replayed once more with more patience (`_transient.py`)
  and never reused; timing out again, the control could not be clicked.

A control that flips aria-expanded but shows nothing reveals nothing; a click that
navigates away ends the trials (the page is no longer the state). Console errors and
failed requests during the trials are not the state's: the caller reads health first.
"""

from __future__ import annotations

from collections.abc import Sequence

from playwright.async_api import ElementHandle, Page
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

from ...contract import Links
from .._browser import probe_each, probe_elements
from .._core import Outcome
from ._checks import NO_MATCH, links_outcome, read_links
from ._drive import Recorder, ReplayOptions, settle

MAX_CONTROLS = 8
# A menu click's timeout as a share of the replay's action timeout (2 s of the default 5).
CLICK_TIMEOUT_SHARE = 0.4


def click_timeout_ms(opts: ReplayOptions) -> float:
    return opts.action_timeout * 1000 * CLICK_TIMEOUT_SHARE


async def open_menus(
    page: Page, checks: Sequence[tuple[str, Links]], rec: Recorder, opts: ReplayOptions
) -> dict[str, Outcome]:
    """New outcomes of the `links` checks whose hidden entries a menu control shows."""
    start = rec.epoch
    out: dict[str, Outcome] = {}
    for check_id, a in checks:
        if rec.epoch != start:
            break  # a control navigated away: what is left is judged on what was shown
        out[check_id] = await _try_controls(page, a, rec, opts)
    return out


async def _try_controls(page: Page, a: Links, rec: Recorder, opts: ReplayOptions) -> Outcome:
    found = await read_links(page, a)
    # A region hidden as a whole may match nothing (role selectors skip hidden elements):
    # the whole document's controls are tried, and the region read once one shows it.
    region = page.locator(a.selector).first if found is not None else page.locator(":root")
    handles = (await probe_elements(region, "menuControls").element_handles())[:MAX_CONTROLS]
    (labels,) = await probe_each(region, "menuControls")
    already = {(t, h) for t, h, _, shown in found or () if shown}
    revealed: set[tuple[str, str]] = set()
    via: list[str] = []
    tried: list[str] = []
    for handle, label in zip(handles, labels, strict=False):
        epoch = rec.epoch
        try:
            await handle.click(timeout=click_timeout_ms(opts))
        except PlaywrightTimeout as exc:
            # Kept word for word: the state is replayed with more patience.
            tried.append(f"{label} (could not be clicked: {str(exc).splitlines()[0]})")
            continue
        except PlaywrightError:
            tried.append(f"{label} (could not be clicked)")
            continue
        await settle(page, rec, opts, None)
        if rec.epoch != epoch:
            tried.append(f"{label} (navigated away)")
            break
        after = await read_links(page, a)
        tried.append(label)
        if after is not None:
            # The region as the open menu has it (a menu may create its links on open),
            # each entry counted when shown before the click or now.
            new = {(t, h) for t, h, _, shown in after if shown} - already - revealed
            if new:
                via.append(label)
                revealed |= new
            found = [(t, h, r, (t, h) in already) for t, h, r, _ in after]
        await _close(page, handle, rec, opts)
        if found is not None and links_outcome(a, found, frozenset(revealed)).passed:
            break
    clicked = f"; menu controls clicked: {', '.join(tried)}" if tried else "; no menu control"
    if found is None:
        return Outcome(passed=False, observed=NO_MATCH + clicked)
    got = links_outcome(a, found, frozenset(revealed), " then ".join(via))
    if got.passed:
        return got
    return Outcome(passed=False, observed=got.observed + clicked)


async def _close(page: Page, handle: ElementHandle, rec: Recorder, opts: ReplayOptions) -> None:
    """Click the control again (it toggles), or press Escape when it is covered now."""
    try:
        await handle.click(timeout=click_timeout_ms(opts))
    except PlaywrightError:
        try:
            await page.keyboard.press("Escape")
        except PlaywrightError:
            return
    await settle(page, rec, opts, None)
