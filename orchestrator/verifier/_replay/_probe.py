"""Read page health and a content fingerprint from a settled page, in one probe.

The probe (`health` in `_browser/_js.py`) runs outside the page's JavaScript world.

Rules (documented in the package docstring):
- overflow: the document scrolls horizontally — ``documentElement.scrollWidth >
  clientWidth + 1`` (1 px absorbs sub-pixel rounding), or ``body`` is itself a horizontal
  scroll container whose content is wider than it;
- clipped: an interactive element (link, button, form control, ARIA widget, focusable)
  or an element holding text, rendered, not `aria-hidden`/`inert` and larger than 1 px,
  has more than 4 px of its width cut off by an ancestor with ``overflow-x: hidden|clip``
  that contains it (or by the viewport: left of 0, right of the viewport when the page
  does not scroll), or lies wholly above the page. Not judged: a11y-only text (1 px),
  in-page skip links off-screen, collapsed content (a clipping ancestor of 0 height, or
  the element wholly outside a vertically clipping ancestor), ``text-overflow:
  ellipsis``, and what a horizontal scroller (``overflow-x: auto|scroll``) holds — only
  the scroller's own visible part is judged. Either overflow or clipping fails
  `layout_overflow`;
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

from .._browser import probe_page
from .._core import PageHealth


async def read_health(page: Page, with_fingerprint: bool) -> tuple[PageHealth, str]:
    """Page health and, when asked, the content fingerprint ("" otherwise), in one call."""
    raw = await probe_page(page, "health", with_fingerprint)
    health = PageHealth(
        scroll_width=int(raw["scroll_width"]),
        client_width=int(raw["client_width"]),
        overflow=bool(raw["overflow"]),
        clipped=tuple(str(c) for c in raw["clipped"]),
        blank=bool(raw["blank"]),
        broken_images=tuple(str(s) for s in raw["broken_images"]),
    )
    content = str(raw["content"])
    return health, hashlib.sha256(content.encode()).hexdigest() if with_fingerprint else ""
