"""Run a whole sweep: plan, resume, schedule, handle signals, leave the manifest valid."""

from __future__ import annotations

import secrets
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import anyio
import anyio.abc
import msgspec

from ..budget import Ledger
from ..config import BenchConfig, SolverConfig
from ..contract import TaskPackage
from ..cpu import CpuUse, CpuWindow
from ..interrupts import watch_signals
from ..records import FINAL_STATUSES, BackendName, Manifest, ManifestRow, has_result, latest_by_cell
from ..solver_cards import write_cards
from ._core import Job, Scheduler, StatesCpu
from ._engine import open_engine
from ._jobs import plan_jobs, select_tasks
from ._progress import ProgressMode, SweepProgress
from ._runner import SweepIds
from ._runspec import (
    RunSpec,
    SweepInputError,
    check_selection,
    is_run_dir,
    read_spec,
    write_spec,
)


@dataclass(frozen=True)
class SweepOptions:
    run_dir: Path | None = None  # None: a new runs/<name>-<timestamp>
    resume: bool = False
    tasks: tuple[str, ...] = ()
    solvers: tuple[str, ...] = ()
    progress: ProgressMode = "live"
    # Selected tasks without a recorded admission that the operator allowed: remembered
    # in run.json (and by the report). The `run` command checks the record.
    unadmitted: tuple[str, ...] = ()


@dataclass(frozen=True)
class SweepOutcome:
    """What a sweep left: its run directory, the rows it wrote (also when interrupted),
    why it stopped early if it did (a budget cap, a provider that refuses every request,
    cells ended `outage`), and whether the user interrupted it."""

    run_dir: Path
    rows: list[ManifestRow]
    stopped: str = ""
    interrupted: bool = False
    # The host's CPU over the run, and while states replayed or waited for a slot.
    cpu: CpuUse | None = None
    states_cpu: StatesCpu | None = None


def pending_jobs(jobs: list[Job], existing: list[ManifestRow]) -> list[Job]:
    """Jobs without a current final row (same contract and config hash) that delivered a
    result: a row a sweep cap stopped before it started, or an `llm_error` without a final
    checkpoint, is no result and runs again."""
    latest = latest_by_cell(existing)
    out = []
    for job in jobs:
        row = latest.get(job.key)
        current = (
            row is not None
            and row.contract_hash == job.template.contract_hash
            and row.config_hash == job.template.config_hash
            and row.status in FINAL_STATUSES
            and row.attempts > 0
            and has_result(row)
        )
        if not current:
            out.append(job)
    return out


def _union(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys((*a, *b)))


def _on_backend(job: Job, backend: BackendName) -> Job:
    """Every row says where its cell ran (`docker` or the unisolated `local`)."""
    template = msgspec.structs.replace(job.template, backend=backend)
    return msgspec.structs.replace(job, template=template)


def new_run_dir(cfg: BenchConfig) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return Path(cfg.sweep.runs_dir) / f"{cfg.sweep.name}-{stamp}"


def _plan(
    cfg: BenchConfig, opts: SweepOptions, run_dir: Path
) -> tuple[list[TaskPackage], list[SolverConfig], list[Job]]:
    """The selected tasks and solvers, and every cell of the sweep (resumed or not)."""
    check_selection(cfg, opts.tasks, opts.solvers)
    tasks = select_tasks(cfg, opts.tasks)
    solvers = [s for s in cfg.solvers if not opts.solvers or s.name in opts.solvers]
    jobs = plan_jobs(cfg, tasks, solvers, run_dir.name)
    if not jobs:
        raise SweepInputError("no cells to run: the selected solvers apply to no selected task")
    return tasks, solvers, jobs


def _why_stopped(reason: str, ledger: Ledger, rows: list[ManifestRow]) -> str:
    """Why the sweep ended early ('' if it did not): the scheduler's reason (a provider
    refusing every request), the sweep's cap, or cells ended `outage`."""
    outages = sum(r.status == "outage" for r in rows)
    refused = sum(r.status == "config_error" for r in rows)
    if reason:
        return reason + (
            f"\n{refused} cell(s) ended `config_error`: the setup's problem, not the "
            "model's (never scored); fix it and --resume re-runs them"
            if refused
            else ""
        )
    if ledger.stopped:
        return "sweep stopped: the sweep's money/token cap was reached"
    if outages:
        return (
            f"sweep incomplete: {outages} cell(s) ended `outage` (their provider was down "
            "longer than its pause bound, outage_max_pause_s); --resume re-runs them"
        )
    return ""


