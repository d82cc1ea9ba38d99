"""Render the report as Markdown (`RUN_DIR/report.md`); links are relative to RUN_DIR.

It opens with the answer (`_summary`: the leaderboard, the continuity-gap plot, three
sentences), then a table of contents; each table links to the glossary terms it uses
instead of defining them (`_glossary`), and `_sections` decides what a repeated or empty
table prints. Anchors are the ones GitHub gives the headings (`_sections.slug`).
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from urllib.parse import quote

from ..contract import printable
from ._glossary import GLOSSARY, TERMS
from ._model import Report
from ._sections import ONE_TASK_NOTE, Section, heading, one_task, sections, shown, slug
from ._summary import CONTINUITY_PLOT, top
from ._tables import Table, header_note, load_note


def _text(text: str) -> str:
    """Prose from the run (errors, page text, names) as Markdown text: control characters
    escaped, HTML inert (`<script>` is shown, not run, where Markdown is rendered)."""
    return escape(printable(text), quote=False)


def _cell(text: str) -> str:
    return _text(text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " "))


def _terms(t: Table) -> str:
    links = ", ".join(f"[{_cell(TERMS[i].term)}](#{slug(TERMS[i].term)})" for i in t.terms)
    return f" Terms: {links}." if links else ""


def _grid(t: Table) -> list[str]:
    lines = ["| " + " | ".join(_cell(h) for h in t.headers) + " |"]
    lines.append("|" + "---|" * len(t.headers))
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in t.rows]
    return [*lines, ""]


def _section(s: Section) -> list[str]:
    t = s.table
    if s.empty:
        return [f"## {_cell(heading(s))}", ""]
    if s.same_as is not None:
        first = s.same_as.title
        return [f"## {_cell(t.title)}", "", f"Identical to [{_cell(first)}](#{slug(first)}).", ""]
    return [f"## {_cell(t.title)}", "", _text(t.note) + _terms(t), "", *_grid(t)]


def _top(rep: Report, plots: Sequence[tuple[str, str]]) -> list[str]:
    head = top(rep)
    board = shown(rep, head.board)
    lines = ["## Leaderboard", "", _text(board.note) + _terms(board), "", *_grid(board)]
    lines += [_text(" ".join(head.sentences)), ""]
    lines += [
        f"![{_cell(title)}]({quote(path)})"
        for title, path in plots
        if path.endswith(CONTINUITY_PLOT)
    ]
    return [*lines, ""]


def _contents(body: Sequence[Section]) -> list[str]:
    titles = ["Run", *(heading(s) for s in body), "Plots", "Cells", "Glossary"]
    return ["## Contents", "", *(f"- [{_cell(t)}](#{slug(t)})" for t in titles), ""]


def render_markdown(rep: Report, plots: Sequence[tuple[str, str]]) -> str:
    """`plots` are (title, path relative to RUN_DIR)."""
    body = sections(rep)
    lines = [f"# ProductWebBench report: {_cell(rep.run_dir)}", ""]
    lines += _top(rep, plots)
    lines += _contents(body)
    lines += ["## Run", "", _text(header_note(rep)), "", _text(load_note(rep)), ""]
    if one_task(rep):
        lines += [_text(ONE_TASK_NOTE), ""]
    for s in body:
        lines += _section(s)
    lines += ["## Plots", ""]
    lines += [
        f"![{_cell(title)}]({quote(path)})"
        for title, path in plots
        if not path.endswith(CONTINUITY_PLOT)
    ]
    lines += ["", "## Cells", "", "HTML pages per cell: `report/cells/<cell>/index.html`.", ""]
    lines += ["| cell | status | Gate% | WCS | whole task | flips |", "|---|---|---|---|---|---|"]
    for c in rep.cells:
        gate = "—" if c.gate is None else f"{100 * c.gate:.1f}"
        wcs = "—" if c.wcs is None else f"{c.wcs:.3f}"
        whole = "—" if c.whole_task is None else ("yes" if c.whole_task else "no")
        link = f"[{_cell(c.cell)}](report/cells/{quote(c.dir)}/index.html)"
        lines.append(f"| {link} | {_cell(c.status)} | {gate} | {wcs} | {whole} | {c.breaks} |")
    lines += ["", "## Glossary", ""]
    for term in GLOSSARY:
        lines += [f"### {_cell(term.term)}", "", _text(term.text), ""]
    return "\n".join(lines)
