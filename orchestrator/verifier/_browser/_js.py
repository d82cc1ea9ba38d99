"""Browser-side probes, run outside the page's own JavaScript world (see `_world.py`).

`PROBE_ENGINE` is a Playwright selector engine registered with `content_script=True`,
so it runs in Playwright's utility world: it shares the DOM with the page but none of
its globals or prototypes. The site may redefine `getBoundingClientRect`,
`getComputedStyle`, `Storage.prototype.getItem`, `innerText`... in its own world;
here they are the browser's. Nothing the site can observe is left behind: no
attribute is set, the sentinel of `token` is an adopted stylesheet (no attribute
mutation, so no custom-element callback runs in the middle of a probe), and the
result travels in a detached element that never enters the document.

A selector `<elements> >> pwb-probe=<hex of {"n": nonce, "p": probe, "a": arg}>` calls
`PROBES[p](element, arg)` for every element the left side matched, in order, and
returns one detached node whose text is the JSON list of the results; with nothing
on the left the probe runs once with the document.
"""

from __future__ import annotations

ENGINE_NAME = "pwb-probe"

PROBE_ENGINE = r"""(() => {
  const css = (el, prop) => getComputedStyle(el).getPropertyValue(prop).trim();
  // Serialise a value the way the browser serialises computed styles. Inline and
  // !important, so no stylesheet of the site can bend the expected value.
  const norm = (prop, value) => {
    const probe = document.createElement('div');
    probe.style.setProperty(prop, value, 'important');
    (document.body || document.documentElement).appendChild(probe);
    const out = css(probe, prop);
    probe.remove();
    return out;
  };
  const rect = el => el.getBoundingClientRect();
  const box = el => { const r = rect(el);
    return {x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height}; };
  const text = el => (typeof el.innerText === 'string' ? el.innerText : el.textContent) || '';
  const withSheet = (cssText, read) => {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(cssText);
    const before = [...document.adoptedStyleSheets];  // a copy: the property is live
    document.adoptedStyleSheets = [...before, sheet];
    try { return read(); } finally { document.adoptedStyleSheets = before; }
  };
  const label = el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
    (!el.id && el.classList.length ? '.' + el.classList[0] : '');
  // Interactive elements and elements holding text that the user cannot see or reach at
  // this viewport: cut horizontally by an ancestor's `overflow: hidden|clip` (or the
  // viewport's), or positioned off-screen. Not judged: what is not rendered (display
  // none, visibility hidden), a11y-only text (a 1 px box), `aria-hidden`/`inert`
  // subtrees, in-page skip links, collapsed content (an ancestor clipping to 0 height,
  // or the element wholly above/below a vertically clipping ancestor), ellipsis text,
  // and content of a horizontal scroller (`overflow-x: auto|scroll`: the user can
  // scroll it; the scroller's own visible part is what is judged further up).
  const INTERACTIVE = 'a[href], button, input:not([type=hidden]), select, textarea, summary,' +
    ' [role=button], [role=link], [role=tab], [role=menuitem], [role=option], [role=checkbox],' +
    ' [role=radio], [role=switch], [tabindex]:not([tabindex="-1"])';
  const SLACK = 4;  // px a box may poke out (sub-pixel layout, italic overhang)
  const clippedIn = (body, vw) => {
    const out = [];
    for (const el of body.querySelectorAll('*')) {
      const hasText = [...el.childNodes].some(n => n.nodeType === 3 && n.data.trim());
      if (!hasText && !el.matches(INTERACTIVE)) continue;
      if (!el.checkVisibility({visibilityProperty: true})) continue;
      if (el.closest('[aria-hidden="true"], [inert]')) continue;
      const r = rect(el);
      if (r.width <= 1 || r.height <= 1) continue;
      let left = r.left, right = r.right, by = 'the viewport', collapsed = false;
      let lo = 0, hi = vw;
      const own = getComputedStyle(el).position;
      let needPositioned = own === 'absolute', fixed = own === 'fixed';
      for (let a = el.parentElement; a && a !== body && a !== document.documentElement && !fixed;
           a = a.parentElement) {
        const cs = getComputedStyle(a);
        const positioned = cs.position !== 'static';
        if (needPositioned && !positioned) continue;  // does not contain the element
        needPositioned = positioned ? cs.position === 'absolute' : needPositioned;
        if (cs.position === 'fixed') fixed = true;
        const ox = cs.overflowX, oy = cs.overflowY, ar = rect(a);
        if ((oy === 'hidden' || oy === 'clip') &&
            (ar.height < 1 || r.bottom <= ar.top || r.top >= ar.bottom)) {
          collapsed = true;
          break;
        }
        if (ox === 'auto' || ox === 'scroll') {  // reachable by scrolling: judge the scroller
          const into = x => Math.min(Math.max(x, ar.left), ar.right);
          left = into(left); right = into(right);
          continue;
        }
        if (ox !== 'hidden' && ox !== 'clip') continue;
        if (cs.textOverflow === 'ellipsis' || ar.width < 1) { collapsed = true; break; }
        const l = ar.left + a.clientLeft, h = l + a.clientWidth;
        if (l > lo + 0.5 || h < hi - 0.5) {
          if ((left < l - SLACK) || (right > h + SLACK)) by = label(a);
          lo = Math.max(lo, l); hi = Math.min(hi, h);
        }
      }
      if (collapsed) continue;
      if (el.matches('a[href^="#"]') && (r.right <= 0 || r.bottom <= 0)) continue;  // skip link
      const cut = Math.max(0, lo - left) + Math.max(0, right - hi);
      if (cut > SLACK) {
        out.push(`${label(el)} [${Math.round(r.left)}, ${Math.round(r.right)}] cut by ${by}` +
                 ` [${Math.round(lo)}, ${Math.round(hi)}]`);
      } else if (r.bottom + scrollY <= 0) {  // above the page's top edge: never scrolled to
        out.push(`${label(el)} above the page (bottom ${Math.round(r.bottom + scrollY)})`);
      }
      if (out.length >= 20) break;
    }
    return out;
  };
  // What a user can see and reach at this viewport: rendered (checkVisibility), a box
  // bigger than 1 px, horizontally on the screen, not above the page's top edge, not in
  // an `aria-hidden`/`inert` subtree, and not clipped away by an ancestor's overflow (a
  // `max-height: 0` menu, a drawer parked outside its clipping parent).
  const shown = el => {
    if (!el.checkVisibility({visibilityProperty: true})) return false;
    if (el.closest('[aria-hidden="true"], [inert]')) return false;
    const r = rect(el);
    if (r.width <= 1 || r.height <= 1 || r.right <= 0 || r.bottom + scrollY <= 0) return false;
    if (r.left >= document.documentElement.clientWidth) return false;
    let needPositioned = getComputedStyle(el).position === 'absolute';
    let fixed = getComputedStyle(el).position === 'fixed';
    for (let a = el.parentElement; a && a !== document.body && a !== document.documentElement &&
         !fixed; a = a.parentElement) {
      const cs = getComputedStyle(a);
      const positioned = cs.position !== 'static';
      if (needPositioned && !positioned) continue;  // not its containing block: no clipping
      needPositioned = positioned ? cs.position === 'absolute' : needPositioned;
      fixed = cs.position === 'fixed';
      const cuts = o => o === 'hidden' || o === 'clip';  // auto/scroll: reachable by scrolling
      const ar = rect(a);
      if (cuts(cs.overflowX) && (ar.width < 1 || r.right <= ar.left || r.left >= ar.right))
        return false;
      if (cuts(cs.overflowY) && (ar.height < 1 || r.bottom <= ar.top || r.top >= ar.bottom))
        return false;
    }
    return true;
  };
  // The page's own menu controls a hidden navigation entry may sit behind (`_replay/_menu.py`
  // clicks them): a shown, enabled button or role=button carrying aria-expanded or
  // aria-controls, a checkbox with aria-controls, the summary of a <details>, or the
  // label of a checkbox (the CSS-only toggle). Those whose menu holds a hidden link of
  // the region come first, then those in the region's header/nav, then the rest.
  const CONTROLS = 'button[aria-expanded], button[aria-controls], [role=button][aria-expanded],' +
    ' [role=button][aria-controls], input[type=checkbox][aria-controls], details > summary, label';
  const home = el => el.closest('header, nav, [role=banner], [role=navigation]');
  const menuControls = region => {
    const hidden = [...region.querySelectorAll('a[href]')].filter(a => !shown(a));
    const ranked = [];
    for (const c of document.querySelectorAll(CONTROLS)) {
      let menus = (c.getAttribute('aria-controls') || '').split(/\s+/).filter(Boolean)
        .map(id => document.getElementById(id)).filter(Boolean);
      if (c.tagName === 'SUMMARY') {
        if (c.parentElement.querySelector(':scope > summary') !== c) continue;
        menus = [c.parentElement];
      } else if (c.tagName === 'LABEL') {
        if (!c.control || c.control.type !== 'checkbox') continue;
        menus = [c.control.parentElement];
      }
      if (c.disabled || c.matches(':disabled') || !shown(c)) continue;
      const h = home(c), rh = home(region);
      const rank = menus.some(m => hidden.some(a => m.contains(a))) ? 0 :
        (region.contains(c) || (h && (h.contains(region) || h === rh))) ? 1 : 2;
      ranked.push([rank, ranked.length, c]);
    }
    return ranked.sort((x, y) => x[0] - y[0] || x[1] - y[1]).map(x => x[2]);
  };
  // Probes that answer with elements of the document (a locator to act on).
  const ELEMENTS = {menuControls};
  const PROBES = {
    // The element's value first, before anything is added to the document.
    style: (el, [prop, want]) => {
      const actual = css(el, prop);
      return {actual, want: norm(prop, want)};
    },
    // Resolve the token on :root and compare with the element, then override the
    // token on :root and see whether the element follows (a literal would not).
    token: (el, [prop, token]) => {
      const actual = css(el, prop);
      const raw = css(document.documentElement, token);
      if (!raw) return {defined: false};
      const tokenValue = norm(prop, raw);
      let sentinel = null;
      if (/^rgba?\(/.test(tokenValue)) sentinel = 'rgb(1, 2, 3)';
      else if (/^-?[\d.]+px$/.test(tokenValue)) sentinel = (parseFloat(tokenValue) + 3) + 'px';
      let follows = null;
      if (sentinel !== null && /^--[\w-]+$/.test(token)) {
        follows = withSheet(`:root:root:root { ${token}: ${sentinel} !important; }`,
                            () => css(el, prop) !== actual);
      }
      return {defined: true, token: tokenValue, actual, follows};
    },
    box,
    // A form control's live state (its IDL properties, not its attributes): null for
    // an element that is not one.
    value: el => {
      const tag = el.tagName;
      if (tag === 'SELECT')
        return {value: [...el.selectedOptions].map(o => o.value).join(', '), checked: null};
      if (tag === 'TEXTAREA') return {value: el.value, checked: null};
      if (tag !== 'INPUT') return null;
      const box = el.type === 'checkbox' || el.type === 'radio';
      return {value: el.value, checked: box ? el.checked : null};
    },
    contained: el => {
      const r = rect(el);
      if (r.width === 0 && r.height === 0) return null;
      if (!(r.left < -0.5 || r.right > document.documentElement.clientWidth + 0.5)) return null;
      const name = el.tagName.toLowerCase() + (el.id ? '#' + el.id : '');
      return `${name} [${Math.round(r.left)}, ${Math.round(r.right)}]`;
    },
    label,
    menuControls: region => menuControls(region).map(label),
    links: region => [...region.querySelectorAll('a[href]')].map(a => {
      const u = new URL(a.href);
      const rel = u.origin === location.origin ? u.pathname + u.search + u.hash : a.href;
      // A link in a closed <details> has no innerText: its text is still its name.
      return [text(a).trim() ? text(a) : a.textContent, a.getAttribute('href'), rel, shown(a)];
    }),
    text,
    scroll: () => [scrollX, scrollY],
    storage: (_doc, [area, key]) => (area === 'local' ? localStorage : sessionStorage).getItem(key),
    // Page health and the content fingerprint's input (rules in `_replay/_probe.py`).
    health: (_doc, withContent) => {
      const de = document.documentElement, body = document.body;
      const sw = de.scrollWidth, cw = de.clientWidth;
      let overflow = sw > cw + 1;
      if (body && !overflow) {
        const ox = getComputedStyle(body).overflowX;
        overflow = (ox === 'auto' || ox === 'scroll') && body.scrollWidth > body.clientWidth + 1;
      }
      const shown = el => { const r = rect(el);
        return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden'; };
      const bodyText = body ? text(body).trim() : '';
      const media = [...document.querySelectorAll('img, svg, canvas, video, picture')]
        .some(el => shown(el) && (el.tagName !== 'IMG' || el.naturalWidth > 0));
      const broken = [...document.images]
        .filter(img => img.getAttribute('src') && img.complete && img.naturalWidth === 0)
        .filter(img => { const u = new URL(img.currentSrc || img.src, location.href);
                         return u.origin === location.origin || u.protocol === 'data:'; })
        .map(img => img.getAttribute('src'));
      let content = '';
      if (withContent && body) {
        const tags = [];
        for (const el of body.querySelectorAll('*')) {
          const r = rect(el);
          if (r.width > 0 && r.height > 0) tags.push(el.tagName);
        }
        content = text(body).replace(/\s+/g, ' ').trim() + '\n' + tags.join(',');
      }
      return {scroll_width: sw, client_width: cw, overflow, blank: !bodyText && !media,
              broken_images: broken, content, clipped: body ? clippedIn(body, cw) : []};
    },
    // Evidence: every live region, how it is announced and what it says (`suggest`
    // proposes keeping each: #44's announcements).
    lives: () => [...document.querySelectorAll('[aria-live]:not([aria-live="off"]), ' +
        '[role=status], [role=alert], [role=log], [role=timer], [role=marquee], output')]
      .map(el => ({tag: el.tagName.toLowerCase(), id: el.id, role: el.getAttribute('role') || '',
                   aria_live: el.getAttribute('aria-live') || '',
                   text: text(el).replace(/\s+/g, ' ').trim().slice(0, 200)})),
    // Evidence: every navigation region's links (`suggest` proposes `links` checks).
    navs: () => [...document.querySelectorAll('nav, [role=navigation]')].map((n, i) => ({
      index: i, label: n.getAttribute('aria-label') || '',
      links: [...n.querySelectorAll('a[href]')].map(a =>
        [text(a).replace(/\s+/g, ' ').trim(), a.getAttribute('href')])})),
    // Evidence: which anchor colours follow which `:root` custom property (`suggest`).
    tokens: (_doc, sel) => {
      const names = new Set();
      for (const sheet of document.styleSheets) {
        let rules = [];
        try { rules = [...sheet.cssRules]; } catch (e) { continue; }
        for (const r of rules)
          if (r.selectorText === ':root')
            for (const p of r.style) if (p.startsWith('--')) names.add(p);
      }
      const out = [];
      [...document.querySelectorAll(sel)].forEach((el, index) => {
        for (const prop of ['color', 'background-color']) {
          const actual = css(el, prop);
          for (const token of names) {
            const raw = css(document.documentElement, token);
            if (!raw || !/^rgba?\(/.test(norm(prop, raw)) || norm(prop, raw) !== actual) continue;
            const follows = withSheet(`:root:root:root { ${token}: rgb(1, 2, 3) !important; }`,
                                      () => css(el, prop) !== actual);
            if (follows) out.push({index, tag: el.tagName.toLowerCase(), id: el.id,
                                   property: prop, token});
          }
        }
      });
      return out;
    },
    // Evidence: boxes and key styles of the anchor elements (`capture`).
    anchors: (_doc, sel) => [...document.querySelectorAll(sel)].map((el, i) => {
      const cs = getComputedStyle(el);
      return {tag: el.tagName.toLowerCase(), id: el.id, index: i,
              text: text(el).replace(/\s+/g, ' ').trim().slice(0, 120), box: box(el),
              style: {color: cs.color, 'background-color': cs.backgroundColor,
                      'font-family': cs.fontFamily, 'font-size': cs.fontSize,
                      'font-weight': cs.fontWeight, display: cs.display}};
    }),
  };
  // One run per query: Playwright calls queryAll once per matched root, in order; a
  // root seen again (or a new nonce) starts a new run. All roots share one result node.
  let run = null;
  const queryAll = (root, body) => {
    const spec = JSON.parse(decodeURIComponent(body.replace(/../g, '%$&')));
    if (spec.e) return ELEMENTS[spec.p](root, spec.a);
    if (!run || run.nonce !== spec.n || run.seen.has(root))
      run = {nonce: spec.n, seen: new Set(), out: [], node: document.createElement('div')};
    run.seen.add(root);
    run.out.push(PROBES[spec.p](root, spec.a));
    run.node.textContent = JSON.stringify(run.out);
    return [run.node];
  };
  return {queryAll, query: (root, body) => queryAll(root, body)[0]};
})()"""

# Awaited in an isolated world of its own (CDP): web fonts loaded, every loaded image
# decoded (bounded: a lazy image never requested would wait forever), then two frames.
FRAMES = (
    "(async () => { await document.fonts.ready;"
    " const decoded = Promise.all([...document.images].filter(i => i.complete || "
    "i.loading !== 'lazy').map(i => i.decode().catch(() => null)));"
    " await Promise.race([decoded, new Promise(r => setTimeout(r, 2000))]);"
    " await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))); })()"
)

# `% (quiet_ms, quiet_ms, bound_ms)`: resolves once quiet_ms pass with no mutation anywhere in the
# document (nodes, attributes, text), or after bound_ms whatever happens.
DOM_QUIET = (
    "new Promise(done => { let t = 0; const end = () => { clearTimeout(t); obs.disconnect();"
    " done(); }; const obs = new MutationObserver(() => { clearTimeout(t);"
    " t = setTimeout(end, %d); }); obs.observe(document, {subtree: true, childList: true,"
    " attributes: true, characterData: true}); t = setTimeout(end, %d);"
    " setTimeout(end, %d); })"
)
