"""Render the static HTML report: `report/index.html` and `report/cells/<dir>/index.html`.

Every piece of text goes through `html.escape`; every link is relative and URL-quoted, so
the pages open from disk (file://) with no server.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape
from urllib.parse import quote

from ._cells import CellView, StateEvidence
from ._glossary import GLOSSARY, TERMS
from ._measures import row_flips, row_regressions, row_units
from ._model import Report
from ._sections import ONE_TASK_NOTE, Section, heading, one_task, sections, shown
from ._summary import CONTINUITY_PLOT, top
from ._tables import Table, header_note, load_note

_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em auto;max-width:1200px;padding:0 1em}
table{border-collapse:collapse;margin:.5em 0 1.5em}
th,td{border:1px solid #ccc;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#f3f3f3}
.note{color:#555}
img{max-width:100%;border:1px solid #ddd}
.shots{display:grid;grid-template-columns:1fr 1fr;gap:1em}
.fail{color:#a00}
.evidence{display:grid;grid-template-columns:1fr 1fr 1fr;gap:1em}
.state{border-top:2px solid #ccc;margin-top:1em}
.state.failing{border-top-color:#a00}
.crops{display:grid;grid-template-columns:1fr 1fr;gap:.3em}
.top table{margin:.3em 0}
.top img{max-height:300px;width:auto}
.summary{font-size:15px}
dt{font-weight:bold;margin-top:.5em}
"""


def _page(title: str, body: Iterable[str]) -> str:
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>{_CSS}</style></head><body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )


