"""The sweep: plan cells, schedule them under budgets, write the manifest.

Beside the sweep itself, what the Ray engine moves between machines, without Ray: a task's
package by contract hash (`pack`, `materialise`, `default_cache`; `_packages.py`) and a
cell's files from a worker node back to the run directory (`open_staging`, `pack_cell`,
`take_cell`, `deliver`, ...; `_delivery.py`); and where a sweep's sandboxes reach its LLM
gateway (`expose`: the sweep network's gateway address, labelled with the run lock so
`gc` knows when its sweep is dead; `_agents.py`).
"""

from ._agents import expose as expose
from ._core import CellFailure as CellFailure
from ._core import EngineUnavailable as EngineUnavailable
from ._core import Job as Job
from ._core import Scheduler as Scheduler
from ._core import StatesCpu as StatesCpu
from ._core import StopSweep as StopSweep
from ._delivery import DeliveryRefused as DeliveryRefused
from ._delivery import deliver as deliver
from ._delivery import drop_stale as drop_stale
from ._delivery import known_baselines as known_baselines
from ._delivery import open_staging as open_staging
from ._delivery import pack_cell as pack_cell
from ._delivery import remove_retired as remove_retired
from ._delivery import seed_baselines as seed_baselines
from ._delivery import staging_root as staging_root
from ._delivery import take_cell as take_cell
from ._delivery import write_patch as write_patch
from ._engine import check_engine as check_engine
from ._engine import gc_cluster as gc_cluster
from ._jobs import cell_key as cell_key
from ._jobs import plan_jobs as plan_jobs
from ._jobs import select_tasks as select_tasks
from ._packages import default_cache as default_cache
from ._packages import materialise as materialise
from ._packages import pack as pack
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
    "DeliveryRefused",
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
    "default_cache",
    "deliver",
    "drop_stale",
    "expose",
    "gc_cluster",
    "is_run_dir",
    "known_baselines",
    "materialise",
    "open_resources",
    "open_staging",
    "pack",
    "pack_cell",
    "pending_jobs",
    "plan_jobs",
    "read_spec",
    "remove_retired",
    "run_sweep",
    "seed_baselines",
    "select_tasks",
    "staging_root",
    "take_cell",
    "write_patch",
]
