"""A rendered table and the number formats every table uses."""

from __future__ import annotations

import math

import msgspec

from ._model import Mean, Rate


class Table(msgspec.Struct, frozen=True, kw_only=True):
    """One section of the report: its population in `note` (run-specific, short), the
    glossary terms it uses in `terms` (`_glossary`: definitions are written once)."""

    id: str
    title: str
    note: str
    terms: tuple[str, ...] = ()
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


# What a mean over one task prints instead of an interval. A run of one task says so once
# (`_sections`) and its cells drop this.
ONE_TASK = "(1 task: no interval)"


def fmt_num(x: float, fmt: str) -> str:
    """A number, or "—" where it is undefined (a rank correlation of a constant side)."""
    return "—" if math.isnan(x) else format(x, fmt)


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
        return f"{s * m.value:.{digits}f} {ONE_TASK}"
    return f"{s * m.value:.{digits}f} [{s * m.lo:.{digits}f}, {s * m.hi:.{digits}f}]"
