"""What a screen reader announces at a state: the document's title and `<html lang>`
(read on load), its live regions, and the messages they announced after each action.

Before the first action (full-suite runs only), an isolated world
(`_a11y_world.py`) installs a MutationObserver on the document: whenever the text
of a live region changes (its own text, a node added inside it, a region added with
text, an element made live), the region's new text is logged with the number of the
action then running. Before each action the log is drained into Python and the number
moved on, so a page the action navigates away from loses nothing already logged. Once
the state settled, the log is drained a last time and the title, lang, live regions and
the ids on the page are read. Text that appears outside every live region is logged too
(shown, not announced: at most 100 texts a state), so the rules can tell a message no
longer announced from one the task no longer shows. The page's own world can neither
see the observer nor forge what it reads.

Live means `aria-live` other than `off`, `role=status|alert|log`, or `<output>`:
`role=timer|marquee` are `aria-live=off` by default and announce nothing. The
comparison with the bases is in `_a11y/_rules.py`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import anyio
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from ...contract import Action
from ...records import Announcement, RegionFinding
from .._core import describe_action
from ._a11y_world import World, WorldError, new_world
from ._drive import Act

READ_TIMEOUT_S = 10.0

# The helpers shared by both scripts; `%s` is where each script's body goes.
_COMMON = r"""(() => {
  const LIVE = '[aria-live]:not([aria-live="off"]), [role=status], [role=alert], [role=log],' +
    ' output';
  const norm = s => (s || '').trim().replace(/\s+/g, ' ').slice(0, 160);
  const text = el => norm(el.textContent);
  const kind = r => {
    const role = r.getAttribute('role'), aria = r.getAttribute('aria-live');
    return role && role !== 'none' ? `role=${role}` : aria ? `aria-live=${aria}`
      : r.tagName.toLowerCase();
  };
  const describe = el => {
    const t = el.tagName.toLowerCase();
    if (el.id) return t + '#' + el.id;
    const label = el.getAttribute('aria-label');
    const cls = (el.getAttribute('class') || '').trim().split(/\s+/)[0];
    return t + (label ? `[aria-label="${label.slice(0, 60)}"]` : cls ? '.' + cls : '');
  };
  %s
})()"""

INSTALL = (
    _COMMON
    % r"""
  const A = {at: 0, action: '', log: [], last: new Map(), shown: [], said: new Set()};
  // Text that appeared outside every live region: shown, not announced (at most 100).
  const shown = n => {
    const t = (n.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 300);
    if (t && !A.said.has(t) && A.said.size < 100) { A.said.add(t); A.shown.push(t); }
  };
  const heard = region => {
    const t = text(region);
    if (!t || A.last.get(region) === t) return;
    A.last.set(region, t);
    if (A.log.length < 200)
      A.log.push({after: A.at, action: A.action, region: describe(region), live: kind(region),
        text: t});
  };
  for (const r of document.querySelectorAll(LIVE)) A.last.set(r, text(r));
  new MutationObserver(records => {
    const regions = new Set();
    let budget = 300;
    for (const r of records) {
      const el = r.target.nodeType === 1 ? r.target : r.target.parentElement;
      if (!el) continue;
      const region = el.closest(LIVE);
      if (region) regions.add(region);
      for (const n of r.addedNodes || [])
        if (n.nodeType === 1) {
          if (n.matches(LIVE)) regions.add(n);
          for (const x of n.querySelectorAll(LIVE)) regions.add(x);
        }
      if (!region && r.type !== 'attributes' && budget-- > 0)
        for (const n of r.type === 'characterData' ? [el] : r.addedNodes) shown(n);
    }
    for (const region of regions) heard(region);
  }).observe(document.documentElement, {subtree: true, childList: true, characterData: true,
    attributes: true, attributeFilter: ['role', 'aria-live']});
  globalThis.__pwbAnnounce = A;
  return true;
