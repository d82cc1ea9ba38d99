"""A check's one assertion (``[[checks]]`` of ``task.toml``), a tagged union on
``kind``; AUTHORING.md's "Check kinds" table names each kind and its fields."""

from __future__ import annotations

from typing import Literal

from ._base import _Strict


class _Assert(_Strict, tag_field="kind", frozen=True, kw_only=True):
    pass


class Exists(_Assert, tag="exists", frozen=True, kw_only=True):
    selector: str


class Absent(_Assert, tag="absent", frozen=True, kw_only=True):
    selector: str


class Count(_Assert, tag="count", frozen=True, kw_only=True):
    selector: str
    equals: int | None = None
    min: int | None = None
    max: int | None = None


class Visible(_Assert, tag="visible", frozen=True, kw_only=True):
    selector: str


class Hidden(_Assert, tag="hidden", frozen=True, kw_only=True):
    selector: str


class TextEquals(_Assert, tag="text_equals", frozen=True, kw_only=True):
    selector: str
    value: str


class TextContains(_Assert, tag="text_contains", frozen=True, kw_only=True):
    selector: str
    value: str


class TextRegex(_Assert, tag="text_regex", frozen=True, kw_only=True):
    selector: str
    pattern: str


class TextOrder(_Assert, tag="text_order", frozen=True, kw_only=True):
    """The texts of the elements matching `selector` contain `values` in this order."""

    selector: str
    values: tuple[str, ...]


class Attribute(_Assert, tag="attribute", frozen=True, kw_only=True):
    selector: str
    name: str
    equals: str | None = None
    contains: str | None = None
    regex: str | None = None


class Value(_Assert, tag="value", frozen=True, kw_only=True):
    """What a form control holds now, as the user left it (not its `value` attribute,
    which `attribute` reads): an input's or a textarea's text, a select's selected
    options' values joined by ", ", and `checked` for a checkbox or a radio button."""

    selector: str
    equals: str | None = None
    contains: str | None = None
    regex: str | None = None
    checked: bool | None = None


class Role(_Assert, tag="role", frozen=True, kw_only=True):
    role: str
    name: str
    exact: bool = True
    within: str | None = None


class Style(_Assert, tag="style", frozen=True, kw_only=True):
    selector: str
    property: str
    equals: str


class Token(_Assert, tag="token", frozen=True, kw_only=True):
    """The element's computed `property` equals the resolved custom property `token`."""

    selector: str
    property: str
    token: str


class Box(_Assert, tag="box", frozen=True, kw_only=True):
    """Geometry of the first match, in CSS px relative to the page, within `tolerance`."""

    selector: str
    x: float | None = None
    y: float | None = None
    width: float | None = None
    height: float | None = None
    tolerance: float = 4.0


class Contained(_Assert, tag="contained", frozen=True, kw_only=True):
    """Every match lies horizontally inside the viewport."""

    selector: str


class Links(_Assert, tag="links", frozen=True, kw_only=True):
    """A navigation region holds links with these texts and targets (in order)."""

    selector: str
    entries: tuple[LinkEntry, ...]


class LinkEntry(_Strict, frozen=True, kw_only=True):
    text: str
    href: str


class Storage(_Assert, tag="storage", frozen=True, kw_only=True):
    area: Literal["local", "session"] = "local"
    key: str
    equals: str | None = None
    contains: str | None = None
    exists: bool = True


class Cookie(_Assert, tag="cookie", frozen=True, kw_only=True):
    name: str
    equals: str | None = None
    exists: bool = True


class Url(_Assert, tag="url", frozen=True, kw_only=True):
    equals: str | None = None
    contains: str | None = None
    regex: str | None = None


class Visual(_Assert, tag="visual", frozen=True, kw_only=True):
    """Screenshot differs from the frozen reference render by at most `threshold`.

    `threshold` is the fraction of pixels whose channel difference exceeds
    `pixel_tolerance`; `masks` are selectors painted over in both images.
    """

    threshold: float = 0.01
    pixel_tolerance: int = 24
    masks: tuple[str, ...] = ()
    full_page: bool = False


Assertion = (
    Exists
    | Absent
    | Count
    | Visible
    | Hidden
    | TextEquals
    | TextContains
    | TextRegex
    | TextOrder
    | Attribute
    | Value
    | Role
    | Style
    | Token
    | Box
    | Contained
    | Links
    | Storage
    | Cookie
    | Url
    | Visual
)


__all__ = [
    "Absent",
    "Assertion",
    "Attribute",
    "Box",
    "Contained",
    "Cookie",
    "Count",
    "Exists",
    "Hidden",
    "LinkEntry",
    "Links",
    "Role",
    "Storage",
    "Style",
    "TextContains",
    "TextEquals",
    "TextOrder",
    "TextRegex",
    "Token",
    "Url",
    "Value",
    "Visible",
    "Visual",
]
