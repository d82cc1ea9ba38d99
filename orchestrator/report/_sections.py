"""The report's body as sections, the same for Markdown and HTML: what to print of each
table so that a reader is not made to read a table twice or scroll past empty ones.

- a table identical to an earlier one (same headers, same rows) is printed once; the
  later section is one line naming the earlier (e.g. the scores with infra_error counted
  as zero, when no row is an infra_error);
- a table without rows is one line;
- a run of one task says once that a mean needs two tasks for an interval, and its cells
  drop the per-cell "(1 task: no interval)".
"""

from __future__ import annotations

import re

import msgspec

from ._model import Report
from ._tables import Table, tables
from ._tables_fmt import ONE_TASK


class Section(msgspec.Struct, frozen=True, kw_only=True):
    table: Table
    same_as: Table | None = None  # printed once already: this section only points there

    @property
    def empty(self) -> bool:
        return not self.table.rows


def one_task(rep: Report) -> bool:
    """Every row of the run is of one task: no mean can carry an interval."""
    return len({c.task for c in rep.cells}) == 1


ONE_TASK_NOTE = (
    "This run has one task: its means carry no interval (a task-clustered interval needs "
    "at least 2 tasks); rates keep their Wilson interval."
)


def _bare(t: Table) -> Table:
    suffix = " " + ONE_TASK
    rows = tuple(tuple(c.replace(suffix, "") for c in r) for r in t.rows)
    return msgspec.structs.replace(t, rows=rows)


def shown(rep: Report, t: Table) -> Table:
    """`t` as the report prints it (a one-task run drops the per-cell note)."""
    return _bare(t) if one_task(rep) else t


def sections(rep: Report) -> list[Section]:
    out: list[Section] = []
    seen: dict[tuple[tuple[str, ...], tuple[tuple[str, ...], ...]], Table] = {}
    for t in tables(rep):
        t = shown(rep, t)
        key = (t.headers, t.rows)
        if t.rows and key in seen:
            out.append(Section(table=t, same_as=seen[key]))
            continue
        seen.setdefault(key, t)
        out.append(Section(table=t))
    return out


def heading(s: Section) -> str:
    """The section's heading text: an empty section says so in its one line."""
    return s.table.title + (" (no rows)" if s.empty else "")


def slug(text: str) -> str:
    """The anchor GitHub gives a Markdown heading: lower case, punctuation dropped,
    spaces to hyphens (the report's headings are unique)."""
    return re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")
