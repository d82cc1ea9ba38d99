"""`regrade`: grade a run's (or a submission's) trajectories again, with no solver.

Every cell is re-run through `orchestrator.cell.run_cell` with a `ReplaySolver` on the
sweep's own machinery (`orchestrator.sweep`: the Scheduler's limiter, deadline, retries
of infrastructure faults and outcome classes; the local engine's backend, browser pool
and baseline cache). The new run directory gets a manifest (resumable: a cell with a
current final row is not graded again), the cells' events and trajectories, the solver
cards, `verdict-diff.json` / `verdict-diff.md` and, by the caller, a report.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import get_args

import anyio
import msgspec

from sandbox import Labels

from ..budget import Ledger
from ..cell import CellReport, run_cell
from ..config import BenchConfig
from ..contract import TaskPackage, discover_tasks, load_task
from ..events import Checkpoint, read_events
from ..faults import classify, decisive, describe
from ..interrupts import watch_signals
from ..persona import Wording
from ..records import (
    InfraError,
    Manifest,
    ManifestRow,
    Refused,
    TaskError,
    cell_dir_name,
    latest_by_cell,
)
from ..records import trajectory as tj
from ..solver_cards import CARDS_FILE, SolverCard, read_cards
from ..sweep import (
    CellFailure,
    Job,
    ProgressMode,
    Scheduler,
    SweepIds,
    SweepProgress,
    SweepResources,
    open_resources,
    pending_jobs,
)
from ..verifier import BrowserPool, Verifier
from ..workspace import PatchError
from ._diff import VerdictDiff, cell_diff, markdown
from ._patches import PatchRefused
from ._replay import ReplaySolver
from ._source import Planned, from_run_dir, from_submission
from ._submission import read_header

OpenResources = Callable[
    [BenchConfig, Path, SweepIds, list[TaskPackage], Ledger],
    AbstractAsyncContextManager[SweepResources],
]
REPLAY_FILE = "replay.json"
DIFF_FILE = "verdict-diff.json"
_WORDINGS: tuple[str, ...] = get_args(Wording)


class RegradeInputError(Exception):
    """A regrade input that names nothing usable (one line)."""


class ReplayInfo(msgspec.Struct, frozen=True, kw_only=True):
    divergence: str = ""
    tree_mismatches: tuple[int, ...] = ()
    changed_messages: int = 0


@dataclass(frozen=True)
class RegradeOptions:
    out: Path
    run_dir: Path | None = None
    submission: Path | None = None
    progress: ProgressMode = "quiet"
    # A seam: the verifier to grade with, made on the run's browser pool (None: the
    # browser verifier, the sweep's).
    verifier: Callable[[BrowserPool], Verifier] | None = None
    verifier_version: str = ""  # what `verifier` calls itself ("" = this harness's)
    # A seam for tests: how the backend, browser pool and baseline cache are opened
    # (default: the local engine's `open_resources`, as a sweep opens them).
    resources: OpenResources = open_resources


@dataclass(frozen=True)
class RegradeOutcome:
    out: Path
    rows: list[ManifestRow]
    diff: VerdictDiff
    interrupted: bool = False  # SIGINT/SIGTERM: cancelled rows; the same command resumes


def _load_tasks(tasks_dir: Path, names: set[str]) -> dict[str, TaskPackage]:
    roots = {r.name: r for r in discover_tasks(tasks_dir)}
    return {n: load_task(roots[n]) for n in sorted(names) if n in roots}


Plan = tuple[list[Planned], dict[str, TaskPackage], dict[str, SolverCard]]


def _plan(cfg: BenchConfig, opts: RegradeOptions, sweep: str) -> Plan:
    """The cells, the task packages they name (loaded once each, only those) and the
    solver cards; blocking."""
    tasks_dir = Path(cfg.sweep.tasks_dir)
    if not tasks_dir.is_dir():
        raise RegradeInputError(f"sweep.tasks_dir: no such directory: {tasks_dir}")
    roots = {r.name: r for r in discover_tasks(tasks_dir)}
    tasks: dict[str, TaskPackage] = {}

    def task_of(name: str) -> TaskPackage | None:
        if name not in tasks and name in roots:
            tasks[name] = load_task(roots[name])
        return tasks.get(name)

    if opts.submission is not None:
        cards = {c.name: c for c in read_header(opts.submission).cards}
        planned = from_submission(opts.submission, task_of, sweep)
    else:
        assert opts.run_dir is not None
        if not (opts.run_dir / "manifest.jsonl").is_file():
            raise RegradeInputError(f"{opts.run_dir}: not a run directory (no manifest.jsonl)")
        cards = read_cards(opts.run_dir)
        planned = from_run_dir(opts.run_dir, task_of, sweep)
    return planned, tasks, cards


@dataclass
class _Grader:
    res: SweepResources
    planned: dict[str, Planned]
    cards: dict[str, SolverCard]
    opts: RegradeOptions
    strict: bool
    verifier: Verifier | None = None

    async def attempt(self, job: Job, n: int, ledger: Ledger) -> CellReport:
        p = self.planned[job.key]
        if p.refusal or p.trajectory is None:
            raise CellFailure(Refused(error=p.refusal or "no trajectory"))
        row = job.template
        task = self.res.tasks[row.task]
        cell_dir = self.res.cell_dir(job.key)
        card = self.cards.get(row.solver)
        wording = card.options.get("wording") if card is not None else None
        ctx = self.res.cell_setup(self.verifier).context(
            task,
            cell_dir,
            Labels(sweep=self.res.ids.sweep, cell=job.key, lock=self.res.ids.lock),
            attempt=n,
            wording=wording if wording in _WORDINGS else "persona",  # type: ignore[arg-type]
            verifier_version=self.opts.verifier_version,
        )
        solver = ReplaySolver(p.trajectory, tuple(task.contract.allowed_paths), strict=self.strict)
        try:
            report = await run_cell(ctx, solver, row.arm)
        except Exception as exc:
            raise _failure(decisive(exc) if isinstance(exc, BaseExceptionGroup) else exc) from exc
        finally:
            info = ReplayInfo(
                divergence=solver.divergence,
                tree_mismatches=tuple(solver.tree_mismatches),
                changed_messages=solver.changed_messages,
            )
            if cell_dir.is_dir():
                (cell_dir / REPLAY_FILE).write_bytes(msgspec.json.encode(info) + b"\n")
        end = p.trajectory.end()
        if end is not None:  # the row's spend is the recorded one: a regrade calls no model
            u = end.usage
            ledger.charge(u.input_tokens + u.output_tokens, u.cost_usd)
        # A regrade's row has never split its wait for the baseline out of its wall time.
        return msgspec.structs.replace(report, baseline_wait_s=0.0)


def _failure(exc: BaseException) -> Exception:
    """Why a regrade attempt ended, as the sweep classifies it; a refused patch is the
    submission's."""
    if isinstance(exc, PatchRefused | PatchError | tj.TrajectoryError):
        return CellFailure(Refused(error=str(exc)))
    match classify(exc):
        case "infra":
            return CellFailure(InfraError(error=describe(exc)), retryable=True)
        case "task":
            return CellFailure(TaskError(error=f"task package: {exc}"))
        case "budget" | "cancelled":
            assert isinstance(exc, Exception)
            return exc
        case _:
            return exc if isinstance(exc, Exception) else RuntimeError(describe(exc))


