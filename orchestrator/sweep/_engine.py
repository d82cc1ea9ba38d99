"""The engine seam: where a sweep's cells run. The driver plans, writes the manifest and
keeps the ledger either way; the engine hands the Scheduler an attempt function.

- `local` (the default): this process, one backend and browser pool (`_runner`).
- `ray`: remote attempts on a Ray cluster's worker nodes (`_ray`, imported only here and
  only when asked, so the single-host path runs without Ray installed).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from ..budget import Ledger
from ..config import BenchConfig
from ..contract import TaskPackage
from ._core import Engine, EngineUnavailable
from ._runner import SweepIds, open_resources

if TYPE_CHECKING:
    from ._ray_gc import NodeGc


def check_engine(cfg: BenchConfig) -> None:
    """Raise `EngineUnavailable` now if the chosen engine cannot even be loaded."""
    if cfg.sweep.engine == "ray":
        try:
            from . import _ray  # noqa: F401
        except ImportError as exc:
            raise EngineUnavailable(
                f"engine 'ray': Ray is not installed ({exc}); pip install -e '.[ray]'"
            ) from exc


def gc_cluster(address: str, sweep: str | None, expired: bool, force: bool) -> list[NodeGc]:
    """`gc` on every worker node of a Ray cluster (`_ray_gc.gc_cluster`; `NodeGc` per node)."""
    try:
        from . import _ray_gc
    except ImportError as exc:
        raise EngineUnavailable(
            f"engine 'ray': Ray is not installed ({exc}); pip install -e '.[ray]'"
        ) from exc
    return _ray_gc.gc_cluster(address, sweep, expired, force)


@asynccontextmanager
async def open_engine(
    cfg: BenchConfig, run_dir: Path, ids: SweepIds, tasks: list[TaskPackage], ledger: Ledger
) -> AsyncIterator[Engine]:
    if cfg.sweep.engine == "ray":
        check_engine(cfg)
        from . import _ray

        async with _ray.open_ray_engine(cfg, run_dir, ids, tasks, ledger) as engine:
            yield engine
        return
    async with open_resources(cfg, run_dir, ids, tasks, ledger) as res:
        yield Engine(backend=res.backend.name, attempt=res.attempt, states_cpu=res.states_cpu)
