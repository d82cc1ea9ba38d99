"""The sweep: plan cells, schedule them under budgets, write the manifest."""

from ._core import CellFailure as CellFailure
from ._core import EngineUnavailable as EngineUnavailable
from ._core import Job as Job
from ._core import Scheduler as Scheduler
from ._core import StatesCpu as StatesCpu
from ._core import StopSweep as StopSweep
from ._engine import check_engine as check_engine
from ._engine import gc_cluster as gc_cluster
from ._jobs import cell_key as cell_key
from ._jobs import plan_jobs as plan_jobs
from ._jobs import select_tasks as select_tasks
from ._progress import ProgressMode as ProgressMode
from ._progress import SweepProgress as SweepProgress
from ._runner import SweepIds as SweepIds
from ._runner import SweepResources as SweepResources
from ._runner import open_resources as open_resources
from ._runspec import RunSpec as RunSpec
from ._runspec import SweepInputError as SweepInputError
from ._runspec import check_selection as check_selection
from ._runspec import is_run_dir as is_run_dir
from ._runspec import read_spec as read_spec
from ._sweep import SweepOptions as SweepOptions
from ._sweep import SweepOutcome as SweepOutcome
from ._sweep import pending_jobs as pending_jobs
from ._sweep import run_sweep as run_sweep

__all__ = [
    "CellFailure",
    "EngineUnavailable",
    "Job",
    "ProgressMode",
    "RunSpec",
    "Scheduler",
    "StatesCpu",
    "StopSweep",
    "SweepIds",
    "SweepInputError",
    "SweepOptions",
    "SweepOutcome",
    "SweepProgress",
    "SweepResources",
    "cell_key",
    "check_engine",
    "check_selection",
    "gc_cluster",
    "is_run_dir",
    "open_resources",
    "pending_jobs",
    "plan_jobs",
    "read_spec",
    "run_sweep",
    "select_tasks",
]
