"""The contract's struct base (every struct forbids unknown fields, so that a typo in
``task.toml`` is an error that names the key) and its viewports, named or explicit."""

from __future__ import annotations

import msgspec

NAMED_VIEWPORTS: dict[str, tuple[int, int]] = {
    "desktop": (1280, 800),
    "tablet": (768, 1024),
    "mobile": (390, 844),
}


class _Strict(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    pass


class Viewport(_Strict, frozen=True, kw_only=True):
    width: int
    height: int


def resolve_viewport(viewport: str | Viewport) -> Viewport:
    if isinstance(viewport, Viewport):
        return viewport
    w, h = NAMED_VIEWPORTS[viewport]
    return Viewport(width=w, height=h)


__all__ = [
    "NAMED_VIEWPORTS",
    "Viewport",
    "resolve_viewport",
]