def _rows(headers: Sequence[str], rows: Iterable[Sequence[str]], id: str = "") -> str:
    """A table whose cells are already-escaped HTML."""
    attr = f' id="{escape(id)}"' if id else ""
    head = "".join(f"<th>{h}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table{attr}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _terms(t: Table) -> str:
    links = ", ".join(
        f"<a href='#g-{escape(i, quote=True)}'>{escape(TERMS[i].term)}</a>" for i in t.terms
    )
    return f" Terms: {links}." if links else ""


def _note(t: Table) -> str:
    return f"<p class='note'>{escape(t.note)}{_terms(t)}</p>"


def _grid(t: Table) -> str:
    rows = [[escape(c) for c in r] for r in t.rows]
    return _rows([escape(h) for h in t.headers], rows, t.id)


def _section(s: Section) -> str:
    t = s.table
    sid = f"sec-{escape(t.id, quote=True)}"
    if s.empty:
        return f"<h2 id='{sid}' class='empty'>{escape(heading(s))}</h2>"
    if s.same_as is not None:
        first = s.same_as
        return (
            f"<h2 id='{sid}'>{escape(t.title)}</h2><p class='same'>Identical to "
            f"<a href='#sec-{escape(first.id, quote=True)}'>{escape(first.title)}</a>.</p>"
        )
    return f"<h2 id='{sid}'>{escape(t.title)}</h2>{_note(t)}{_grid(t)}"


def _plot(title: str, path: str) -> str:
    return (
        f"<figure><img class='plot' src='{quote(path)}' alt='{escape(title, quote=True)}'>"
        f"<figcaption>{escape(title)}</figcaption></figure>"
    )


def _top(rep: Report, plots: Sequence[tuple[str, str]]) -> list[str]:
    head = top(rep)
    board = shown(rep, head.board)
    out = ["<section class='top' id='top'><h2 id='sec-leaderboard'>Leaderboard</h2>"]
    out += [_note(board), _grid(board)]
    out.append(f"<p class='summary' id='summary'>{escape(' '.join(head.sentences))}</p>")
    out += [_plot(t, p) for t, p in plots if p.endswith(CONTINUITY_PLOT)]
    out.append("</section>")
    return out


def _contents(body: Sequence[Section]) -> str:
    items = [("run", "Run")]
    items += [(f"sec-{s.table.id}", heading(s)) for s in body]
    items += [("plots", "Plots"), ("cells-list", "Cells"), ("glossary", "Glossary")]
    links = "".join(
        f"<li><a href='#{escape(a, quote=True)}'>{escape(t)}</a></li>" for a, t in items
    )
    return f"<nav id='contents'><h2>Contents</h2><ul>{links}</ul></nav>"


def _glossary() -> str:
    items = "".join(
        f"<dt id='g-{escape(t.id, quote=True)}'>{escape(t.term)}</dt><dd>{escape(t.text)}</dd>"
        for t in GLOSSARY
    )
    return f"<h2 id='glossary'>Glossary</h2><dl>{items}</dl>"


def render_index(rep: Report, plots: Sequence[tuple[str, str]]) -> str:
    """`plots` are (title, path relative to the report directory)."""
    body = sections(rep)
    out = [f"<h1>ProductWebBench report: {escape(rep.run_dir)}</h1>"]
    out += _top(rep, plots)
    out.append(_contents(body))
    out.append("<h2 id='run'>Run</h2>")
    out.append(f"<p class='note' id='header'>{escape(header_note(rep))}</p>")
    out.append(f"<p class='note' id='load'>{escape(load_note(rep))}</p>")
    if one_task(rep):
        out.append(f"<p class='note' id='one-task'>{escape(ONE_TASK_NOTE)}</p>")
    out += [_section(s) for s in body]
    out.append("<h2 id='plots'>Plots</h2>")
    out += [_plot(t, p) for t, p in plots if not p.endswith(CONTINUITY_PLOT)]
    out.append("<h2 id='cells-list'>Cells</h2>")
    cells = [
        [
            f"<a href='cells/{quote(c.dir)}/index.html#first-failing'>{escape(c.cell)}</a>",
            escape(c.status),
            "—" if c.gate is None else f"{100 * c.gate:.1f}",
            "—" if c.wcs is None else f"{c.wcs:.3f}",
            "—" if c.whole_task is None else ("yes" if c.whole_task else "no"),
            str(c.breaks),
        ]
        for c in rep.cells
    ]
    out.append(_rows(["cell", "status", "Gate%", "WCS", "whole task", "flips"], cells, "cells"))
    out.append(_glossary())
    return _page("ProductWebBench report", out)


def _img(src: str | None, alt: str) -> str:
    if src is None:
        return f"<p class='note'>no {escape(alt)} screenshot</p>"
    return f"<img src='{quote(src)}' alt='{escape(alt, quote=True)}'>"


Region = tuple[str, str, tuple[int, int, int, int], str | None, str | None]


def _crops(region: Region) -> str:
    _, _, (x, y, w, h), ref, fin = region
    return (
        f"<p class='note'>differs in {w}x{h} at ({x}, {y})</p><div class='crops'>"
        f"<figure>{_img(ref, 'reference region')}<figcaption>reference</figcaption></figure>"
        f"<figure>{_img(fin, 'final region')}<figcaption>final</figcaption></figure></div>"
    )


def _verdicts(ev: StateEvidence) -> tuple[str, str]:
    """The captions of the reference and final screenshots: their verdict."""
    n = len(ev.checks)
    failing = sum(c.verdict == "fail" for c in ev.checks)
    moot = sum(c.verdict == "n/a" for c in ev.checks)
    ref = f"reference: pass, {n - moot} check(s) (admitted: the reference passes every check)"
    if failing:
        fin = f"final: FAIL, {failing} of {n - moot} check(s) fail"
    else:
        fin = f"final: pass, {n - moot} check(s)"
    return ref, fin + (f"; {moot} not applicable" if moot else "")


def _failing_items(ev: StateEvidence, regions: Sequence[Region]) -> str:
    """The state's failing checks (grounded message, cropped diff), or that there is none."""
    items = []
    for c in ev.checks:
        if c.verdict != "fail":
            continue
        crop = _crops(regions[c.region]) if c.region is not None and c.region < len(regions) else ""
        items.append(
            f"<li class='fail'><b>{escape(c.id)}</b> ({escape(c.gate)}): "
            f"{escape(c.message)}{crop}</li>"
        )
    return (
        f"<ul class='failing-checks'>{''.join(items)}</ul>" if items else "<p>no failing check</p>"
    )


def _evidence(ev: StateEvidence, shots: Sequence[str | None], beside: str) -> str:
    """The reference and final screenshots with their verdicts, the failing checks beside."""
    ref_caption, fin_caption = _verdicts(ev)
    ref, fin = shots
    return (
        "<div class='evidence'>"
        f"<figure>{_img(ref, 'reference')}<figcaption class='ref-verdict'>"
        f"{escape(ref_caption)}</figcaption></figure>"
        f"<figure>{_img(fin, 'final')}<figcaption class='final-verdict'>"
        f"{escape(fin_caption)}</figcaption></figure>"
        f"<div>{beside}</div></div>"
    )


def _check_verdicts(ev: StateEvidence) -> str:
    if not ev.checks:
        return "<p class='note'>no check ran on this state at the final checkpoint</p>"
    return _rows(
        ["check", "gate", "reference", "final", "message"],
        [
            [
                escape(c.id),
                escape(c.gate),
                "pass" if c.verdict != "n/a" else "n/a",
                "<span class='fail'>fail</span>" if c.verdict == "fail" else c.verdict,
                escape(c.message),
            ]
            for c in ev.checks
        ],
    )


def _state(
    ev: StateEvidence, n: int, first: bool, shots: Sequence[str | None], regions: Sequence[Region]
) -> list[str]:
    """One state: its reference and final screenshots with their verdicts, its failing
    checks beside them (grounded message, cropped diff), then every check's verdict."""
    cls = "state failing" if ev.failing else "state"
    out = [f"<section class='{cls}' id='state-{n}'>"]
    if first:
        out.append("<a id='first-failing'></a>")
    title = ev.state or "site-wide checks (no state)"
    verdict = "FAIL" if ev.failing else "pass"
    out.append(f"<h3>{escape(title)}: <span class='verdict'>{verdict}</span></h3>")
    beside = _failing_items(ev, regions)
    out.append(_evidence(ev, shots, beside) if ev.state else beside)
    out.append(_check_verdicts(ev))
    out.append("</section>")
    return out


def _cell_header(view: CellView) -> list[str]:
    r = view.row
    s = r.scores
    body = [
        "<p><a href='../../index.html'>&larr; report</a></p>",
        f"<h1>{escape(r.cell)}</h1>",
        "<p>"
        + escape(
            f"task {r.task} · solver {r.solver} · arm {r.arm} · status {r.status}"
            + (f" ({r.error})" if r.error else "")
        )
        + "</p>",
    ]
    if s is not None:
        body.append(
            "<p>"
            + escape(
                f"stage {s.stage:.2f} · gate {s.gate:.2f} · final_pass {s.final_pass} · "
                f"breaks {s.breaks} · whole_task {s.whole_task} · WCS {s.wcs:.3f}"
            )
            + "</p>"
        )
    return body


def _failing_gates(view: CellView) -> list[str]:
    body = ["<h2>Failing gates</h2>"]
    if not view.failing:
        return [*body, "<p>none</p>"]
    body.append("<ul id='failing'>")
    for g in view.failing:
        msgs = "".join(f"<li>{escape(m)}</li>" for m in g.messages)
        body.append(f"<li class='fail'><b>{escape(g.gate)}</b><ul>{msgs}</ul></li>")
    body.append("</ul>")
    return body


def _states(
    view: CellView,
    shots: Sequence[tuple[str, str | None, str | None]],
    regions: Sequence[Region],
) -> list[str]:
    body = ["<h2>States: reference vs final</h2><div id='states'>"]
    paths = {state: (ref, fin) for state, ref, fin in shots}
    first = next((n for n, ev in enumerate(view.states) if ev.failing), None)
    if first is None:  # the index links every cell to its first failing state: none, here
        body.append("<a id='first-failing'></a>")
    for n, ev in enumerate(view.states):
        body += _state(ev, n, n == first, paths.get(ev.state, (None, None)), regions)
    if not view.states:
        body.append("<p>no screenshots</p>")
    body.append("</div>")
    return body


def _units(view: CellView) -> list[str]:
    return [
        "<h2>Units</h2>",
        _rows(
            ["unit", "kind", "cleared", "capped", "turns", "cleared at"],
            [
                [
                    escape(u.id),
                    escape(u.kind),
                    str(u.cleared),
                    str(u.capped),
                    str(u.turns),
                    "—" if u.cleared_at is None else f"#{u.cleared_at}",
                ]
                for u in row_units(view.row)
            ],
            "units",
        ),
    ]


def _events(view: CellView) -> list[str]:
    return [
        "<h2>Events</h2>",
        _rows(
            ["t (s)", "event", "unit", "turn", "detail"],
            [
                [f"{e.t:.1f}", escape(e.kind), escape(e.unit), str(e.turn), escape(e.detail)]
                for e in view.timeline
            ],
            "events",
        ),
    ]


def _flips(view: CellView) -> list[str]:
    flips = row_flips(view.row)
    if not flips:
        return ["<h2>Flips</h2>", "<p>none</p>"]
    rows = [
        [
            escape(f.check),
            escape(f.gate),
            f"#{f.passed_at}",
            f"#{f.failed_at}",
            "—" if f.repaired_at is None else f"#{f.repaired_at}",
        ]
        for f in flips
    ]
    return [
        "<h2>Flips</h2>",
        _rows(["check", "gate", "passed at", "failed at", "repaired at"], rows, "flips"),
    ]


def _baseline_regressions(view: CellView) -> list[str]:
    regressions = row_regressions(view.row)
    if not regressions:
        return []
    return [
        "<h2>Baseline regressions</h2><ul>",
        *(
            f"<li>{escape(b.gate)}: {escape(', '.join(b.failed_checks) or '—')}</li>"
            for b in regressions
        ),
        "</ul>",
    ]


def render_cell(
    view: CellView,
    timeline_png: str,
    shots: Sequence[tuple[str, str | None, str | None]],
    regions: Sequence[Region] = (),
) -> str:
    """`timeline_png`, the (state, reference, final) paths and the region crops are
    relative to the page."""
    body = [*_cell_header(view), *_failing_gates(view), *_states(view, shots, regions)]
    body += _units(view)
    body.append("<h2>Checkpoint timeline</h2>")
    body.append(f"<img class='plot' src='{quote(timeline_png)}' alt='checkpoint timeline'>")
    body += [*_events(view), *_flips(view), *_baseline_regressions(view)]
    return _page(view.row.cell, body)
