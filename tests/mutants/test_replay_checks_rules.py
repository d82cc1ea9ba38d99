"""`verifier._replay_checks.evaluate` without a browser (issue #35): each assertion kind
against a page we describe, so the verdict and what it says it saw are pinned.

The page is a stand-in for Playwright's `Page`/`Locator`: a selector names a list of
elements (dicts); the page-world probes (`probe_each`, `probe_page`) are replaced by
reads of those dicts; the pixel diff (`compare`) by a recorder. That Chromium reads
texts, styles and boxes as the real probes say stays with `tests/verifier`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from orchestrator.contract import (
    Absent,
    Attribute,
    Box,
    Contained,
    Cookie,
    Count,
    Exists,
    Hidden,
    LinkEntry,
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
    Visible,
    Visual,
)
from orchestrator.verifier._core._observe import Outcome
from orchestrator.verifier._replay import _checks as _replay_checks
from orchestrator.verifier._replay._checks import evaluate, links_outcome

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


El = dict[str, Any]


@dataclass
class Loc:
    els: list[El]
    page: Page

    async def count(self) -> int:
        return len(self.els)

    @property
    def first(self) -> Loc:
        return Loc(self.els[:1], self.page)

    async def inner_text(self) -> str:
        return str(self.els[0]["text"])

    def filter(self, *, visible: bool) -> Loc:
        return Loc([e for e in self.els if e.get("visible", True) == visible], self.page)

    async def get_attribute(self, name: str) -> str | None:
        value = self.els[0].get("attrs", {}).get(name)
        return None if value is None else str(value)

    def get_by_role(self, role: str, *, name: str | None = None, exact: bool = False) -> Loc:
        within = [r for e in self.els for r in e.get("roles", ())]
        return Loc(_roles(within, role, name, exact), self.page)


def _roles(roles: list[El], role: str, name: str | None, exact: bool) -> list[El]:
    def named(r: El) -> bool:
        if name is None:
            return True
        return r["name"] == name if exact else name.lower() in r["name"].lower()

    return [r for r in roles if r["role"] == role and named(r)]


@dataclass
class Context:
    jar: list[dict[str, str]] = field(default_factory=list)
    asked: list[str] = field(default_factory=list)

    async def cookies(self, url: str) -> list[dict[str, str]]:
        self.asked.append(url)
        return self.jar


@dataclass
class Page:
    dom: dict[str, list[El]] = field(default_factory=dict)
    roles: list[El] = field(default_factory=list)
    url: str = "http://site.test/"
    storage: dict[tuple[str, str], str] = field(default_factory=dict)
    context: Context = field(default_factory=Context)
    scroll: tuple[float, float] = (0.0, 0.0)
    shots: list[dict[str, Any]] = field(default_factory=list)

    def locator(self, selector: str) -> Loc:
        return Loc(list(self.dom.get(selector, [])), self)

    def get_by_role(self, role: str, *, name: str | None = None, exact: bool = False) -> Loc:
        return Loc(_roles(self.roles, role, name, exact), self)

    async def screenshot(self, **kw: Any) -> bytes:
        self.shots.append(kw)
        return b"png"


# What the browser's probe element would normalise a value to.
_COMPUTED = {"#fff": "rgb(255, 255, 255)", "red": "rgb(255, 0, 0)"}


async def _probe_each(loc: Loc, kind: str, args: list[Any] | None = None) -> list[Any]:
    out = []
    for e in loc.els:
        if kind == "text":
            out.append(e["text"])
        elif kind == "style":
            prop, want = args or ["", ""]
            out.append({"actual": e["style"][prop], "want": _COMPUTED.get(want, want)})
        elif kind == "token":
            assert args == [e["token"]["property"], e["token"]["name"]], args
            out.append(e[kind])
        else:  # contained, box, links
            out.append(e[kind])
    return out


async def _probe_page(page: Page, kind: str, args: list[Any] | None = None) -> Any:
    if kind == "storage":
        area, key = args or ["", ""]
        return page.storage.get((area, key))
    assert kind == "scroll"
    return page.scroll


@pytest.fixture(autouse=True)
def probes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_replay_checks, "probe_each", _probe_each)
    monkeypatch.setattr(_replay_checks, "probe_page", _probe_page)


async def _ev(page: Page, a: Any, ref: Path | None = None) -> tuple[bool, str]:
    out = await evaluate(page, a, "home", ref)  # type: ignore[arg-type]
    return out.passed, out.observed


def _els(*texts: str, hidden: tuple[int, ...] = ()) -> list[El]:
    return [{"text": t, "visible": i not in hidden} for i, t in enumerate(texts)]


# ---------------------------------------------------------------- presence


async def test_presence() -> None:
    page = Page(dom={"li": _els("a", "b", "c", hidden=(1, 2)), "dialog": _els("x", hidden=(0,))})
    assert await _ev(page, Exists(selector="li")) == (True, "3 match(es)")
    assert await _ev(page, Exists(selector="dialog")) == (True, "1 match(es)")
    assert await _ev(page, Exists(selector="p")) == (False, "0 match(es)")
    assert await _ev(page, Absent(selector="p")) == (True, "0 match(es)")
    assert await _ev(page, Absent(selector="li")) == (False, "3 match(es)")
    assert await _ev(page, Visible(selector="li")) == (True, "1 of 3 match(es) visible")
    assert await _ev(page, Visible(selector="dialog")) == (False, "0 of 1 match(es) visible")
    assert await _ev(page, Visible(selector="p")) == (False, "0 of 0 match(es) visible")
    assert await _ev(page, Hidden(selector="dialog")) == (True, "0 of 1 match(es) visible")
    assert await _ev(page, Hidden(selector="p")) == (True, "0 of 0 match(es) visible")
    assert await _ev(page, Hidden(selector="li")) == (False, "1 of 3 match(es) visible")


@pytest.mark.parametrize(
    ("kw", "ok"),
    [
        ({"equals": 3}, True),
        ({"equals": 2}, False),
        ({"equals": 4}, False),
        ({"min": 3}, True),
        ({"min": 4}, False),
        ({"max": 3}, True),
        ({"max": 2}, False),
        ({"min": 2, "max": 4}, True),
        ({"min": 1, "max": 2}, False),
        ({"min": 4, "max": 9}, False),
        ({"equals": 3, "min": 4}, False),
        ({"equals": 3, "max": 2}, False),
        ({}, True),
    ],
)
async def test_count(kw: dict[str, int], ok: bool) -> None:
    page = Page(dom={"li": _els("a", "b", "c")})
    assert await _ev(page, Count(selector="li", **kw)) == (ok, "3 match(es)")


# ---------------------------------------------------------------- texts


async def test_text_equals_and_contains_read_the_first_match_with_whitespace_collapsed() -> None:
    page = Page(dom={"h1": _els("  Hello \n  world ", "Second")})
    assert await _ev(page, TextEquals(selector="h1", value="Hello world")) == (
        True,
        "text 'Hello world'",
    )
    assert await _ev(page, TextEquals(selector="h1", value=" Hello\tworld ")) == (
        True,
        "text 'Hello world'",
    )
    assert (await _ev(page, TextEquals(selector="h1", value="Hello")))[0] is False
    assert (await _ev(page, TextEquals(selector="h1", value="Second")))[0] is False
    assert (await _ev(page, TextContains(selector="h1", value="lo  wor")))[0] is True
    assert (await _ev(page, TextContains(selector="h1", value="Second")))[0] is False
    assert (await _ev(page, TextRegex(selector="h1", pattern=r"w\w+d$")))[0] is True
    assert (await _ev(page, TextRegex(selector="h1", pattern=r"^world")))[0] is False
    for a in (
        TextEquals(selector="p", value="x"),
        TextContains(selector="p", value="x"),
        TextRegex(selector="p", pattern="x"),
    ):
        assert await _ev(page, a) == (False, "no element matches")


async def test_a_long_text_is_shortened_in_the_observation() -> None:
    page = Page(dom={"p": _els("x" * 400)})
    _, observed = await _ev(page, TextEquals(selector="p", value="y"))
    assert observed == "text " + ("'" + "x" * 400 + "'")[:299] + "…"
    assert len(observed) == len("text ") + 300
    page = Page(dom={"p": _els("x" * 298)})
    _, observed = await _ev(page, TextEquals(selector="p", value="y"))
    assert observed == "text '" + "x" * 298 + "'"


async def test_text_order_over_all_matches() -> None:
    page = Page(dom={"li": _els("Apples", " Pears  and\nplums", "Figs"), "ul": _els("A B C")})
    ok = TextOrder(selector="li", values=("Apples", "Pears and plums", "Figs"))
    assert await _ev(page, ok) == (True, "texts ['Apples', 'Pears and plums', 'Figs']")
    assert (await _ev(page, TextOrder(selector="li", values=("Pears", "Apples"))))[0] is False
    assert (await _ev(page, TextOrder(selector="li", values=("Kiwi",))))[0] is False
    # One element holding every value, in order; a value may not be found twice.
    assert (await _ev(page, TextOrder(selector="ul", values=("A", "B", "C"))))[0] is True
    assert (await _ev(page, TextOrder(selector="ul", values=("A", "A"))))[0] is False
    assert (await _ev(page, TextOrder(selector="ul", values=("A B", "B"))))[0] is False
    assert await _ev(page, TextOrder(selector="ol", values=("A",))) == (False, "texts []")


def test_in_order_steps_past_each_value() -> None:
    in_order = _replay_checks._in_order
    assert in_order(["ab", "c"], ("a", "b", "c"))
    assert not in_order(["abc"], ("abc", "c"))
    assert not in_order(["ab"], ("b", "a"))
    assert in_order(["x"], ())
    assert in_order(["a b a"], ("a", "b"))  # the first occurrence, not the last
    assert not in_order(["a", "b"], ("X",))  # texts are joined by a newline only
    assert in_order(["a", "b"], ("a\nb",)) is False  # a value is normalised, never a newline


# ---------------------------------------------------------------- attributes and roles


@pytest.mark.parametrize(
    ("kw", "ok"),
    [
        ({}, True),
        ({"equals": "/about.html"}, True),
        ({"equals": "/about"}, False),
        ({"contains": "about"}, True),
        ({"contains": "contact"}, False),
        ({"regex": r"^/\w+\.html$"}, True),
        ({"regex": r"^about"}, False),
        ({"equals": "/about.html", "contains": "x"}, False),
        ({"equals": "/about.html", "regex": "x"}, False),
        ({"contains": "about", "regex": "x"}, False),
    ],
)
async def test_attribute(kw: dict[str, str], ok: bool) -> None:
    page = Page(dom={"a": [{"attrs": {"href": "/about.html"}}, {"attrs": {"href": "/x"}}]})
    got = await _ev(page, Attribute(selector="a", name="href", **kw))
    assert got == (ok, "href='/about.html'")


async def test_attribute_missing() -> None:
    page = Page(dom={"a": [{"attrs": {}}]})
    assert await _ev(page, Attribute(selector="a", name="href")) == (False, "no attribute 'href'")
    assert await _ev(page, Attribute(selector="b", name="href")) == (False, "no element matches")


async def test_role_by_exact_or_partial_name_within_a_region() -> None:
    buttons = [
        {"role": "button", "name": "Add to cart", "text": "Add to  cart"},
        {"role": "button", "name": "Remove", "text": "Remove"},
        {"role": "link", "name": "Home", "text": "Home"},
    ]
    page = Page(roles=buttons, dom={"nav": [{"roles": buttons[2:]}]})
    assert await _ev(page, Role(role="button", name="Remove")) == (
        True,
        "1 button named 'Remove'",
    )
    assert (await _ev(page, Role(role="button", name="add to")))[0] is False
    assert await _ev(page, Role(role="button", name="add to", exact=False)) == (
        True,
        "1 button named 'add to'",
    )
    assert await _ev(page, Role(role="button", name="Buy")) == (
        False,
        "no button named 'Buy'; buttons present: ['Add to cart', 'Remove']",
    )
    assert (await _ev(page, Role(role="link", name="Home", within="nav")))[0] is True
    assert await _ev(page, Role(role="button", name="Remove", within="nav")) == (
        False,
        "no button named 'Remove'; buttons present: []",
    )


# ---------------------------------------------------------------- styles and tokens


async def test_style_compares_computed_values() -> None:
    page = Page(dom={"h1": [{"style": {"color": "rgb(255, 255, 255)"}}, {"style": {}}]})
    assert await _ev(page, Style(selector="h1", property="color", equals="#fff")) == (
        True,
        "color: rgb(255, 255, 255) (expected rgb(255, 255, 255))",
    )
    assert await _ev(page, Style(selector="h1", property="color", equals="red")) == (
        False,
        "color: rgb(255, 255, 255) (expected rgb(255, 0, 0))",
    )
    # A value the browser does not normalise is compared as written.
    page = Page(dom={"h1": [{"style": {"display": "grid"}}]})
    assert (await _ev(page, Style(selector="h1", property="display", equals="grid")))[0]
    assert await _ev(page, Style(selector="p", property="color", equals="red")) == (
        False,
        "no element matches",
    )


async def test_style_accepts_the_authored_value_when_the_probe_keeps_another(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def probe(loc: Loc, kind: str, args: list[Any] | None = None) -> list[Any]:
        return [{"actual": "bold", "want": "700"}]

    monkeypatch.setattr(_replay_checks, "probe_each", probe)
    page = Page(dom={"b": [{}]})
    assert await _ev(page, Style(selector="b", property="font-weight", equals="bold")) == (
        True,
        "font-weight: bold (expected 700)",
    )


@pytest.mark.parametrize(
    ("raw", "ok", "observed"),
    [
        (
            {"defined": True, "actual": "#258", "token": "#258", "follows": True},
            True,
            "color: #258 vs --brand = #258",
        ),
        (
            {"defined": True, "actual": "#258", "token": "#258", "follows": None},
            True,
            "color: #258 vs --brand = #258",
        ),
        (
            {"defined": True, "actual": "#258", "token": "#f00", "follows": True},
            False,
            "color: #258 vs --brand = #f00",
        ),
        (
            {"defined": True, "actual": "#258", "token": "#258", "follows": False},
            False,
            "color: #258 vs --brand = #258 (does not follow the token when it changes)",
        ),
        ({"defined": False}, False, "token --brand is not defined on :root"),
    ],
)
async def test_token(raw: El, ok: bool, observed: str) -> None:
    named = {"property": "color", "name": "--brand"}
    page = Page(dom={"h1": [{"token": {**raw, **named}}, {"token": {"defined": False}}]})
    assert await _ev(page, Token(selector="h1", property="color", token="--brand")) == (
        ok,
        observed,
    )
    assert await _ev(page, Token(selector="p", property="color", token="--brand")) == (
        False,
        "no element matches",
    )


# ---------------------------------------------------------------- geometry


async def test_box_within_tolerance() -> None:
    box = {"x": 10.0, "y": 20.4, "width": 300.0, "height": 50.0}
    page = Page(dom={"header": [{"box": box}, {"box": {}}]})
    shown = "x=10, y=20, width=300, height=50"
    assert await _ev(page, Box(selector="header", x=12, y=24, width=300)) == (True, shown)
    assert await _ev(page, Box(selector="header", x=14.1, height=50)) == (
        False,
        shown + " (off: x)",
    )
    assert await _ev(page, Box(selector="header", x=14, y=25, width=296)) == (
        False,
        shown + " (off: y)",
    )
    assert await _ev(page, Box(selector="header", width=310, height=40, tolerance=9)) == (
        False,
        shown + " (off: width, height)",
    )
    assert await _ev(page, Box(selector="header")) == (True, shown)
    assert await _ev(page, Box(selector="main")) == (False, "no element matches")


async def test_contained_lists_what_is_outside() -> None:
    page = Page(dom={"img": [{"contained": None}, {"contained": "img.hero 1400px wide"}]})
    assert await _ev(page, Contained(selector="img")) == (
        False,
        "outside the viewport: ['img.hero 1400px wide']",
    )
    page = Page(dom={"img": [{"contained": None}]})
    assert await _ev(page, Contained(selector="img")) == (True, "inside")
    assert await _ev(page, Contained(selector="p")) == (False, "no element matches")


# ---------------------------------------------------------------- links


_NAV = Links(
    selector="nav",
    entries=(LinkEntry(text="Home", href="/"), LinkEntry(text="About", href="/about.html")),
)


async def test_links_in_order_among_those_shown() -> None:
    found = [
        ["Home ", "/", "/", True],
        ["Shop", "/shop", "/shop", True],
        ["About", "http://site.test/about.html", "/about.html", True],
    ]
    page = Page(dom={"nav": [{"links": found}, {"links": []}]})
    assert await _ev(page, _NAV) == (
        True,
        "links [('Home', '/'), ('Shop', '/shop'), ('About', 'http://site.test/about.html')]",
    )
    assert await _ev(page, Links(selector="footer", entries=_NAV.entries)) == (
        False,
        "no element matches",
    )


async def test_read_links_normalises_texts_and_says_what_is_shown() -> None:
    page = Page(dom={"nav": [{"links": [["  Home\n", "/", "/", 1], ["X", "/x", "/x", 0]]}]})
    assert await _replay_checks.read_links(page, _NAV) == [  # type: ignore[arg-type]
        ("Home", "/", "/", True),
        ("X", "/x", "/x", False),
    ]
    assert await _replay_checks.read_links(Page(), _NAV) is None  # type: ignore[arg-type]


def test_links_out_of_order_or_missing_fail() -> None:
    swapped = [("About", "/about.html", "/about.html", True), ("Home", "/", "/", True)]
    assert not links_outcome(_NAV, swapped).passed
    only_home = [("Home", "/", "/", True)]
    assert not links_outcome(_NAV, only_home).passed
    wrong_href = [("Home", "/", "/", True), ("About", "/about", "/about", True)]
    assert not links_outcome(_NAV, wrong_href).passed
    wrong_text = [("Home", "/", "/", True), ("About us", "/about.html", "/about.html", True)]
    assert not links_outcome(_NAV, wrong_text).passed
    entry_text = Links(selector="nav", entries=(LinkEntry(text=" Home\n", href="/"),))
    assert links_outcome(entry_text, only_home).passed


def test_hidden_links_count_only_when_a_menu_control_reveals_them() -> None:
    found = [
        ("Home", "/", "/", True),
        ("About", "/a", "/about.html", False),
        ("X", "/x", "/x", False),
    ]
    hidden = links_outcome(_NAV, found)
    assert hidden == Outcome(
        passed=False,
        observed="links [('Home', '/')]; hidden, and no menu control of the page shows them: "
        "['About', 'X']",
    )
    revealed = links_outcome(_NAV, found, frozenset({("About", "/a")}), "button.burger")
    assert revealed == Outcome(
        passed=True,
        observed="links [('Home', '/'), ('About', '/a')]; shown by clicking button.burger: "
        "['About']; hidden, and no menu control of the page shows them: ['X']",
    )
    no_via = links_outcome(_NAV, found, frozenset({("About", "/a")}))
    assert "; shown by clicking : ['About']" in no_via.observed
    every = links_outcome(_NAV, found, frozenset({("About", "/a"), ("X", "/x")}), "#menu")
    assert every.observed == (
        "links [('Home', '/'), ('About', '/a'), ('X', '/x')]; shown by clicking #menu: "
        "['About', 'X']"
    )


# ---------------------------------------------------------------- url, storage, cookies


@pytest.mark.parametrize(
    ("kw", "ok"),
    [
        ({"equals": "/cart?step=2#pay"}, True),
        ({"equals": "http://site.test/cart?step=2#pay"}, True),
        ({"equals": "/cart"}, False),
        ({"equals": "/cart?step=2"}, False),
        ({"contains": "step=2"}, True),
        ({"contains": "step=3"}, False),
        ({"regex": r"/cart\?step=\d"}, True),
        ({"regex": r"^/cart"}, False),
        ({"equals": "/cart?step=2#pay", "contains": "x"}, False),
        ({"equals": "/cart?step=2#pay", "regex": "x"}, False),
        ({"contains": "cart", "regex": "x"}, False),
        ({}, True),
    ],
)
async def test_url(kw: dict[str, str], ok: bool) -> None:
    page = Page(url="http://site.test/cart?step=2#pay")
    assert await _ev(page, Url(**kw)) == (ok, "url http://site.test/cart?step=2#pay")


async def test_url_path_without_query_or_fragment() -> None:
    page = Page(url="http://site.test/cart")
    assert (await _ev(page, Url(equals="/cart")))[0] is True
    page = Page(url="http://site.test/cart?x=1")
    assert (await _ev(page, Url(equals="/cart?x=1")))[0] is True
    assert (await _ev(page, Url(equals="/cart?x=1#")))[0] is False
    page = Page(url="http://site.test/cart#top")
    assert (await _ev(page, Url(equals="/cart#top")))[0] is True
    assert (await _ev(page, Url(equals="/cart?#top")))[0] is False


@pytest.mark.parametrize(
    ("a", "ok", "observed"),
    [
        (Storage(key="cart"), True, "localStorage['cart'] = '[1,2]'"),
        (Storage(key="cart", equals="[1,2]"), True, "localStorage['cart'] = '[1,2]'"),
        (Storage(key="cart", equals="[1]"), False, "localStorage['cart'] = '[1,2]'"),
        (Storage(key="cart", contains="1,"), True, "localStorage['cart'] = '[1,2]'"),
        (Storage(key="cart", contains="3"), False, "localStorage['cart'] = '[1,2]'"),
        (
            Storage(key="cart", equals="[1,2]", contains="3"),
            False,
            "localStorage['cart'] = '[1,2]'",
        ),
        (Storage(key="gone"), False, "localStorage['gone'] = None"),
        (Storage(key="gone", contains=""), False, "localStorage['gone'] = None"),
        (Storage(key="gone", exists=False), True, "localStorage['gone'] = None"),
        (Storage(key="cart", exists=False), False, "localStorage['cart'] = '[1,2]'"),
        (Storage(area="session", key="tab"), True, "sessionStorage['tab'] = '2'"),
        (Storage(area="session", key="cart"), False, "sessionStorage['cart'] = None"),
    ],
)
async def test_storage(a: Storage, ok: bool, observed: str) -> None:
    page = Page(storage={("local", "cart"): "[1,2]", ("session", "tab"): "2"})
    assert await _ev(page, a) == (ok, observed)


@pytest.mark.parametrize(
    ("a", "ok", "observed"),
    [
        (Cookie(name="sid"), True, "cookie 'sid' = 'abc'"),
        (Cookie(name="sid", equals="abc"), True, "cookie 'sid' = 'abc'"),
        (Cookie(name="sid", equals="abd"), False, "cookie 'sid' = 'abc'"),
        (Cookie(name="theme"), False, "cookie 'theme' = None"),
        (Cookie(name="theme", exists=False), True, "cookie 'theme' = None"),
        (Cookie(name="sid", exists=False), False, "cookie 'sid' = 'abc'"),
        (Cookie(name="empty"), True, "cookie 'empty' = ''"),
    ],
)
async def test_cookie(a: Cookie, ok: bool, observed: str) -> None:
    jar = [
        {"name": "other", "value": "1"},
        {"name": "sid", "value": "abc"},
        {"name": "empty", "value": ""},
    ]
    page = Page(url="http://site.test/account", context=Context(jar=jar))
    assert await _ev(page, a) == (ok, observed)
    assert page.context.asked == ["http://site.test/account"]


# ---------------------------------------------------------------- visual


@dataclass
class Compared:
    calls: list[tuple[Any, ...]] = field(default_factory=list)

    def __call__(self, *args: Any) -> Outcome:
        self.calls.append(args)
        return Outcome(passed=True, observed="0.0% differ")


async def test_visual_compares_a_screenshot_with_masks_painted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    compared = Compared()
    monkeypatch.setattr(_replay_checks, "compare", compared)
    boxes = [{"box": {"x": 10.0, "y": 30.0, "width": 5.0, "height": 6.0}}]
    page = Page(dom={".clock": boxes, ".ad": []}, scroll=(4.0, 20.0))
    a = Visual(masks=(".clock", ".ad"), threshold=0.02, pixel_tolerance=10)
    assert await evaluate(page, a, "home", tmp_path) == Outcome(  # type: ignore[arg-type]
        passed=True, observed="0.0% differ"
    )
    (shot,) = page.shots
    assert shot["full_page"] is False and shot["mask_color"] == "#FF00FF"
    assert (shot["animations"], shot["caret"]) == ("disabled", "hide")
    assert [m.els for m in shot["mask"]] == [boxes, []]
    # The mask's box is in viewport coordinates: the page's scroll is taken off.
    assert compared.calls == [(b"png", tmp_path / "home.png", [(6.0, 10.0, 5.0, 6.0)], 0.02, 10)]


async def test_a_full_page_visual_uses_page_coordinates_and_its_own_reference(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    compared = Compared()
    monkeypatch.setattr(_replay_checks, "compare", compared)
    boxes = [{"box": {"x": 1.0, "y": 300.0, "width": 2.0, "height": 3.0}}]
    page = Page(dom={".clock": boxes}, scroll=(5.0, 20.0))
    await evaluate(page, Visual(masks=(".clock",), full_page=True), "cart", tmp_path)  # type: ignore[arg-type]
    assert page.shots[0]["full_page"] is True
    assert compared.calls == [
        (b"png", tmp_path / "cart.full.png", [(1.0, 300.0, 2.0, 3.0)], 0.01, 24)
    ]


async def test_a_visual_check_without_evidence_says_how_to_capture_it() -> None:
    page = Page()
    assert await _ev(page, Visual(), None) == (
        False,
        "no evidence directory; run `python -m orchestrator capture`",
    )
    assert page.shots == []