"""
)

# Drain the log; `MARK` is replaced by the next action's number and words.
DRAIN = (
    _COMMON
    % r"""
  const A = globalThis.__pwbAnnounce;
  if (!A) return JSON.stringify({gone: true});
  const log = A.log, shown = A.shown;
  A.log = [];
  A.shown = [];
  [A.at, A.action] = MARK;
  return JSON.stringify({log, shown});
"""
)

READ = (
    _COMMON
    % r"""
  const regions = [...document.querySelectorAll(LIVE)].slice(0, 100)
    .map(r => ({region: describe(r), live: kind(r), text: text(r)}));
  return JSON.stringify({title: norm(document.title), regions,
    ids: [...document.querySelectorAll('[id]')].slice(0, 400)
      .map(e => e.tagName.toLowerCase() + '#' + e.id),
    lang: (document.documentElement.getAttribute('lang') || '').trim()});
"""
)


@dataclass
class Listener:
    """The announcements logged so far at one state; `world` is None until installed, or
    after a navigation took the observer away (then it is installed on the new page)."""

    page: Page
    world: World | None = None
    heard: list[Announcement] = field(default_factory=list)
    shown: list[str] = field(default_factory=list)

    async def install(self) -> None:
        try:
            world = await new_world(self.page, "pwb-announce")
            await world.eval(INSTALL)
            self.world = world
        except (PlaywrightError, WorldError):
            self.world = None  # the page is going away; the next action installs again

    async def drain(self, at: int = 0, action: str = "") -> None:
        """Take what was logged, and tag what follows with action `at`."""
        if self.world is None:
            return
        try:
            got = json.loads(await self.world.eval(DRAIN.replace("MARK", json.dumps([at, action]))))
        except (PlaywrightError, WorldError):
            got = {"gone": True}
        if got.get("gone"):
            self.world = None
            return
        self.heard.extend(Announcement(**a) for a in got["log"])
        self.shown.extend(got["shown"])

    async def before(self, at: int, action: str) -> None:
        # Bounded: a page whose main thread never yields must not hold its action here
        # (the action's own timeout says what went wrong); the log is then given up.
        with anyio.move_on_after(READ_TIMEOUT_S) as scope:
            await self.drain(at, action)
            if self.world is None:  # a new document since the last action
                await self.install()
                await self.drain(at, action)
        if scope.cancelled_caught:
            self.world = None


@dataclass(frozen=True, slots=True)
class Announced:
    """What `announced` read; `error` set when the page could not be read."""

    title: str = ""
    lang: str = ""
    url: str = ""
    regions: tuple[RegionFinding, ...] = ()
    heard: tuple[Announcement, ...] = ()
    shown: tuple[str, ...] = ()
    ids: tuple[str, ...] = ()
    error: str = ""


def _address(url: str, base_url: str) -> str:
    """The page's address under the site's base (path, query, fragment)."""
    base = base_url.rstrip("/")
    return url[len(base) :] or "/" if url.startswith(base) else url


async def announced(page: Page, listener: Listener, base_url: str) -> Announced:
    """Title, lang, address, live regions and the messages heard, once the state settled."""
    try:
        with anyio.fail_after(READ_TIMEOUT_S):
            await listener.drain()
            world = await new_world(page, "pwb-announce-read")
            got = json.loads(await world.eval(READ))
    except (PlaywrightError, WorldError, ValueError, TimeoutError) as exc:
        return Announced(error=f"{type(exc).__name__}: {str(exc)[:200]}")
    return Announced(
        title=got["title"],
        lang=got["lang"],
        url=_address(page.url, base_url),
        regions=tuple(RegionFinding(**r) for r in got["regions"]),
        heard=tuple(listener.heard),
        shown=tuple(listener.shown),
        ids=tuple(got["ids"]),
    )


def announcing(act: Act, listener: Listener) -> Act:
    """`act`, draining the log before each action and numbering what follows it."""
    done = 0

    async def run(page: Page, base_url: str, action: Action) -> None:
        nonlocal done
        done += 1
        await listener.before(done, describe_action(action))
        await act(page, base_url, action)

    return run
