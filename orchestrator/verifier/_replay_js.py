"""Browser-side snippets used by the checks (kept apart so the Python stays readable)."""

from __future__ import annotations

COMPUTED = "(el, prop) => getComputedStyle(el).getPropertyValue(prop).trim()"

# Let the browser serialise a value the way it serialises computed styles.
NORMALISE = """(el, [prop, value]) => {
  const probe = document.createElement('div');
  probe.style.setProperty(prop, value);
  document.body.appendChild(probe);
  const out = getComputedStyle(probe).getPropertyValue(prop).trim();
  probe.remove();
  return out;
}"""

# Resolve the token on :root, normalise it through a probe, compare with the element,
# then change the token on :root and see whether the element follows (a literal with the
# same value would not).
TOKEN = """(el, [prop, token]) => {
  const root = document.documentElement;
  const raw = getComputedStyle(root).getPropertyValue(token).trim();
  if (!raw) return {defined: false};
  const norm = value => {
    const probe = document.createElement('div');
    probe.style.setProperty(prop, value);
    document.body.appendChild(probe);
    const out = getComputedStyle(probe).getPropertyValue(prop).trim();
    probe.remove();
    return out;
  };
  const read = () => getComputedStyle(el).getPropertyValue(prop).trim();
  const tokenValue = norm(raw), actual = read();
  let sentinel = null;
  if (/^rgba?\\(/.test(tokenValue)) sentinel = 'rgb(1, 2, 3)';
  else if (/^-?[\\d.]+px$/.test(tokenValue)) sentinel = (parseFloat(tokenValue) + 3) + 'px';
  let follows = null;
  if (sentinel !== null) {
    const before = root.style.getPropertyValue(token);
    root.style.setProperty(token, sentinel);
    follows = read() !== actual;
    if (before) root.style.setProperty(token, before); else root.style.removeProperty(token);
  }
  return {defined: true, token: tokenValue, actual, follows};
}"""

BOX = """el => { const r = el.getBoundingClientRect();
  return {x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height}; }"""

BOXES = f"els => els.map({BOX})"

CONTAINED = """els => els.filter(el => {
  const r = el.getBoundingClientRect();
  if (r.width === 0 && r.height === 0) return false;
  return r.left < -0.5 || r.right > document.documentElement.clientWidth + 0.5;
}).map(el => { const r = el.getBoundingClientRect();
  const name = el.tagName.toLowerCase() + (el.id ? '#' + el.id : '');
  return `${name} [${Math.round(r.left)}, ${Math.round(r.right)}]`; })"""

LINKS = """region => [...region.querySelectorAll('a[href]')].map(a => {
  const u = new URL(a.href);
  const rel = u.origin === location.origin ? u.pathname + u.search + u.hash : a.href;
  return [a.innerText, a.getAttribute('href'), rel];
})"""
