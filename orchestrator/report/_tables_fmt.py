"""A rendered table and the number formats every table uses."""

from __future__ import annotations

import math

import msgspec

from ._model import Mean, Rate


class Table(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    title: str
    note: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


def fmt_rate(r: Rate) -> str:
    if r.n == 0:
        return "—"
    return f"{100 * r.value:.1f}% [{100 * r.lo:.1f}, {100 * r.hi:.1f}] ({r.k}/{r.n})"


def fmt_mean(m: Mean, *, percent: bool = True) -> str:
    if m.n == 0 or math.isnan(m.value):
        return "—"
    s = 100.0 if percent else 1.0
    digits = 1 if percent else 3
    if m.tasks < 2:  # the bootstrap over one task collapses to the mean: no interval to show
        return f"{s * m.value:.{digits}f} (1 task: no interval)"
    return f"{s * m.value:.{digits}f} [{s * m.lo:.{digits}f}, {s * m.hi:.{digits}f}]"
