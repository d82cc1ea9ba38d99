"""Read page health and a content fingerprint from a settled page, in one script each.

Rules (documented in the package docstring):
- overflow: the document scrolls horizontally — ``documentElement.scrollWidth >
  clientWidth + 1`` (1 px absorbs sub-pixel rounding), or ``body`` is itself a horizontal
  scroll container whose content is wider than it;
- blank: ``body.innerText`` has no non-space character and no visible media (an ``img``
  that decoded, ``svg``, ``canvas``, ``video`` or ``picture`` with a non-empty box);
- broken image: a same-origin (or ``data:``) ``img`` with a ``src`` that is ``complete``
  with ``naturalWidth == 0`` (off-origin images are blocked on purpose, not broken);
- fingerprint: sha256 over the visible text and the tag skeleton of the rendered
  elements (tags of elements with a non-empty box, in document order). Attributes,
  classes, styles and form values are left out on purpose: an active outline or a
  colour change is not a changed result.
"""

from __future__ import annotations

import hashlib

from playwright.async_api import Page

from ._observe import PageHealth

_HEALTH = """(withContent) => {
  const de = document.documentElement, body = document.body;
  const sw = de.scrollWidth, cw = de.clientWidth;
  let overflow = sw > cw + 1;
  if (body && !overflow) {
    const ox = getComputedStyle(body).overflowX;
    overflow = (ox === 'auto' || ox === 'scroll') && body.scrollWidth > body.clientWidth + 1;
  }
  const shown = el => { const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden'; };
  const text = body ? body.innerText.trim() : '';
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
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.height > 0) tags.push(el.tagName);
    }
    content = body.innerText.replace(/\\s+/g, ' ').trim() + '\\n' + tags.join(',');
  }
  return {scroll_width: sw, client_width: cw, overflow, blank: !text && !media,
          broken_images: broken, content};
}"""


async def read_health(page: Page, with_fingerprint: bool) -> tuple[PageHealth, str]:
    """Page health and, when asked, the content fingerprint ("" otherwise), in one call."""
    raw = await page.evaluate(_HEALTH, with_fingerprint)
    health = PageHealth(
        scroll_width=int(raw["scroll_width"]),
        client_width=int(raw["client_width"]),
        overflow=bool(raw["overflow"]),
        blank=bool(raw["blank"]),
        broken_images=tuple(str(s) for s in raw["broken_images"]),
    )
    content = str(raw["content"])
    return health, hashlib.sha256(content.encode()).hexdigest() if with_fingerprint else ""
