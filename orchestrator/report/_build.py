"""Write `RUN_DIR/report.md` and `RUN_DIR/report/` (index.html, plots, cell pages).

Layout of `RUN_DIR/report/` (regenerated on every run; nothing else in RUN_DIR is touched):

    index.html
    plots/scores.png, plots/gates.png
    cells/<cell-dir>/index.html, cells/<cell-dir>/timeline.png
    tasks/<task>/reference/<state>.png   reference screenshots, copied once per task

Final screenshots stay where the cell wrote them and are linked relatively, so the report
opens from disk as long as it stays inside its run directory.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import msgspec

from ..records import ManifestRow
from ._aggregate import aggregate
from ._cells import CellView, cell_view
from ._evidence import crop_region
from ._html import render_cell, render_index
from ._load import load_run
from ._markdown import render_markdown
from ._measures import no_result, row_flips
from ._model import Report
from ._plots import (
    ablation_deltas,
    cell_timeline,
    continuity_gap,
    gate_pass_rates,
    group_wcs,
    regression_channels,
    rerun_variability,
    score_distributions,
)


class ReportFiles(msgspec.Struct, frozen=True, kw_only=True):
    markdown: Path
    html: Path
    report: Report


def _rel(target: Path, start: Path) -> str:
    return Path(os.path.relpath(target.resolve(), start.resolve())).as_posix()


def _cell_page(view: CellView, out: Path, refs_out: Path) -> None:
    page_dir = out / "cells" / view.dir
    page_dir.mkdir(parents=True, exist_ok=True)
    cell_timeline(view.checkpoints, row_flips(view.row), page_dir / "timeline.png")
    shots: list[tuple[str, str | None, str | None]] = []
    for pair in view.shots:
        ref = None
        if pair.reference is not None:
            copy = refs_out / view.row.task / "reference" / f"{pair.state}.png"
            if not copy.is_file():
                copy.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(pair.reference, copy)
            ref = _rel(copy, page_dir)
        fin = None if pair.final is None else _rel(pair.final, page_dir)
        shots.append((pair.state, ref, fin))
    regions: list[tuple[str, str, tuple[int, int, int, int], str | None, str | None]] = []
    for n, reg in enumerate(view.regions):
        crops: list[str | None] = []
        for which, src in (("reference", reg.reference), ("final", reg.final)):
            name = f"diff-{n}-{which}.png"
            ok = src is not None and crop_region(src, reg.box, page_dir / name)
            crops.append(name if ok else None)
        regions.append((reg.check, reg.state, reg.box, crops[0], crops[1]))
    html = render_cell(view, "timeline.png", shots, regions)
    (page_dir / "index.html").write_text(html, encoding="utf-8")


def write_plots(rep: Report, results: list[ManifestRow], out: Path) -> list[tuple[str, Path]]:
    """The plots the run has data for, as (title, file)."""
    plots = [
        ("Score distributions per solver", score_distributions(results, out / "plots/scores.png")),
        ("Final pass rate per gate", gate_pass_rates(results, out / "plots/gates.png")),
    ]
    if rep.continuity:
        plots.append(
            (
                "Completion vs continuity (Change): complete but not cleared",
                continuity_gap(rep.continuity, out / "plots/continuity.png"),
            )
        )
    if rep.regressions:
        plots.append(
            (
                f"Regression channels (Change, {rep.regression_arm} arm)",
                regression_channels(rep.regressions, out / "plots/regressions.png"),
            )
        )
    if rep.regimes:
        plots.append(
            ("Build vs Change: mean WCS", group_wcs(rep.regimes, out / "plots/regimes.png"))
        )
    if rep.facets:
        plots.append(("Per facet: mean WCS", group_wcs(rep.facets, out / "plots/facets.png")))
    if rep.variability:
        plots.append(
            (
                "Rerun variability: SD of WCS per cell",
                rerun_variability(rep.variability, out / "plots/reruns.png"),
            )
        )
    if rep.ablations:
        plots.append(
            ("Ablation pairs: ΔGate%", ablation_deltas(rep.ablations, out / "plots/ablations.png"))
        )
    return plots


def write_report(run_dir: Path, tasks_dir: Path) -> ReportFiles:
    run = load_run(run_dir, tasks_dir)
    rep = aggregate(run, run_dir.name)
    out = run_dir / "report"
    for sub in ("cells", "plots", "tasks"):
        shutil.rmtree(out / sub, ignore_errors=True)
    out.mkdir(parents=True, exist_ok=True)
    plots = write_plots(rep, [r for r in run.rows if not no_result(r)], out)
    for row in run.rows:
        view = cell_view(row, run_dir, run.task_roots.get(row.task))
        _cell_page(view, out, out / "tasks")
    html = out / "index.html"
    html.write_text(render_index(rep, [(t, _rel(p, out)) for t, p in plots]), encoding="utf-8")
    md = run_dir / "report.md"
    md.write_text(render_markdown(rep, [(t, _rel(p, run_dir)) for t, p in plots]), encoding="utf-8")
    return ReportFiles(markdown=md, html=html, report=rep)
