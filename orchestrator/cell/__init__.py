"""One cell end to end: staged or full-spec, with flips, baseline and scores."""

from ._baseline import BaselineCache as BaselineCache
from ._context import CellContext as CellContext
from ._context import CellReport as CellReport
from ._run import run_cell as run_cell
from ._suite import run_baseline as run_baseline
from ._suite import run_suite as run_suite

__all__ = ["BaselineCache", "CellContext", "CellReport", "run_baseline", "run_cell", "run_suite"]
