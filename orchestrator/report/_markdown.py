"""Render the report as Markdown (`RUN_DIR/report.md`); links are relative to RUN_DIR."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from urllib.parse import quote

from ..contract import printable
from ._model import Report
from ._tables import Table, header_note, load_note, tables


def _text(text: str) -> str:
    """Prose from the run (errors, page text, names) as Markdown text: control characters
    escaped, HTML inert (`<script>` is shown, not run, where Markdown is rendered)."""
    return escape(printable(text), quote=False)


def _cell(text: str) -> str:
    return _text(text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " "))


def _table(t: Table) -> list[str]:
    lines = [f"## {_cell(t.title)}", "", _text(t.note), ""]
    if not t.rows:
        return [*lines, "_no rows_", ""]
    lines.append("| " + " | ".join(_cell(h) for h in t.headers) + " |")
    lines.append("|" + "---|" * len(t.headers))
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in t.rows]
    return [*lines, ""]


def render_markdown(rep: Report, plots: Sequence[tuple[str, str]]) -> str:
    """`plots` are (title, path relative to RUN_DIR)."""
    lines = [f"# ProductWebBench report: {_cell(rep.run_dir)}", "", _text(header_note(rep)), ""]
    lines += [_text(load_note(rep)), ""]
    for t in tables(rep):
        lines += _table(t)
    lines += ["## Plots", ""]
    lines += [f"![{_cell(title)}]({quote(path)})" for title, path in plots]
    lines += ["", "## Cells", "", "HTML pages per cell: `report/cells/<cell>/index.html`.", ""]
    lines += ["| cell | status | Gate% | WCS | whole task | flips |", "|---|---|---|---|---|---|"]
    for c in rep.cells:
        gate = "—" if c.gate is None else f"{100 * c.gate:.1f}"
        wcs = "—" if c.wcs is None else f"{c.wcs:.3f}"
        whole = "—" if c.whole_task is None else ("yes" if c.whole_task else "no")
        link = f"[{_cell(c.cell)}](report/cells/{quote(c.dir)}/index.html)"
        lines.append(f"| {link} | {_cell(c.status)} | {gate} | {wcs} | {whole} | {c.breaks} |")
    return "\n".join(lines) + "\n"
