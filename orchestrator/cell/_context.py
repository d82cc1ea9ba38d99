"""What a cell needs from the sweep, and what it hands back."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import anyio
import msgspec

from sandbox import AgentLayer, ImageBuilder, Labels, Limits, ManagedBackend, ServeSpec

from ..budget import BudgetKind, waiting
from ..contract import TaskPackage
from ..events import CheckpointSummary
from ..persona import Wording
from ..records import A11ySnapshot, CellResult
from ..scoring import Weights
from ..solvers import GatewayBinding, Usage
from ..verifier import A11yEvidence, BrowserPool, Verifier, read_a11y_evidence
from ._baseline import BaselineCache
from ._end import CellEnd, DiskLimitHit, Finished, budget_stop


@dataclass
class CellContext:
    task: TaskPackage
    backend: ManagedBackend
    # What grades the cell's checkpoints: one per cell (a `BrowserVerifier` keeps its
    # replay reuse per work tree), `BrowserVerifier(pool)` on the real path.
    verifier: Verifier
    cell_dir: Path
    labels: Labels
    baseline: BaselineCache | None = None
    limits: Limits | None = None
    weights: Weights = field(default_factory=Weights)
    wording: Wording = "persona"  # how the simulated user words units (an ablation)
    # Container starts and builds are CPU-heavy: a small limiter, not the cell limiter.
    sandbox_limiter: anyio.CapacityLimiter | None = None
    # Docker: builds (once, cached by content hash) the task image a cell runs.
    image_builder: ImageBuilder | None = None
    image: str = ""  # resolved by `resolve_image` before the sandbox opens
    # The work tree's disk use is checked before every checkpoint; past it the cell ends.
    disk_limit_mb: int = 1024
    # The browser the verdicts render in, fingerprinted in the trajectory; None (a fake
    # verifier, no browser): recorded as ''.
    browser: BrowserPool | None = None
    attempt: int = 1  # which attempt of the cell this is (logged with its events)
    # Recorded in the trajectory; "" = `verifier_version()` (a regrade's planted verifier
    # names its own).
    verifier_version: str = ""

    async def render_env(self) -> str:
        """The browser's rendering fingerprint; '' when the cell grades without a
        running browser pool (a fake verifier)."""
        if self.browser is None or not self.browser.running:
            return ""
        env = await self.browser.environment()
        return (
            f"{env.browser} {env.browser_major} fonts {env.fonts[:16]} calib {env.calibration[:16]}"
        )

    agent: AgentLayer | None = None  # scaffold arm: the CLI agent installed on the task image
    # The sweep's LLM gateway as this cell's agent reaches it (the solver is bound to it
    # with the sandbox and the log); None: no gateway.
    gateway: GatewayBinding | None = None
    # R0's accessibility snapshots when the caller has them (admission runs R0 itself);
    # None: the baseline cache's, when there is one. The task's accessibility evidence
    # (`a11y_evidence()`) comes before either.
    a11y_r0: dict[str, A11ySnapshot] | None = None
    _a11y_evidence: tuple[A11yEvidence | None] | None = field(default=None, init=False, repr=False)

    async def a11y_evidence(self) -> A11yEvidence | None:
        """The task's `evidence/a11y.json` (None: it has none), read once; a malformed
        file raises `ContractError`."""
        if self._a11y_evidence is None:
            self._a11y_evidence = (await read_a11y_evidence(self.task),)
        return self._a11y_evidence[0]

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
            image=self.image,
            # Boots during the solver's first turn when nothing must run before it.
            prestart=not (s.install or s.build or s.rebuild_on_change or s.restart_on_change),
        )

    async def resolve_image(self) -> str:
        """The task image (stack + installed dependencies); '' for the local backend."""
        if self.image:
            return self.image
        builder = self.image_builder or ImageBuilder()
        with waiting():
            image = await self.backend.task_image(self.task.contract.stack, self.task.repo, builder)
            if image and self.agent is not None:
                image = await builder.ensure_agent_image(image, self.agent, lambda _line: None)
            self.image = image
        return self.image


class CellReport(msgspec.Struct, frozen=True, kw_only=True):
    """A finished cell: the scored `result` (stored in the manifest row as is), plus what
    only the caller needs in memory (usage, and every checkpoint for admission)."""

    result: CellResult
    image: str = ""
    usage: Usage
    history: tuple[CheckpointSummary, ...] = ()  # every checkpoint, in order
    # How the delivery ended (`_end`), decided once where it ended; never rewritten.
    end: CellEnd = Finished()
    # Seconds this attempt spent on the sweep's shared R0 baseline (waiting for another
    # cell to run it, or running it first): the sweep's cost, not the solver's time.
    baseline_wait_s: float = 0.0
    # The final checkpoint's accessibility snapshots (admission compares its negatives
    # with the reference's).
    final_a11y: dict[str, A11ySnapshot] = {}

    @property
    def stopped(self) -> str:
        """Why a budget (turns, tokens, money, wall time) stopped the solver; '' = none
        did. A stopped cell still has its final checkpoint and scores."""
        stop = budget_stop(self.end)
        return stop.reason if stop is not None else ""

    @property
    def stopped_by(self) -> BudgetKind:
        stop = budget_stop(self.end)
        return stop.kind if stop is not None else "wall_time"

    @property
    def ended(self) -> str:
        """Why the cell ended on the solver's account without a final checkpoint (the
        work tree went past its disk limit); scored on the units it cleared, every gate
        failing."""
        return self.end.reason if isinstance(self.end, DiskLimitHit) else ""
