"""The sweep's adapters: backend, browser pool, providers, and the attempt of one cell.

Why an attempt ended is classified here by cause (`orchestrator.faults`): infrastructure
errors (sandbox, browser) become retryable `CellFailure`s, a bug becomes a
`harness_error` pointing at the cell's events; the scheduling core stays backend-neutral.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import anyio

from sandbox import (
    AgentLayer,
    Allow,
    BackendUnavailable,
    ImageBuilder,
    Labels,
    ManagedBackend,
    Own,
    open_session,
)

from .. import events as ev
from ..budget import BudgetExceeded, Ledger, waiting
from ..cell import BaselineCache, CellContext, CellReport, CellSetup, run_cell
from ..config import BenchConfig, SolverConfig
from ..contract import TaskPackage
from ..events import append_event
from ..faults import classify, decisive, describe, format_traceback
from ..gateway import Gateway
from ..llm import Cassettes, Keys, ProviderOutage, ProviderPool, ProviderRefused, cassette_cell
from ..records import InfraError, LlmError, Outage, TaskError, cell_dir_name
from ..solvers import GatewayBinding, Solver, make_solver
from ..verifier import BrowserPool, VerdictCache, Verifier, check_environment
from ._agents import expose, open_gateway
from ._core import CellFailure, Job, StatesCpu, StopSweep, harness_error
from ._delivery import PATCH, write_patch

log = logging.getLogger("orchestrator.sweep")
SolverFactory = Callable[[SolverConfig, TaskPackage, BenchConfig, ProviderPool, Ledger], Solver]


@dataclass(frozen=True)
class SweepIds:
    """A sweep process's unique id and its run lock: every container carries both, so
    `gc` can tell a live sweep's resources from a dead one's."""

    sweep: str
    lock: str = ""


@dataclass
class SweepResources:
    cfg: BenchConfig
    run_dir: Path
    backend: ManagedBackend
    pool: BrowserPool
    providers: ProviderPool
    ledger: Ledger
    baseline: BaselineCache
    sandbox_limiter: anyio.CapacityLimiter
    image_builder: ImageBuilder
    tasks: dict[str, TaskPackage]
    solvers: dict[str, SolverConfig]
    ids: SweepIds = SweepIds(sweep="")
    daemon_wait_s: float = 90.0  # how long a lost Docker daemon is waited for per attempt
    verifier: Verifier | None = None  # None: the browser verifier on `pool`
    solver_factory: SolverFactory = make_solver  # a seam for tests
    gateway: Gateway | None = None  # scaffold solvers' only way to a model
    gateway_host: str = ""  # its address as sandboxes reach it ("" = loopback)
    # Checkpoint reports by work tree, shared by the sweep's cells (`verifier/_reuse/_verdicts.py`).
    verdicts: VerdictCache = field(default_factory=VerdictCache)

    def cell_dir(self, key: str) -> Path:
        return self.run_dir / "cells" / cell_dir_name(key)

    def states_cpu(self) -> StatesCpu | None:
        """The pool's CPU while states replayed or waited (`Engine.states_cpu`)."""
        headroom = self.pool.headroom
        use = headroom.states_use() if headroom is not None else None
        if use is None or headroom is None:
            return None
        return StatesCpu(use, headroom.peak, waited=headroom.waiting_use())

    async def attempt(self, job: Job, n: int, ledger: Ledger) -> CellReport:
        ctx = self._context(job, n)
        solver: Solver | None = None
        in_cell = False
        try:
            cfg = self.solvers[job.template.solver]
            solver = self.solver_factory(cfg, ctx.task, self.cfg, self.providers, ledger)
            if cfg.kind == "scaffold" and ctx.gateway is None:
                # Its agent reaches its model through the sweep's gateway only.
                raise RuntimeError("a scaffold solver needs the sweep's LLM gateway")
            in_cell = True
            self.providers.begin_cell(job.key)  # a cassette of this attempt alone
            with cassette_cell(job.key):  # the cell's model calls name it to a cassette deck
                report = await run_cell(ctx, solver, job.template.arm)  # logs what ends it
        except Exception as exc:
            if not in_cell:
                _log(ctx, exc)
            failure = self._failure(job, exc)
            if isinstance(decisive(exc), BackendUnavailable):
                await self._await_daemon()
            raise failure from exc
        finally:
            if solver is not None:
                with anyio.move_on_after(30.0, shield=True):
                    await solver.aclose()
            await self._keep_tree(job.key)
        return _delivered(report, solver)

    def cell_setup(
        self, verifier: Verifier | None, verdicts: VerdictCache | None = None
    ) -> CellSetup:
        """What this run's cells share (`CellSetup`): grading with `verifier` (None: the
        browser verifier on `pool`, sharing `verdicts`)."""
        return CellSetup(
            backend=self.backend,
            pool=self.pool,
            verifier=verifier,
            verdicts=verdicts,
            baseline=self.baseline if self.cfg.sweep.baseline else None,
            weights=self.cfg.scoring,
            sandbox_limiter=self.sandbox_limiter,
            image_builder=self.image_builder,
            disk_limit_mb=self.cfg.sweep.workspace_disk_mb,
        )

    def labels(self, job: Job) -> Labels:
        return Labels(sweep=self.ids.sweep or job.template.sweep, cell=job.key, lock=self.ids.lock)

    def _context(self, job: Job, n: int) -> CellContext:
        solver = self.solvers[job.template.solver]
        gateway = self.gateway
        return self.cell_setup(self.verifier, self.verdicts).context(
            self.tasks[job.template.task],
            self.cell_dir(job.key),
            self.labels(job),
            attempt=n,
            wording=solver.wording,
            agent=_agent_layer(solver),
            gateway=GatewayBinding(gateway=gateway, host=self.gateway_host, account=job.key)
            if gateway is not None
            else None,
        )

    async def _keep_tree(self, key: str) -> None:
        """The attempt's final work tree as `workspace.patch` beside its `workspace` link
        (its diff against R0): the link names a store outside the run directory, which
        may be gone by the time someone reads the run; the patch rebuilds the tree."""
        patch = self.cell_dir(key) / PATCH
        with anyio.CancelScope(shield=True), anyio.move_on_after(60.0):
            try:
                patch.unlink(missing_ok=True)  # an earlier attempt's: never left for this one
                await write_patch(self.run_dir, key)
            except Exception as exc:  # the row is worth more than its patch
                log.warning("cell %s: no %s: %s", key, PATCH, describe(exc))

    async def _await_daemon(self) -> None:
        """The daemon is gone (stopped, restarting): wait for it, boundedly, before the
        retry, so a restart costs the cell an attempt rather than its result. The wait is
        not charged to the cell's wall time."""
        with waiting():
            await self.backend.await_daemon(self.daemon_wait_s)

    def _failure(self, job: Job, exc: Exception) -> Exception:
        """The scheduler's view of why the attempt ended (`orchestrator.faults`)."""
        match classify(exc):
            case "budget":
                return exc
            case "stop":
                return StopSweep(str(exc))
            case "llm":
                return CellFailure(LlmError(error=describe(exc)))
            case "outage":  # no verdict: --resume re-runs it
                return CellFailure(Outage(error=describe(exc)))
            case "infra":
                return CellFailure(InfraError(error=describe(exc)), retryable=True)
            case "task":  # e.g. a control's patch no longer applies: the task's problem
                return CellFailure(TaskError(error=f"task package: {exc}"))
            case _:
                log = self.cell_dir(job.key) / "events.jsonl"
                return CellFailure(harness_error(exc, log=str(log.relative_to(self.run_dir))))


