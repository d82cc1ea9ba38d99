"""The sweep's adapters: backend, browser pool, providers, and the attempt of one cell.

Infrastructure errors (sandbox, browser) become retryable `CellFailure`s here, where
the asyncio-bound libraries enter; the scheduling core stays backend-neutral.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import anyio
import msgspec

from sandbox import Backend, ImageBuilder, Labels, SandboxError, collect_garbage, open_backend

from ..budget import Ledger
from ..cell import BaselineCache, CellContext, run_cell
from ..config import BenchConfig, SolverConfig
from ..contract import TaskPackage
from ..llm import LLMError, ProviderPool, ProviderRefused
from ..records import ManifestRow
from ..solvers import make_solver
from ..verifier import BrowserPool, VerifierInfraError, check_environment
from ..workspace import WorkspaceError
from ._core import CellFailure, Job, StopSweep

log = logging.getLogger("orchestrator.sweep")


@dataclass
class SweepResources:
    cfg: BenchConfig
    run_dir: Path
    backend: Backend
    pool: BrowserPool
    providers: ProviderPool
    ledger: Ledger
    baseline: BaselineCache
    sandbox_limiter: anyio.CapacityLimiter
    image_builder: ImageBuilder
    tasks: dict[str, TaskPackage]
    solvers: dict[str, SolverConfig]

    def cell_dir(self, key: str) -> Path:
        return self.run_dir / "cells" / key.replace("/", "__")

    async def attempt(self, job: Job, n: int) -> ManifestRow:
        row = job.template
        task = self.tasks[row.task]
        solver_cfg = self.solvers[row.solver]
        ctx = CellContext(
            task=task,
            backend=self.backend,
            pool=self.pool,
            cell_dir=self.cell_dir(job.key),
            labels=Labels(sweep=row.sweep, cell=job.key),
            baseline=self.baseline if self.cfg.sweep.baseline else None,
            weights=self.cfg.scoring,
            wording=solver_cfg.wording,
            sandbox_limiter=self.sandbox_limiter,
            image_builder=self.image_builder,
            disk_limit_mb=self.cfg.sweep.workspace_disk_mb,
        )
        t0 = time.monotonic()
        solver = make_solver(solver_cfg, task, self.cfg, self.providers, self.ledger)
        try:
            report = await run_cell(ctx, solver, row.arm)
        except (SandboxError, VerifierInfraError) as exc:
            raise CellFailure(
                "infra_error", f"{type(exc).__name__}: {exc}", retryable=True
            ) from exc
        except ProviderRefused as exc:
            raise StopSweep(str(exc)) from exc
        except LLMError as exc:
            raise CellFailure("llm_error", str(exc)) from exc
        except WorkspaceError as exc:  # e.g. a control's patch no longer applies: the task's bug
            raise CellFailure("infra_error", f"task package: {exc}") from exc
        finally:
            with anyio.CancelScope(shield=True):
                await solver.aclose()
        return msgspec.structs.replace(
            row,
            status="budget" if report.stopped else "ok",
            # A disk-limit end is the solver's own result: `ok`, scored, with the reason.
            error=report.stopped or report.ended,
            image=report.image,
            units=report.units,
            final_gates=report.final_gates,
            scores=report.scores,
            flips=report.flips,
            baseline_regressions=report.baseline_regressions,
            baseline_covered=report.baseline_covered,
            edits_applied=report.edits_applied,
            edits_refused=report.edits_refused,
            turns=report.turns,
            checkpoints=report.checkpoints,
            input_tokens=report.usage.input_tokens,
            output_tokens=report.usage.output_tokens,
            cost_usd=report.usage.cost_usd,
            wall_s=time.monotonic() - t0,
        )


@asynccontextmanager
async def open_resources(
    cfg: BenchConfig,
    run_dir: Path,
    sweep_name: str,
    tasks: list[TaskPackage],
    ledger: Ledger,
) -> AsyncIterator[SweepResources]:
    backend = await open_backend(
        cfg.sweep.backend,
        firewall=cfg.sweep.docker_firewall,
        allow_unisolated=cfg.sweep.allow_unisolated,
    )
    if backend.name == "docker":
        # A crashed earlier run of this sweep, or anything past its time-to-live.
        await collect_garbage(sweep=sweep_name)
        await collect_garbage(expired_only=True)
    try:
        async with (
            BrowserPool(
                max_contexts=cfg.sweep.browser_contexts,
                allow_env_drift=cfg.sweep.allow_env_drift,
            ) as pool,
            ProviderPool(cfg.providers, fake_tasks=[t.root for t in tasks]) as providers,
        ):
            for warning in await check_environment(pool, tasks):
                print(warning, file=sys.stderr)
            yield SweepResources(
                cfg=cfg,
                run_dir=run_dir,
                backend=backend,
                pool=pool,
                providers=providers,
                ledger=ledger,
                baseline=BaselineCache(run_dir / "baseline"),
                sandbox_limiter=anyio.CapacityLimiter(cfg.sweep.sandbox_starts),
                image_builder=ImageBuilder(limiter=anyio.CapacityLimiter(cfg.sweep.image_builds)),
                tasks={t.contract.id: t for t in tasks},
                solvers={s.name: s for s in cfg.solvers},
            )
    finally:
        if backend.name == "docker":
            # Its network: Docker has ~30 address pools, so networks must not linger.
            try:
                await collect_garbage(sweep=sweep_name)
            except SandboxError as exc:  # never hide the error that ended the sweep
                log.warning("could not remove sweep %s's network: %s", sweep_name, exc)