def _record_spec(run_dir: Path, cfg: BenchConfig, opts: SweepOptions) -> None:
    """run.json: the selection and arms (a resume keeps the unadmitted tasks allowed before)."""
    earlier = read_spec(run_dir) if opts.resume else None
    spec = RunSpec(
        tasks=opts.tasks,
        solvers=opts.solvers,
        arms=cfg.sweep.arms,
        repeats=cfg.sweep.repeats,
        unadmitted=_union(earlier.unadmitted if earlier else (), opts.unadmitted),
    )
    write_spec(run_dir, spec)


def _todo(jobs: list[Job], manifest: Manifest, resume: bool) -> list[Job]:
    if not resume:
        return jobs
    todo = pending_jobs(jobs, manifest.rows())
    if skipped := len(jobs) - len(todo):
        print(f"resume: {skipped} cell(s) already have a current row", file=sys.stderr)
    return todo


def _scheduler(
    cfg: BenchConfig, manifest: Manifest, ledger: Ledger, progress: SweepProgress
) -> Scheduler:
    return Scheduler(
        manifest.append,
        concurrency=cfg.sweep.concurrency,
        cell_timeout_s=cfg.sweep.cell_timeout_s,
        final_grace_s=cfg.sweep.final_grace_s,
        infra_retries=cfg.sweep.infra_retries,
        ledger=ledger,
        progress=progress,
    )


async def _run_cells(
    cfg: BenchConfig,
    run_dir: Path,
    ids: SweepIds,
    tasks: list[TaskPackage],
    ledger: Ledger,
    todo: list[Job],
    scheduler: Scheduler,
) -> tuple[str, StatesCpu | None]:
    """Run `todo` on the sweep's engine; why the engine stopped early ('' if it did not),
    and its browser pool's CPU figure."""
    async with open_engine(cfg, run_dir, ids, tasks, ledger) as engine:
        todo = [_on_backend(j, engine.backend) for j in todo]
        await scheduler.run(todo, engine.attempt)
        return engine.stopped(), engine.states_cpu()


async def run_sweep(cfg: BenchConfig, opts: SweepOptions) -> SweepOutcome:
    """Run (or resume) a sweep; every input is checked before the run directory is touched."""
    run_dir = opts.run_dir or new_run_dir(cfg)
    if opts.resume and not is_run_dir(run_dir):
        raise SweepInputError(f"--resume {run_dir}: not a run directory (no manifest.jsonl)")
    tasks, solvers, jobs = _plan(cfg, opts, run_dir)
    ledger = Ledger(max_usd=cfg.sweep.max_usd, max_tokens=cfg.sweep.max_tokens)
    sweep_id = f"{run_dir.name}-{secrets.token_hex(4)}"  # unique per sweep process
    interrupted = anyio.Event()
    window = CpuWindow()
    states_cpu: StatesCpu | None = None
    with Manifest(run_dir, sweep_id) as manifest:
        write_cards(run_dir, cfg, solvers)
        _record_spec(run_dir, cfg, opts)
        todo = _todo(jobs, manifest, opts.resume)
        async with SweepProgress(len(todo), ledger, opts.progress) as progress:
            scheduler = _scheduler(cfg, manifest, ledger, progress)
            engine_stop = ""
            try:
                async with anyio.create_task_group() as tg:
                    # A local engine's cells may be on this host's Docker: a second
                    # interrupt has their leftovers reaped (by this sweep's id only).
                    docker = cfg.sweep.engine == "local" and cfg.sweep.backend != "local"
                    reap = sweep_id if docker else ""
                    await tg.start(watch_signals, tg.cancel_scope, interrupted, reap)
                    tg.start_soon(manifest.sync_in_background)
                    if todo:
                        ids = SweepIds(sweep=sweep_id, lock=str(manifest.lock_path))
                        engine_stop, states_cpu = await _run_cells(
                            cfg, run_dir, ids, tasks, ledger, todo, scheduler
                        )
                    tg.cancel_scope.cancel()
            finally:
                # Rows written so far, even when the sweep was interrupted.
                rows = list(scheduler.rows)
        stopped = _why_stopped(scheduler.stopped_reason or engine_stop, ledger, rows)
        if stopped:
            print(stopped, file=sys.stderr)
    return SweepOutcome(
        run_dir,
        rows,
        stopped=stopped,
        interrupted=interrupted.is_set(),
        cpu=window.use(),
        states_cpu=states_cpu,
    )
