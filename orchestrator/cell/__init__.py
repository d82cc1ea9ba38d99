"""One cell end to end: staged or full-spec, with flips, baseline and scores."""

from ._baseline import BaselineCache as BaselineCache
from ._baseline import BaselineResult as BaselineResult
from ._baseline import BaselineRun as BaselineRun
from ._context import CellContext as CellContext
from ._context import CellReport as CellReport
from ._delivery import Delivery as Delivery
from ._end import BudgetStopped as BudgetStopped
from ._end import CellEnd as CellEnd
from ._end import DiskLimitHit as DiskLimitHit
from ._end import Finished as Finished
from ._end import TreeBroken as TreeBroken
from ._end import broken_text as broken_text
from ._end import budget_stop as budget_stop
from ._run import run_cell as run_cell
from ._setup import CellSetup as CellSetup
from ._suite import run_baseline as run_baseline
from ._suite import run_suite as run_suite

__all__ = [
    "BaselineCache",
    "BaselineResult",
    "BaselineRun",
    "BudgetStopped",
    "CellContext",
    "CellEnd",
    "CellReport",
    "CellSetup",
    "Delivery",
    "DiskLimitHit",
    "Finished",
    "TreeBroken",
    "broken_text",
    "budget_stop",
    "run_baseline",
    "run_cell",
    "run_suite",
]
