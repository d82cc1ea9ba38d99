"""Focus visibility at a state: Tab through what the keyboard reaches and compare each
element's focused rendering with its unfocused one (WCAG 2.4.7).

Before the first Tab, an isolated world (`_a11y_world.py`) blurs whatever has focus and
records the computed styles of every focusable element (outline, box-shadow, borders,
colours, text decoration, transform, and the `::before`/`::after` boxes). Then real
Tab key presses move the focus (so `:focus-visible` applies as it does for a keyboard
user); after each, the active element's styles are read again there. An element whose
styles did not change at all shows no focus indicator. A running transition is finished
before that verdict, so a ring that fades in is not read at its first frame.

A control that keeps the focus when Tab is pressed (a keydown handler that prevents it,
or a blur handler that takes the focus back) is a keyboard trap once it holds the focus
on a second look and after a second Tab (`_confirm`): the walk records it, tries
Shift+Tab from it, and ends there, so a trap costs three key presses, not the walk's
bound. A control that only Shift+Tab cannot leave (a keydown handler that cancels
Shift+Tab) is found without a key press where there is none: at each element reached,
READ dispatches an untrusted Shift+Tab keydown to it, which the page's handlers see
(`key`, `keyCode`, `shiftKey`) but which moves nothing by itself; only where a handler
cancels it and the focus stays are the real keys pressed (`_shift_trap`), and a control
that holds it is recorded (`SHIFT_ONLY`) while the walk goes on with Tab. Tab
moving inside a frame or a custom element keeps the document's active element: that is
walked through (within the bound), never taken for a trap.

Run last on a state (it moves the focus): every check, the screenshot and the menu
trials have already read the page.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import anyio
from playwright.async_api import Page

from ...records import SHIFT_ONLY, FocusFinding, TrapFinding
from ._a11y_world import World, new_world

MAX_TABS = 30
# A suspected trap is looked at again after this long (`_confirm`).
CONFIRM_S = 0.1

SNAPSHOT = r"""(() => {
  // What a sighted user can see: an outline or a border side counts only when drawn
  // (style not none, width above 0), a pseudo-element only when it has content.
  const px = v => parseFloat(v) || 0;
  const style = (el, own = true) => {
    const s = getComputedStyle(el);
    const out = {};
    out.outline = s.outlineStyle !== 'none' && px(s.outlineWidth) > 0
      ? `${s.outlineStyle} ${s.outlineWidth} ${s.outlineColor} offset ${s.outlineOffset}`
      : 'none';
    for (const side of ['top', 'right', 'bottom', 'left']) {
      const st = s.getPropertyValue(`border-${side}-style`);
      const w = s.getPropertyValue(`border-${side}-width`);
      out[`border-${side}`] = st !== 'none' && px(w) > 0
        ? `${st} ${w} ${s.getPropertyValue(`border-${side}-color`)}` : 'none';
    }
    for (const p of ['box-shadow', 'background-color', 'color', 'transform', 'filter', 'opacity'])
      out[p] = s.getPropertyValue(p);
    const line = s.getPropertyValue('text-decoration-line');
    out['text-decoration'] = line === 'none' ? 'none'
      : `${line} ${s.getPropertyValue('text-decoration-color')}`;
    if (own) for (const ps of ['::before', '::after']) {
      const q = getComputedStyle(el, ps);
      const c = q.getPropertyValue('content');
      out[ps] = c === 'none' || c === 'normal' || c === '' ? 'none'
        : [c, q.backgroundColor, q.borderBottomWidth, q.boxShadow, q.opacity, q.transform,
          q.width, q.height].join(' ');
    }
    return out;
  };
  const describe = el => {
    const t = el.tagName.toLowerCase();
    if (el.id) return t + '#' + el.id;
    let d = t;
    for (const a of ['name', 'type', 'href', 'role', 'aria-label'])
      if (el.getAttribute(a)) d += `[${a}="${el.getAttribute(a).slice(0, 60)}"]`;
    if (!['input', 'textarea', 'select'].includes(t)) {
      const txt = (el.innerText || '').trim().replace(/\s+/g, ' ').slice(0, 40);
      if (txt) d += ` "${txt}"`;
    }
    return d;
  };
  const act = document.activeElement;
  if (act && act !== document.body && typeof act.blur === 'function') act.blur();
  const sel = 'a[href], button, input:not([type=hidden]), select, textarea, summary, iframe,' +
    ' [tabindex], [contenteditable=""], [contenteditable="true"], audio[controls], video[controls]';
  // A ring may be drawn on an ancestor (`.card:focus-within`): up to UP levels are kept.
  const UP = 5;
  const up = el => {
    const out = [];
    for (let a = el.parentElement; a && a !== document.body && out.length < UP; a = a.parentElement)
      out.push(a);
    return out;
  };
  const m = new Map();
  for (const el of document.querySelectorAll(sel)) {
    m.set(el, style(el));
    for (const a of up(el)) if (!m.has(a)) m.set(a, style(a, false));
    if (m.size >= 2000) break;
  }
  // Where the focus went between two reads (a page that takes it back shows here).
  const F = {m, style, describe, up, seen: new Set(), last: null, lastEl: null, moved: []};
  document.addEventListener('focusin', e => { if (F.moved.length < 10) F.moved.push(e.target); },
    true);
  globalThis.__pwbFocus = F;
  return m.size;
})()"""

READ = r"""(async () => {
  const F = globalThis.__pwbFocus;
  // Let the page finish what the key started: a blur handler that refocuses its element
  // at once, in a microtask or in a zero timeout (two turns: its timer was set first).
  for (let i = 0; i < 2; i++) await new Promise(r => setTimeout(r, 0));
  const el = document.activeElement;
  const moved = F.moved;
  F.moved = [];
  if (!el || el === document.body || el === document.documentElement) {
    F.last = F.lastEl = null;
    return JSON.stringify({end: 'body'});
  }
  // The focus inside a frame or a component (a shadow root: open ones are followed) moves
  // while the document's active element stays the same: the walk goes on through it.
  let deep = el;
  while (deep.shadowRoot && deep.shadowRoot.activeElement) deep = deep.shadowRoot.activeElement;
  const holder = /^(IFRAME|FRAME|OBJECT|EMBED)$/.test(el.tagName) ||
    (el.tagName.includes('-') && !el.shadowRoot);  // a closed shadow root hides its focus
  const inside = el === F.lastEl && (deep !== F.last || holder);
  // The key left the focus where it was: a trap, unless the walk has not started.
  if (deep === F.last && !holder) {
    let modal = false;  // a modal dialog keeps the focus by design (Escape leaves it)
    try { modal = !!deep.closest('[aria-modal="true"], dialog:modal'); } catch (e) {}
    return JSON.stringify({stuck: F.describe(deep), modal,
      moved: moved.filter(m => m !== el).slice(0, 1).map(F.describe)});
  }
  F.last = deep;
  F.lastEl = el;
  if (inside) return JSON.stringify({skip: true});
  if (F.seen.has(el)) return JSON.stringify({end: 'cycle'});
  F.seen.add(el);
  const before = F.m.get(el);
  if (!before) return JSON.stringify({skip: true});
  const diff = (b, now, who) => Object.keys(b).filter(k => b[k] !== now[k])
    .map(k => `${who}${k} ${b[k] || '""'} -> ${now[k] || '""'}`);
  const read = () => {
    const own = F.style(el);
    let changed = diff(before, own, '');
    for (const a of F.up(el)) {
      const b = F.m.get(a);
      if (b) changed = changed.concat(diff(b, F.style(a, false), `${F.describe(a)}: `));
    }
    return [own, changed];
  };
  let [now, changed] = read();
  const anims = [el, ...F.up(el)].flatMap(a => a.getAnimations());
  if (!changed.length && anims.length) {
    for (const a of anims) { try { a.finish(); } catch (e) {} }
    [now, changed] = read();
  }
  const shown = `outline ${now.outline}, box-shadow ${now['box-shadow']}, same as unfocused`;
  // Shift+Tab here, as the page's own handlers see it: an untrusted event has no default
  // action, so the focus moves only if a handler moves it (put back at once). A handler
  // that cancels it and keeps the focus is what holds a control against Shift+Tab: the
  // walk then presses the real keys (`_shift_trap`).
  let shift = false, modal = false;
  try {
    const ev = new KeyboardEvent('keydown', {key: 'Tab', code: 'Tab', keyCode: 9, which: 9,
      shiftKey: true, bubbles: true, cancelable: true, composed: true, view: window});
    const kept = !deep.dispatchEvent(ev);
    if (document.activeElement !== el) deep.focus({preventScroll: true});
    else shift = kept;
    if (shift) modal = !!deep.closest('[aria-modal="true"], dialog:modal');
  } catch (e) {}
  return JSON.stringify({element: F.describe(el), visible: changed.length > 0,
    detail: changed.length ? changed.slice(0, 3).join('; ') : shown, shift, modal});
})()"""

# After a real Shift+Tab: is the focus still where the walk left it?
HELD = r"""(async () => {
  for (let i = 0; i < 2; i++) await new Promise(r => setTimeout(r, 0));
  let deep = document.activeElement;
  while (deep && deep.shadowRoot && deep.shadowRoot.activeElement)
    deep = deep.shadowRoot.activeElement;
  return !!deep && deep === globalThis.__pwbFocus.last;
})()"""


@dataclass(frozen=True, slots=True)
class Walk:
    """The elements reached by Tab in tab order, the traps met, and why the walk ended
    (`A11ySnapshot.focus_end`)."""

    focus: tuple[FocusFinding, ...] = ()
    traps: tuple[TrapFinding, ...] = ()
    end: str = ""


async def _trap(page: Page, world: World, got: dict[str, Any]) -> TrapFinding:
    """Tab left the focus on `got["stuck"]`: can Shift+Tab leave it?"""
    await page.keyboard.press("Shift+Tab")
    back = json.loads(await world.eval(READ))
    keys = "Tab and Shift+Tab" if "stuck" in back else "Tab"
    how = (
        f"the focus went to {got['moved'][0]} and the page took it back"
        if got["moved"]
        else "the key did not move the focus"
    )
    return TrapFinding(element=got["stuck"], keys=keys, detail=how, modal=got["modal"])


async def _confirm(page: Page, world: World, got: dict[str, Any]) -> dict[str, Any]:
    """A Tab that left the focus in place, looked at twice more before it is called a
    trap: once after `CONFIRM_S` with no key (a renderer the host starved may move the
    focus late: seen as a flaky `a11y-trap` on a plain page under a CPU hog), then after
    one more Tab. A control that holds the focus through both is a trap; otherwise the
    walk goes on from what the later read saw."""
    await anyio.sleep(CONFIRM_S)
    again: dict[str, Any] = json.loads(await world.eval(READ))
    if "stuck" not in again:
        return again
    await page.keyboard.press("Tab")
    last: dict[str, Any] = json.loads(await world.eval(READ))
    return last


async def _shift_trap(page: Page, world: World, got: dict[str, Any]) -> TrapFinding | None:
    """The page cancelled a synthetic Shift+Tab on the element the walk is at (READ):
    press the real key. Held, and held again after `CONFIRM_S` and one more Shift+Tab
    (`_confirm`'s two looks), it is a control Shift+Tab cannot leave; otherwise Tab
    brings the focus back, and the walk goes on forward from there."""
    await page.keyboard.press("Shift+Tab")
    if await world.eval(HELD):
        await anyio.sleep(CONFIRM_S)
        if await world.eval(HELD):
            await page.keyboard.press("Shift+Tab")
            if await world.eval(HELD):
                return TrapFinding(
                    element=got["element"],
                    keys=SHIFT_ONLY,
                    detail="the key did not move the focus",
                    modal=bool(got.get("modal")),
                )
    if not await world.eval(HELD):
        await page.keyboard.press("Tab")
    return None


async def focus_walk(page: Page, max_tabs: int = MAX_TABS) -> Walk:
    """Each element reached by Tab (at most `max_tabs`), in tab order; the walk ends at
    the first control Tab cannot leave (a keyboard trap: WCAG 2.1.2)."""
    world = await new_world(page, "pwb-focus")
    if not await world.eval(SNAPSHOT):
        return Walk()
    out: list[FocusFinding] = []
    held: list[TrapFinding] = []  # controls Shift+Tab cannot leave (Tab can)
    outside = 0
    for _ in range(max_tabs):
        await page.keyboard.press("Tab")
        got = json.loads(await world.eval(READ))
        if "stuck" in got:
            got = await _confirm(page, world, got)
        if "stuck" in got:
            trap = await _trap(page, world, got)
            # Tab cannot leave it either: one finding, with the keys of both.
            held = [h for h in held if h.element != trap.element]
            return Walk(focus=tuple(out), traps=(*held, trap), end="trap")
        if got.get("end") == "cycle":
            return Walk(focus=tuple(out), traps=tuple(held), end="cycle")
        # Past the last element the focus leaves the document; Tab again wraps to the
        # first. The walk starts where the actions left the focus, so it goes round once.
        outside = outside + 1 if got.get("end") == "body" else 0
        if outside >= 2:
            return Walk(focus=tuple(out), traps=tuple(held), end="body")
        if "end" in got or "skip" in got:
            continue
        out.append(
            FocusFinding(element=got["element"], visible=got["visible"], detail=got["detail"])
        )
        if got.get("shift") and (found := await _shift_trap(page, world, got)) is not None:
            held.append(found)
    return Walk(focus=tuple(out), traps=tuple(held), end="limit")
