"""Reports over a run directory (DESIGN.md §10): Markdown, static HTML, plots, cell pages.

Modules, one job each: `_load` (manifest, stale filter), `_stats` (intervals, rank
correlation), `_measures` / `_aggregate` / `_regressions` (numbers), `_analyses` /
`_twins` / `_paper` / `_trajectory` / `_rankings` / `_sizes` (the paper's further
analyses, each with its population), `_cells` (a cell's log), `_tables` / `_markdown` /
`_html` / `_plots` (rendering), `_build` (writing files).
"""

from ._aggregate import aggregate as aggregate
from ._aggregate import header as header
from ._build import ReportFiles as ReportFiles
from ._build import write_plots as write_plots
from ._build import write_report as write_report
from ._cells import final_checkpoint as final_checkpoint
from ._cells import final_shots as final_shots
from ._cells import reference_shots as reference_shots
from ._html import render_index as render_index
from ._load import LoadedRun as LoadedRun
from ._load import LoadStats as LoadStats
from ._load import ReportError as ReportError
from ._load import load_run as load_run
from ._load import read_manifest as read_manifest
from ._markdown import render_markdown as render_markdown
from ._measures import mean as mean
from ._measures import row_covered as row_covered
from ._measures import row_regressions as row_regressions
from ._measures import row_units as row_units
from ._model import Mean as Mean
from ._model import Rate as Rate
from ._model import Report as Report
from ._sections import sections as sections
from ._sections import slug as slug
from ._stats import cluster_bootstrap as cluster_bootstrap
from ._stats import permutation_p as permutation_p
from ._stats import rankdata as rankdata
from ._stats import spearman as spearman
from ._stats import wilson as wilson
from ._tables import header_note as header_note
from ._tables import tables as tables

__all__ = [
    "LoadStats",
    "LoadedRun",
    "Mean",
    "Rate",
    "Report",
    "ReportError",
    "ReportFiles",
    "aggregate",
    "cluster_bootstrap",
    "final_checkpoint",
    "final_shots",
    "header",
    "header_note",
    "load_run",
    "mean",
    "permutation_p",
    "rankdata",
    "read_manifest",
    "reference_shots",
    "render_index",
    "render_markdown",
    "row_covered",
    "row_regressions",
    "row_units",
    "sections",
    "slug",
    "spearman",
    "tables",
    "wilson",
    "write_plots",
    "write_report",
]