def _write_cards(out: Path, cards: dict[str, SolverCard]) -> None:
    data = msgspec.json.format(msgspec.json.encode(sorted(cards.values(), key=lambda c: c.name)))
    (out / CARDS_FILE).write_bytes(data + b"\n")


def build_diff(out: Path, planned: list[Planned], rows: list[ManifestRow]) -> VerdictDiff:
    latest = latest_by_cell(rows)
    cells = []
    for p in planned:
        new = latest.get(p.key)
        if new is None:
            continue
        cell_dir = out / "cells" / cell_dir_name(p.key)
        events = read_events(cell_dir / "events.jsonl")
        summaries = [e.checkpoint for e in events if isinstance(e, Checkpoint)]
        start = max((i for i, s in enumerate(summaries) if s.index == 1), default=0)
        try:
            new_traj: tj.Trajectory | None = tj.read(cell_dir / tj.FILE)
        except tj.TrajectoryError:
            new_traj = None
        info = ReplayInfo()
        if (cell_dir / REPLAY_FILE).is_file():
            info = msgspec.json.decode((cell_dir / REPLAY_FILE).read_bytes(), type=ReplayInfo)
        cells.append(
            cell_diff(
                new,
                old_row=p.old,
                old_checkpoints=p.old_checkpoints,
                new_checkpoints=summaries[start:],
                old_traj=p.trajectory,
                new_traj=new_traj,
                divergence=info.divergence,
            )
        )
    return VerdictDiff(cells=tuple(cells))


