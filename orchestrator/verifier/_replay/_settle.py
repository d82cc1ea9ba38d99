"""When a page has settled, decided by what it has pending, not by a fixed silence (#51).

Before session 21 a settle was two fixed windows back to back: `quiet_ms` (100 ms) with no
same-origin request in flight or starting, then `quiet_ms` with no DOM mutation. What that
waited for was whatever the page started within about 200 ms of the action (a handler's
request or render a moment later), and every state paid the 200 ms, twice when it had an
action, even on a page with nothing pending: 0.37 s of a 1.24 s state
(`tests/perf/bench_replay.py --decompose`). Under host load it also graded differently:
a 150 ms timer that the load made fire at 400 ms fell outside the window.

Now the page says what it has pending, and the settle waits for exactly that:

- **Timers.** A main-world script (`MAIN`, before any of the site's) wraps `setTimeout`
  and `clearTimeout` in proxies and tells an isolated world (`WORLD`, registered at each
  new document like the main-thread watch) each one-shot timer's delay, and when it
  fired or was cleared. (What it wraps is already Playwright's clock's, not the
  browser's, `FIXED_TIME` in `_drive.py`: Playwright runs a context's init scripts,
  the clock's, before a page's. So the due time is taken on the isolated world's clock.)
  A timer is *pending* for the settle when it is due within the horizon a fixed window
  gave: `2 * quiet_ms` after the settle began or the last request started or ended, or
  `quiet_ms` after the last DOM mutation. The settle waits until it fires, however late
  the host lets it. Intervals, animation frames and later timers (a carousel, a poll, a
  5 s toast) are not waited for, as before.
- **Requests.** No same-origin request in flight (`Recorder`, in Python), and none
  started while the page was read. The page's own `fetch` and `XMLHttpRequest.send` are
  wrapped too and are pending (due at once) from the call until the answer (or the
  failure): the browser's request event reaches the verifier late on a loaded host, and
  a request a timer sent just before the settle began was once missed that way (a
  debounced form read before its answer, 1 run in 10 at load average 20).
- **The DOM.** `QUIET_FRAMES` animation frames in a row with no mutation (an isolated
  `MutationObserver`), so a render a framework splits across tasks (React's scheduler
  posts messages, not timers) finishes first.

*What the site can do to it.* The messages' event name is random per process; the
wrapper keeps the `dispatchEvent`, `CustomEvent` and timer functions it found before the
site's first script; the ledger lives in an isolated world. A site that escapes the
wrapper (a timer from a fresh iframe's window) can only have its own page read earlier,
as any site could with a 250 ms timer under the fixed windows; one that keeps a timer
pending forever waits for `settle_timeout`, as a page that never stops mutating its DOM
always did. Neither changes whose page is graded, only when.

Without the ledger (a document the scripts did not reach: `about:blank`, an error page)
the settle falls back to the fixed DOM window (`dom_quiet`).
"""

from __future__ import annotations

import json
import uuid
from weakref import WeakKeyDictionary

from playwright.async_api import CDPSession, Page

from .._browser import dom_quiet, isolated_await, page_session

SETTLE_WORLD = "pwb-settle-ledger"
# Frames in a row with no DOM mutation and no pending timer that make a page settled.
QUIET_FRAMES = 2
# A name the site cannot know: the ledger's messages travel as DOM events on `document`.
_EVENT = f"pwb-timers-{uuid.uuid4().hex}"

