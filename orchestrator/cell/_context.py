"""What a cell needs from the sweep, and what it hands back."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import anyio
import msgspec

from sandbox import Backend, Labels, Limits, ServeSpec

from ..contract import TaskPackage
from ..records import BaselineRegression, Flip, Scores, UnitOutcome
from ..results import GateStatus
from ..scoring import Weights
from ..solvers import Usage
from ..verifier import BrowserPool
from ._baseline import BaselineCache


@dataclass
class CellContext:
    task: TaskPackage
    backend: Backend
    pool: BrowserPool
    cell_dir: Path
    labels: Labels
    baseline: BaselineCache | None = None
    limits: Limits | None = None
    weights: Weights = field(default_factory=Weights)
    # Container starts and builds are CPU-heavy: a small limiter, not the cell limiter.
    sandbox_limiter: anyio.CapacityLimiter | None = None

    @property
    def serve_spec(self) -> ServeSpec:
        s = self.task.contract.serve
        return ServeSpec(
            stack=self.task.contract.stack,
            install=s.install,
            build=s.build,
            start=s.start,
            ready_path=s.ready_path,
            ready_timeout=s.ready_timeout,
        )


class CellReport(msgspec.Struct, frozen=True, kw_only=True):
    units: tuple[UnitOutcome, ...]
    final_gates: dict[str, GateStatus]
    scores: Scores
    flips: tuple[Flip, ...]
    baseline_regressions: tuple[BaselineRegression, ...]
    baseline_covered: bool
    edits_applied: int
    edits_refused: int
    turns: int
    checkpoints: int
    usage: Usage