async def _grade(
    opts: RegradeOptions,
    cfg: BenchConfig,
    manifest: Manifest,
    sweep_id: str,
    tasks: dict[str, TaskPackage],
    planned: list[Planned],
    cards: dict[str, SolverCard],
    scheduler: Scheduler,
    todo: list[Job],
) -> None:
    needed = [tasks[t] for t in sorted({j.template.task for j in todo}) if t in tasks]
    ids = SweepIds(sweep=sweep_id, lock=str(manifest.lock_path))
    async with opts.resources(cfg, opts.out, ids, needed, Ledger()) as res:
        grader = _Grader(
            res=res,
            planned={p.key: p for p in planned},
            cards=cards,
            opts=opts,
            strict=opts.submission is not None,
            verifier=opts.verifier(res.pool) if opts.verifier else res.verifier,
        )
        await scheduler.run(todo, grader.attempt)


async def regrade(cfg: BenchConfig, opts: RegradeOptions) -> RegradeOutcome:
    """Regrade `opts.run_dir` or `opts.submission` into `opts.out` (resumable)."""
    if (opts.run_dir is None) == (opts.submission is None):
        raise RegradeInputError("regrade needs one of RUN_DIR or --submission FILE")
    if opts.run_dir is not None and opts.run_dir.resolve() == opts.out.resolve():
        raise RegradeInputError(f"--out {opts.out}: must not be the run being regraded")
    sweep_id = f"{opts.out.name}-{secrets.token_hex(4)}"
    planned, tasks, cards = await anyio.to_thread.run_sync(_plan, cfg, opts, opts.out.name)
    jobs = [Job(key=p.key, template=p.template) for p in planned]
    opts.out.mkdir(parents=True, exist_ok=True)
    bare = msgspec.structs.replace(cfg, solvers=(), providers=())
    with Manifest(opts.out, sweep_id) as manifest:
        _write_cards(opts.out, cards)
        todo = pending_jobs(jobs, manifest.rows())
        scheduler = Scheduler(
            manifest.append,
            concurrency=cfg.sweep.concurrency,
            cell_timeout_s=cfg.sweep.cell_timeout_s,
            final_grace_s=cfg.sweep.final_grace_s,
            infra_retries=cfg.sweep.infra_retries,
        )
        interrupted = anyio.Event()
        async with SweepProgress(len(todo), scheduler.ledger, opts.progress) as progress:
            scheduler.progress = progress
            async with anyio.create_task_group() as tg:
                await tg.start(watch_signals, tg.cancel_scope, interrupted)
                tg.start_soon(manifest.sync_in_background)
                if todo:
                    await _grade(
                        opts, bare, manifest, sweep_id, tasks, planned, cards, scheduler, todo
                    )
                tg.cancel_scope.cancel()
        rows = manifest.rows()
    diff = await anyio.to_thread.run_sync(build_diff, opts.out, planned, rows)
    data = msgspec.json.format(msgspec.json.encode(diff))
    (opts.out / DIFF_FILE).write_bytes(data + b"\n")
    source = str(opts.run_dir or opts.submission)
    (opts.out / "verdict-diff.md").write_text(markdown(diff, source))
    return RegradeOutcome(out=opts.out, rows=rows, diff=diff, interrupted=interrupted.is_set())