# The site's world, before its first script: one-shot timers reported to the ledger.
MAIN = """(() => {
  const EV = EVENT_NAME, doc = document, dispatch = EventTarget.prototype.dispatchEvent;
  const CE = CustomEvent, apply = Reflect.apply;
  const tell = (detail) => { try { apply(dispatch, doc, [new CE(EV, {detail})]); } catch (e) {} };
  const set = globalThis.setTimeout, clear = globalThis.clearTimeout;
  globalThis.setTimeout = new Proxy(set, {apply(target, self, args) {
    const cb = args[0];
    if (typeof cb !== 'function') return apply(target, self, args);
    let id = 0;
    const fired = function (...a) { tell('-' + id); return apply(cb, this, a); };
    id = apply(target, self, [fired, ...args.slice(1)]);
    tell('+' + id + ':' + Math.max(0, Number(args[1]) || 0));
    return id;
  }});
  globalThis.clearTimeout = new Proxy(clear, {apply(target, self, args) {
    tell('-' + args[0]);
    return apply(target, self, args);
  }});
  // Requests, from the call: pending at once (due now) until answered or failed, before
  // the browser's request event has reached the verifier (late under host load).
  let n = 0;
  const then = Promise.prototype.then, listen = EventTarget.prototype.addEventListener;
  const fetch = globalThis.fetch;
  if (typeof fetch === 'function') globalThis.fetch = new Proxy(fetch, {apply(target, self, args) {
    const id = 'r' + (++n), end = () => tell('-' + id);
    tell('+' + id + ':0');
    let answer;
    try { answer = apply(target, self, args); } catch (e) { end(); throw e; }
    // The page gets the promise chained here, which settles the same way: a failure it
    // does not catch is still its own unhandled rejection (on the console as before).
    return apply(then, answer, [(v) => { end(); return v; }, (e) => { end(); throw e; }]);
  }});
  const XHR = globalThis.XMLHttpRequest;
  const send = XHR && XHR.prototype.send;
  if (typeof send === 'function') XHR.prototype.send = new Proxy(send, {apply(target, self, args) {
    const id = 'r' + (++n), end = () => tell('-' + id);
    tell('+' + id + ':0');
    try { apply(listen, self, ['loadend', end]); return apply(target, self, args); }
    catch (e) { end(); throw e; }
  }});
})();""".replace("EVENT_NAME", json.dumps(_EVENT))

# The ledger, in an isolated world of every document: pending timers by id (due time on
# this world's clock; `__pwbPending()` counts them), the last DOM mutation.
# `__pwbSettled(netLeft, domMs, frames, bound)` resolves once `frames` animation frames
# in a row saw no mutation and no pending timer due within `netLeft` ms from now or
# `domMs` after the last mutation (or after `bound` ms).
WORLD = """(() => {
  const pending = new Map();
  let mutated = performance.now();
  document.addEventListener(EVENT_NAME, (e) => {
    const s = String(e.detail);
    const i = s.indexOf(':');
    if (s[0] === '+') pending.set(s.slice(1, i), performance.now() + Number(s.slice(i + 1)));
    else pending.delete(s.slice(1));
  }, true);
  new MutationObserver(() => { mutated = performance.now(); }).observe(document,
    {subtree: true, childList: true, attributes: true, characterData: true});
  globalThis.__pwbPending = () => pending.size;
  globalThis.__pwbSettled = (netLeft, domMs, frames, bound) => new Promise((done) => {
    const start = performance.now(), netUntil = start + netLeft;
    let still = 0, seen = mutated;
    const waiting = () => {
      for (const due of pending.values()) {
        if (due <= netUntil || due <= mutated + domMs) return true;
      }
      return false;
    };
    const frame = () => {
      const t = performance.now();
      if (t - start >= bound) return done('bound');
      still = (waiting() || mutated !== seen) ? 0 : still + 1;
      seen = mutated;
      if (still >= frames) return done('settled');
      requestAnimationFrame(frame);
    };
    if (frames <= 0 && !waiting()) return done('settled');
    requestAnimationFrame(frame);
  });
})();""".replace("EVENT_NAME", json.dumps(_EVENT))


# The session each watched page's ledger was registered on: a new-document script lives
# as long as its session, so the session is kept with its page.
_WATCHED: WeakKeyDictionary[Page, CDPSession] = WeakKeyDictionary()


async def watch_timers(page: Page) -> None:
    """Once per page, before its first navigation and after `watch_main_thread` (which
    enables the Page domain on the same session): the ledger's isolated world at every
    new document. The main-world half is in the page's init script (`_drive.py`)."""
    cdp = await page_session(page)
    await cdp.send(
        "Page.addScriptToEvaluateOnNewDocument", {"source": WORLD, "worldName": SETTLE_WORLD}
    )
    _WATCHED[page] = cdp


async def page_settled(page: Page, net_left_ms: float, quiet_ms: int, timeout: float) -> None:
    """Until the page has no pending timer within its horizon (module docstring) and its
    DOM held still for `QUIET_FRAMES` frames; bounded by `timeout`. `net_left_ms`: how
    much of the requests' horizon is left (the caller knows when the last one moved)."""
    frames = QUIET_FRAMES if quiet_ms > 0 else 0
    call = (
        f"globalThis.__pwbSettled ? __pwbSettled({max(0.0, net_left_ms):.0f}, {quiet_ms},"
        f" {frames}, {int(timeout * 1000)}) : 'no ledger'"
    )
    said = await isolated_await(page, call, timeout, SETTLE_WORLD)
    if said == "no ledger" and quiet_ms > 0:
        await dom_quiet(page, quiet_ms, timeout)