def _delivered(report: CellReport, solver: Solver | None) -> CellReport:
    """The attempt's delivery, given how its solver ended. A scaffold's agent may end the
    cell `llm_error` (its delivery is scored), `outage` or `config_error` (no result); a
    budget that stopped it is in the report's end already (the cell read its verdict)."""
    verdict = solver.verdict() if solver is not None else None
    if isinstance(verdict, ProviderRefused):  # the setup's fault: config_error, stop
        raise StopSweep(str(verdict))
    if isinstance(verdict, ProviderOutage):  # no verdict on the agent: --resume re-runs it
        raise CellFailure(Outage(error=describe(verdict)))
    if verdict is not None and not isinstance(verdict, BudgetExceeded):
        raise CellFailure(LlmError(error=describe(verdict), result=report.result))
    return report


def _agent_layer(cfg: SolverConfig) -> AgentLayer | None:
    s = cfg.scaffold
    return AgentLayer(pip=s.pip, npm=s.npm, apt=s.apt) if s is not None else None


def _log(ctx: CellContext, exc: BaseException) -> None:
    ctx.cell_dir.mkdir(parents=True, exist_ok=True)
    error = ev.Error(
        cause=classify(exc),
        error=describe(exc),
        attempt=ctx.attempt,
        traceback=format_traceback(exc),
    )
    append_event(ctx.cell_dir / "events.jsonl", error)


def sweep_cassettes(cfg: BenchConfig, run_dir: Path) -> Cassettes | None:
    """The sweep's cassettes (`[sweep] cassettes`), or None."""
    sw = cfg.sweep
    if sw.cassettes == "off":
        return None
    return Cassettes(
        sw.cassettes, Path(sw.cassette_dir) if sw.cassette_dir else run_dir / "cassettes"
    )


@asynccontextmanager
async def open_resources(
    cfg: BenchConfig,
    run_dir: Path,
    ids: SweepIds,
    tasks: list[TaskPackage],
    ledger: Ledger,
    keys: Keys | None = None,
) -> AsyncIterator[SweepResources]:
    """`keys`: the providers' keys (`llm.Keys`; a Ray node's come from its driver)."""
    async with (
        ProviderPool(
            cfg.providers,
            fake_tasks=[t.root for t in tasks],
            keys=keys,
            cassettes=sweep_cassettes(cfg, run_dir),
        ) as providers,
        open_gateway(cfg, providers) as gateway,
        open_session(
            cfg.sweep.backend,
            own=Own(sweep=ids.sweep, lock=ids.lock),
            firewall=cfg.sweep.docker_firewall,
            allow_unisolated=cfg.sweep.allow_unisolated,
            # The gateway's port: the one thing the sweep network's firewall lets through.
            allow=Allow(address="", port=gateway.port) if gateway is not None else None,
        ) as backend,
    ):
        host = await expose(gateway, backend, ids.sweep, ids.lock) if gateway is not None else ""
        async with _browser_pool(cfg, tasks) as pool:
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
                gateway=gateway,
                gateway_host=host,
                ids=ids,
            )


@asynccontextmanager
async def _browser_pool(cfg: BenchConfig, tasks: list[TaskPackage]) -> AsyncIterator[BrowserPool]:
    """The sweep's Chromium, its environment checked against the tasks' evidence."""
    async with BrowserPool(
        max_contexts=cfg.sweep.browser_contexts or None,
        allow_env_drift=cfg.sweep.allow_env_drift,
        replay=cfg.sweep.replay,
    ) as pool:
        for warning in await check_environment(pool, tasks):
            print(warning, file=sys.stderr)
        yield pool
