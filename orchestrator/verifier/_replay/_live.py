"""Announcements: is each element an authored check reads at a state inside a live region?

For every check of the state whose assertion names a CSS selector, the first element it
matches is looked up from an isolated world, and its nearest live region (itself or an
ancestor: `aria-live` other than `off`, `role=status|alert|log|timer|marquee`, `<output>`)
is recorded with the element's text. A screen reader announces a change only inside
such a region; the comparison with R0 is in `_a11y/_gate.py`. A selector that is not
CSS (Playwright's `text=`, `role=`) is skipped.
"""

from __future__ import annotations

import json

from playwright.async_api import Page

from ...contract import CheckSpec
from ...records import LiveFinding
from ._a11y_world import new_world

LIVE = r"""((items) => {
  const LIVE = '[aria-live]:not([aria-live="off"]), [role=status], [role=alert], [role=log],' +
    ' [role=timer], [role=marquee], output';
  const out = [];
  for (const [check, sel] of items) {
    let el = null;
    try { el = document.querySelector(sel); } catch (e) { continue; }
    if (!el) continue;
    const region = el.closest(LIVE);
    let live = '';
    if (region) {
      const role = region.getAttribute('role');
      const aria = region.getAttribute('aria-live');
      live = role ? `role=${role}` : aria ? `aria-live=${aria}` : region.tagName.toLowerCase();
    }
    out.push({check, selector: sel, live,
      text: (el.innerText || el.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 80)});
  }
  return JSON.stringify(out);
})(%s)"""


def _selector(check: CheckSpec) -> str:
    sel = getattr(check.assert_, "selector", None)
    return sel if isinstance(sel, str) else ""


async def read_live(page: Page, checks: tuple[CheckSpec, ...]) -> tuple[LiveFinding, ...]:
    items = [(c.id, _selector(c)) for c in checks if _selector(c)]
    if not items:
        return ()
    world = await new_world(page, "pwb-live")
    got = json.loads(await world.eval(LIVE % json.dumps(items)))
    return tuple(LiveFinding(**g) for g in got)
