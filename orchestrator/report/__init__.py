"""Reports over a run directory (DESIGN.md §10): Markdown, static HTML, plots, cell pages.

Modules, one job each: `_load` (manifest, stale filter), `_stats` (intervals, rank
correlation), `_measures` / `_aggregate` / `_regressions` (numbers), `_analyses` /
`_twins` / `_paper` / `_trajectory` / `_rankings` / `_sizes` (the paper's further
analyses, each with its population), `_cells` (a cell's log), `_tables` / `_markdown` /
`_html` / `_plots` (rendering), `_build` (writing files).
"""

from ._aggregate import aggregate as aggregate
from ._build import ReportFiles as ReportFiles
from ._build import write_report as write_report
from ._cells import final_checkpoint as final_checkpoint
from ._cells import final_shots as final_shots
from ._cells import reference_shots as reference_shots
from ._load import LoadedRun as LoadedRun
from ._load import LoadStats as LoadStats
from ._load import ReportError as ReportError
from ._load import load_run as load_run
from ._load import read_manifest as read_manifest
from ._model import Report as Report
from ._stats import cluster_bootstrap as cluster_bootstrap
from ._stats import spearman as spearman
from ._stats import wilson as wilson

__all__ = [
    "LoadStats",
    "LoadedRun",
    "Report",
    "ReportError",
    "ReportFiles",
    "aggregate",
    "cluster_bootstrap",
    "final_checkpoint",
    "final_shots",
    "load_run",
    "read_manifest",
    "reference_shots",
    "spearman",
    "wilson",
    "write_report",
]
