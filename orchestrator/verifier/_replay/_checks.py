"""Evaluate one assertion on a settled page, through Playwright locators.

Conventions: single-element kinds (text_*, attribute, value, style, token, box) read the first
match; `visible` needs at least one visible match, `hidden` none; texts are compared
after collapsing whitespace. Computed values are normalised by the browser itself (a
probe element), so `#fff` equals `rgb(255, 255, 255)`.

Nothing here runs in the page's own JavaScript world (`_browser/_world.py`): locator
reads run in Playwright's utility world, the other probes through `probe_each` /
`probe_page`, cookies and the URL come from the browser.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlsplit

import anyio
from playwright.async_api import Locator, Page

from ...contract import (
    Absent,
    Assertion,
    Attribute,
    Box,
    Contained,
    Cookie,
    Count,
    Exists,
    Hidden,
    Links,
    Role,
    Storage,
    Style,
    TextContains,
    TextEquals,
    TextOrder,
    TextRegex,
    Token,
    Url,
    Value,
    Visible,
    Visual,
)
from .._browser import probe_each, probe_page
from .._core import Outcome
from ._visual import compare

NO_MATCH = "no element matches"


def _norm(text: str) -> str:
    return " ".join(text.split())


def _short(values: object, limit: int = 300) -> str:
    text = repr(values)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _ok(passed: bool, observed: str) -> Outcome:
    return Outcome(passed=passed, observed=observed)


async def _first_text(page: Page, selector: str) -> str | None:
    loc = page.locator(selector)
    if await loc.count() == 0:
        return None
    return _norm(await loc.first.inner_text())


async def evaluate(page: Page, a: Assertion, state_id: str, reference_dir: Path | None) -> Outcome:
    match a:
        case Exists() | Absent() | Count() | Visible() | Hidden():
            return await _presence(page, a)
        case TextEquals() | TextContains() | TextRegex() | TextOrder():
            return await _text(page, a)
        case Attribute():
            return await _attribute(page, a)
        case Value():
            return await _value(page, a)
        case Role():
            return await _role(page, a)
        case Style() | Token():
            return await _style(page, a)
        case Box() | Contained():
            return await _geometry(page, a)
        case Links():
            return await _links(page, a)
        case Storage() | Cookie() | Url():
            return await _state_artifact(page, a)
        case Visual():
            return await _visual(page, a, state_id, reference_dir)


async def _presence(page: Page, a: Exists | Absent | Count | Visible | Hidden) -> Outcome:
    loc = page.locator(a.selector)
    n = await loc.count()
    match a:
        case Exists():
            return _ok(n > 0, f"{n} match(es)")
        case Absent():
            return _ok(n == 0, f"{n} match(es)")
        case Count(equals=eq, min=lo, max=hi):
            ok = (eq is None or n == eq) and (lo is None or n >= lo) and (hi is None or n <= hi)
            return _ok(ok, f"{n} match(es)")
    shown = await loc.filter(visible=True).count()
    observed = f"{shown} of {n} match(es) visible"
    return _ok(shown > 0 if isinstance(a, Visible) else shown == 0, observed)


async def _text(page: Page, a: TextEquals | TextContains | TextRegex | TextOrder) -> Outcome:
    if isinstance(a, TextOrder):
        texts = [_norm(t) for t in await _texts(page.locator(a.selector))]
        return _ok(_in_order(texts, a.values), f"texts {_short(texts)}")
    text = await _first_text(page, a.selector)
    if text is None:
        return _ok(False, NO_MATCH)
    match a:
        case TextEquals(value=v):
            ok = text == _norm(v)
        case TextContains(value=v):
            ok = _norm(v) in text
        case TextRegex(pattern=p):
            ok = re.search(p, text) is not None
    return _ok(ok, f"text {_short(text)}")


async def _texts(loc: Locator) -> list[str]:
    """`innerText` of every match (`all_inner_texts` would read it in the page's world)."""
    return [str(t) for t in await probe_each(loc, "text")] if await loc.count() else []


def _in_order(texts: list[str], values: tuple[str, ...]) -> bool:
    """The values occur in this order in the matches' texts joined in document order
    (one footer holding all of them, or one list item each)."""
    joined, pos = "\n".join(texts), 0
    for v in values:
        found = joined.find(_norm(v), pos)
        if found < 0:
            return False
        pos = found + len(_norm(v))
    return True


async def _attribute(page: Page, a: Attribute) -> Outcome:
    loc = page.locator(a.selector)
    if await loc.count() == 0:
        return _ok(False, NO_MATCH)
    value = await loc.first.get_attribute(a.name)
    if value is None:
        return _ok(False, f"no attribute {a.name!r}")
    ok = (
        (a.equals is None or value == a.equals)
        and (a.contains is None or a.contains in value)
        and (a.regex is None or re.search(a.regex, value) is not None)
    )
    return _ok(ok, f"{a.name}={value!r}")


async def _value(page: Page, a: Value) -> Outcome:
    """The first match's live state, read in the utility world (`_browser/_js.py`)."""
    loc = page.locator(a.selector)
    if await loc.count() == 0:
        return _ok(False, NO_MATCH)
    (got,) = await probe_each(loc.first, "value")
    if got is None:
        return _ok(False, "not a form control (input, textarea or select)")
    value, checked = str(got["value"]), got["checked"]
    if a.checked is not None and checked is None:
        return _ok(False, f"value {_short(value)}: not a checkbox or a radio button")
    ok = (
        (a.equals is None or value == a.equals)
        and (a.contains is None or a.contains in value)
        and (a.regex is None or re.search(a.regex, value) is not None)
        and (a.checked is None or checked is a.checked)
    )
    observed = f"value {_short(value)}"
    return _ok(ok, observed if checked is None else f"{observed}, checked {str(checked).lower()}")


async def _role(page: Page, a: Role) -> Outcome:
    scope: Page | Locator = page.locator(a.within).first if a.within else page
    role = cast(Any, a.role)  # a free string in task.toml; Playwright validates it
    n = await scope.get_by_role(role, name=a.name, exact=a.exact).count()
    if n:
        return _ok(True, f"{n} {a.role} named {a.name!r}")
    names = [_norm(t) for t in await _texts(scope.get_by_role(role))]
    return _ok(False, f"no {a.role} named {a.name!r}; {a.role}s present: {_short(names)}")


async def _style(page: Page, a: Style | Token) -> Outcome:
    loc = page.locator(a.selector)
    if await loc.count() == 0:
        return _ok(False, NO_MATCH)
    if isinstance(a, Style):
        (got,) = await probe_each(loc.first, "style", [a.property, a.equals])
        actual, want = str(got["actual"]), str(got["want"])
        ok = actual in (want, a.equals)
        return _ok(ok, f"{a.property}: {actual} (expected {want})")
    (raw,) = await probe_each(loc.first, "token", [a.property, a.token])
    if not raw["defined"]:
        return _ok(False, f"token {a.token} is not defined on :root")
    observed = f"{a.property}: {raw['actual']} vs {a.token} = {raw['token']}"
    if raw["follows"] is False:
        observed += " (does not follow the token when it changes)"
    return _ok(raw["actual"] == raw["token"] and raw["follows"] is not False, observed)


async def _geometry(page: Page, a: Box | Contained) -> Outcome:
    loc = page.locator(a.selector)
    if await loc.count() == 0:
        return _ok(False, NO_MATCH)
    if isinstance(a, Contained):
        outside = [o for o in await probe_each(loc, "contained") if o is not None]
        return _ok(not outside, f"outside the viewport: {_short(outside)}" if outside else "inside")
    (box,) = await probe_each(loc.first, "box")
    want = {"x": a.x, "y": a.y, "width": a.width, "height": a.height}
    bad = [k for k, v in want.items() if v is not None and abs(box[k] - v) > a.tolerance]
    shown = ", ".join(f"{k}={box[k]:.0f}" for k in ("x", "y", "width", "height"))
    return _ok(not bad, shown + (f" (off: {', '.join(bad)})" if bad else ""))


# One link of a navigation region: (text, href attribute, same-origin path, shown now).
LinkSeen = tuple[str, str, str, bool]


async def read_links(page: Page, a: Links) -> list[LinkSeen] | None:
    """Every link of the region (None when the selector matches nothing)."""
    region = page.locator(a.selector)
    if await region.count() == 0:
        return None
    found: list[LinkSeen]
    (found,) = await probe_each(region.first, "links")
    return [(_norm(t), h, r, bool(shown)) for t, h, r, shown in found]


def links_outcome(
    a: Links,
    found: list[LinkSeen],
    revealed: frozenset[tuple[str, str]] = frozenset(),
    via: str = "",
) -> Outcome:
    """The entries in order among the links a user can reach: shown now, or `revealed`
    (shown after clicking the page's own menu control `via`, `_menu.py`)."""
    pairs = [(t, h, r) for t, h, r, shown in found if shown or (t, h) in revealed]
    it = iter(pairs)
    ok = all(any(t == _norm(e.text) and e.href in (h, r) for t, h, r in it) for e in a.entries)
    opened = [t for t, h, _, shown in found if not shown and (t, h) in revealed]
    hidden = [t for t, h, _, shown in found if not shown and (t, h) not in revealed]
    observed = f"links {_short([(t, h) for t, h, _ in pairs])}"
    if opened:
        observed += f"; shown by clicking {via}: {_short(opened)}"
    if hidden:
        observed += f"; hidden, and no menu control of the page shows them: {_short(hidden)}"
    return _ok(ok, observed)


async def _links(page: Page, a: Links) -> Outcome:
    found = await read_links(page, a)
    return _ok(False, NO_MATCH) if found is None else links_outcome(a, found)


async def _state_artifact(page: Page, a: Storage | Cookie | Url) -> Outcome:
    value: str | None
    if isinstance(a, Url):
        url = page.url
        parts = urlsplit(url)
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        path += f"#{parts.fragment}" if parts.fragment else ""
        ok = (
            (a.equals is None or a.equals in (url, path))
            and (a.contains is None or a.contains in url)
            and (a.regex is None or re.search(a.regex, url) is not None)
        )
        return _ok(ok, f"url {url}")
    if isinstance(a, Storage):
        area = "localStorage" if a.area == "local" else "sessionStorage"
        value = await probe_page(page, "storage", [a.area, a.key])
        label = f"{area}[{a.key!r}]"
        contains = a.contains
    else:
        cookies = await page.context.cookies(page.url)
        value = next((c.get("value") for c in cookies if c.get("name") == a.name), None)
        label, contains = f"cookie {a.name!r}", None
    if not a.exists:
        return _ok(value is None, f"{label} = {value!r}")
    ok = value is not None and (a.equals is None or value == a.equals)
    ok = ok and (contains is None or contains in (value or ""))
    return _ok(ok, f"{label} = {value!r}")


async def _visual(page: Page, a: Visual, state_id: str, ref_dir: Path | None) -> Outcome:
    if ref_dir is None:
        return _ok(False, "no evidence directory; run `python -m orchestrator capture`")
    suffix = ".full.png" if a.full_page else ".png"
    masks = [page.locator(s) for s in a.masks]
    shot = await page.screenshot(
        full_page=a.full_page,
        mask=masks,
        mask_color="#FF00FF",
        animations="disabled",
        caret="hide",
    )
    boxes = [b for m in masks if await m.count() for b in await probe_each(m, "box")]
    offset = (0.0, 0.0) if a.full_page else await probe_page(page, "scroll")
    rects = [(b["x"] - offset[0], b["y"] - offset[1], b["width"], b["height"]) for b in boxes]
    # Decoding and diffing two page-sized images is CPU work: keep it off the event loop.
    return await anyio.to_thread.run_sync(
        compare, shot, ref_dir / f"{state_id}{suffix}", rects, a.threshold, a.pixel_tolerance
    )
