"""Focus visibility at a state: Tab through what the keyboard reaches and compare each
element's focused rendering with its unfocused one (WCAG 2.4.7).

Before the first Tab, an isolated world (`_replay_a11y_world.py`) blurs whatever has focus and
records the computed styles of every focusable element (outline, box-shadow, borders,
colours, text decoration, transform, and the `::before`/`::after` boxes). Then real
Tab key presses move the focus (so `:focus-visible` applies as it does for a keyboard
user); after each, the active element's styles are read again there. An element whose
styles did not change at all shows no focus indicator. A running transition is finished
before that verdict, so a ring that fades in is not read at its first frame.

Run last on a state (it moves the focus): every check, the screenshot and the menu
trials have already read the page.
"""

from __future__ import annotations

import json

from playwright.async_api import Page

from ..results import FocusFinding
from ._replay_a11y_world import new_world

MAX_TABS = 30

SNAPSHOT = r"""(() => {
  // What a sighted user can see: an outline or a border side counts only when drawn
  // (style not none, width above 0), a pseudo-element only when it has content.
  const px = v => parseFloat(v) || 0;
  const style = el => {
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
    for (const ps of ['::before', '::after']) {
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
  const m = new Map();
  const sel = 'a[href], button, input:not([type=hidden]), select, textarea, summary, iframe,' +
    ' [tabindex], [contenteditable=""], [contenteditable="true"], audio[controls], video[controls]';
  for (const el of document.querySelectorAll(sel)) {
    m.set(el, style(el));
    if (m.size >= 500) break;
  }
  globalThis.__pwbFocus = {m, style, describe, seen: new Set()};
  return m.size;
})()"""

READ = r"""(() => {
  const F = globalThis.__pwbFocus;
  const el = document.activeElement;
  if (!el || el === document.body || el === document.documentElement)
    return JSON.stringify({end: 'body'});
  if (F.seen.has(el)) return JSON.stringify({end: 'cycle'});
  F.seen.add(el);
  const before = F.m.get(el);
  if (!before) return JSON.stringify({skip: true});
  const diff = now => Object.keys(before).filter(k => before[k] !== now[k])
    .map(k => `${k} ${before[k] || '""'} -> ${now[k] || '""'}`);
  let now = F.style(el);
  let changed = diff(now);
  if (!changed.length && el.getAnimations().length) {
    for (const a of el.getAnimations()) { try { a.finish(); } catch (e) {} }
    now = F.style(el);
    changed = diff(now);
  }
  const shown = `outline ${now.outline}, box-shadow ${now['box-shadow']}, same as unfocused`;
  return JSON.stringify({element: F.describe(el), visible: changed.length > 0,
    detail: changed.length ? changed.slice(0, 3).join('; ') : shown});
})()"""


async def focus_walk(page: Page, max_tabs: int = MAX_TABS) -> tuple[FocusFinding, ...]:
    """Each element reached by Tab (at most `max_tabs`), in tab order."""
    world = await new_world(page, "pwb-focus")
    if not await world.eval(SNAPSHOT):
        return ()
    out: list[FocusFinding] = []
    outside = 0
    for _ in range(max_tabs):
        await page.keyboard.press("Tab")
        got = json.loads(await world.eval(READ))
        if got.get("end") == "cycle":
            break
        # Past the last element the focus leaves the document; Tab again wraps to the
        # first. The walk starts where the actions left the focus, so it goes round once.
        outside = outside + 1 if got.get("end") == "body" else 0
        if outside >= 2:
            break
        if "end" in got or "skip" in got:
            continue
        out.append(
            FocusFinding(element=got["element"], visible=got["visible"], detail=got["detail"])
        )
    return tuple(out)
