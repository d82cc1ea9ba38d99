"""What the cells of one run share, and the one place a cell's `CellContext` is made
from it: the sweep, a regrade, admission and the `cell` command all call
`CellSetup.context`, so none of them spells out the context's fields.

Each cell gets a verifier of its own (a `BrowserVerifier` keeps its replay reuse per
work tree) on the run's browser pool, which the trajectory fingerprints; a run that
grades with a planted verifier (tests, a regrade's `--verifier`) names it instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import anyio

from sandbox import AgentLayer, ImageBuilder, Labels, ManagedBackend

from ..contract import TaskPackage
from ..persona import Wording
from ..scoring import Weights
from ..solvers import GatewayBinding
from ..verifier import BrowserPool, BrowserVerifier, VerdictCache, Verifier
from ._baseline import BaselineCache
from ._context import CellContext


@dataclass(frozen=True)
class CellSetup:
    backend: ManagedBackend
    pool: BrowserPool  # the browser the verdicts render in
    verifier: Verifier | None = None  # None: a `BrowserVerifier` on `pool`, one per cell
    verdicts: VerdictCache | None = None  # reports by work tree, shared by the run's cells
    baseline: BaselineCache | None = None  # the shared R0 verdicts; None: no baseline channel
    weights: Weights = field(default_factory=Weights)
    sandbox_limiter: anyio.CapacityLimiter | None = None
    image_builder: ImageBuilder | None = None
    disk_limit_mb: int = 1024

    def context(
        self,
        task: TaskPackage,
        cell_dir: Path,
        labels: Labels,
        *,
        attempt: int = 1,
        wording: Wording = "persona",
        agent: AgentLayer | None = None,
        gateway: GatewayBinding | None = None,
        verifier_version: str = "",
    ) -> CellContext:
        """One cell's context (a fresh one per attempt: it resolves its image)."""
        return CellContext(
            task=task,
            backend=self.backend,
            verifier=self.verifier or BrowserVerifier(self.pool, verdicts=self.verdicts),
            browser=self.pool,
            cell_dir=cell_dir,
            labels=labels,
            baseline=self.baseline,
            weights=self.weights,
            wording=wording,
            sandbox_limiter=self.sandbox_limiter,
            image_builder=self.image_builder,
            disk_limit_mb=self.disk_limit_mb,
            attempt=attempt,
            agent=agent,
            gateway=gateway,
            verifier_version=verifier_version,
        )
