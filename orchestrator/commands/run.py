"""`python -m orchestrator [run]`: the sweep over tasks × solvers × arms (DESIGN.md §9)."""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Iterable
from pathlib import Path

import msgspec

from sandbox import BackendUnavailable, SandboxError

from ..admission import AdmissionRecordError, load_record, record_path, unadmitted
from ..config import BenchConfig, ConfigError, load_config, validate
from ..contract import ContractError
from ..records import ManifestRow, RunLocked
from ..sweep import (
    EngineUnavailable,
    SweepInputError,
    SweepOptions,
    SweepOutcome,
    check_engine,
    check_selection,
    is_run_dir,
    read_spec,
    run_sweep,
    select_tasks,
)
from ..verifier import REPLAY_MODES, EnvironmentDrift
from ._loop import run_async

HELP = "run a sweep (the default command)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", type=Path, default=Path("bench.toml"))
    p.add_argument("--concurrency", type=int, help="cells in flight (default: bench.toml)")
    p.add_argument("--tasks", nargs="+", default=(), help="task id globs")
    p.add_argument("--solvers", nargs="+", default=(), help="solver names from bench.toml")
    p.add_argument("--arm", choices=("staged", "full-spec"), action="append", dest="arms")
    p.add_argument("--resume", type=Path, metavar="RUN_DIR")
    p.add_argument(
        "--run-dir", type=Path, help="write a new run here instead of runs/<name>-<time>"
    )
    p.add_argument("--budget-usd", type=float, help="sweep-wide money cap")
    p.add_argument("--backend", choices=("auto", "docker", "local"))
    p.add_argument("--repeats", type=int)
    p.add_argument("--engine", choices=("local", "ray"), help="where cells run")
    p.add_argument("--ray-address", help="the Ray cluster to run cells on (--engine ray)")
    p.add_argument("--quiet", action="store_true", help="no progress display")
    p.add_argument("--progress", choices=("live", "jsonl"), default="live")
    p.add_argument("--no-report", action="store_true", help="skip writing the report")
    p.add_argument(
        "--allow-env-drift",
        action="store_true",
        help="grade visual gates not applicable when rendering differs from the evidence",
    )
    p.add_argument(
        "--allow-unadmitted",
        action="store_true",
        help="run tasks whose contract has no recorded admission (tasks/ADMISSION.json);"
        " the report says so",
    )
    add_replay_argument(p)


def add_replay_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--replay",
        choices=REPLAY_MODES,
        help="full: replay every state at every checkpoint, each in a fresh browser context"
        " (audit); reuse (default): keep the observation of a state whose served bytes did"
        " not change, replay the others in reset warm contexts; states: reuse, but a fresh"
        " context per replayed state",
    )


def apply_overrides(cfg: BenchConfig, args: argparse.Namespace) -> BenchConfig:
    changes: dict[str, object] = {}
    for flag, key in (
        ("concurrency", "concurrency"),
        ("budget_usd", "max_usd"),
        ("backend", "backend"),
        ("repeats", "repeats"),
        ("replay", "replay"),
        ("engine", "engine"),
        ("ray_address", "ray_address"),
    ):
        if getattr(args, flag, None) is not None:
            changes[key] = getattr(args, flag)
    if args.arms:
        changes["arms"] = tuple(args.arms)
    if args.allow_env_drift:
        changes["allow_env_drift"] = True
    if getattr(args, "allow_unadmitted", False):
        changes["allow_unadmitted"] = True
    if not changes:
        return cfg
    return msgspec.structs.replace(cfg, sweep=msgspec.structs.replace(cfg.sweep, **changes))


# Exit codes: 0 done, 2 bad input (nothing run), 3 stopped early (a cap, a provider
# refusing every request; resumable), 130 interrupted (resumable).
EXIT_BAD_INPUT = 2
EXIT_STOPPED = 3
EXIT_INTERRUPTED = 130


def _resumed(args: argparse.Namespace) -> None:
    """On `--resume`, the run's stored selection fills every filter not given again."""
    if args.resume is None:
        return
    if args.run_dir is not None:
        raise SweepInputError("--resume and --run-dir: give one of them")
    if not is_run_dir(args.resume):
        raise SweepInputError(f"--resume {args.resume}: not a run directory (no manifest.jsonl)")
    spec = read_spec(args.resume)
    if spec is None:
        return
    args.tasks = args.tasks or list(spec.tasks)
    args.solvers = args.solvers or list(spec.solvers)
    args.arms = args.arms or list(spec.arms)
    args.repeats = spec.repeats if args.repeats is None else args.repeats


def admission_check(
    cfg: BenchConfig, tasks: tuple[str, ...], solvers: tuple[str, ...]
) -> tuple[str, ...]:
    """The selected tasks whose current contract has no recorded admission (one line
    each). Refused (`SweepInputError`, one line naming them) unless allowed."""
    check_selection(cfg, tasks, solvers)
    record_file = record_path(Path(cfg.sweep.tasks_dir))
    try:
        record = load_record(record_file)
    except AdmissionRecordError as exc:
        raise SweepInputError(str(exc)) from None
    lines = tuple(unadmitted(select_tasks(cfg, tasks), record))
    if lines and not cfg.sweep.allow_unadmitted:
        names = ", ".join(line.split(":", 1)[0] for line in lines)
        raise SweepInputError(
            f"{record_file}: no recorded admission of the current contract of {len(lines)} "
            f"task(s): {names} (admit them with `admit --repeat 3 --record`, or run them "
            "anyway with --allow-unadmitted)"
        )
    return lines


_REFUSALS = (
    ContractError,
    RunLocked,
    SweepInputError,
    BackendUnavailable,
    EnvironmentDrift,
    EngineUnavailable,
)


def _refusal(exc: BaseException) -> str | None:
    """The one line for a sweep that could not start (bad input, no Docker daemon), or
    None for anything else. A refusal raised inside the sweep's task group arrives
    wrapped in an exception group of one: it is the same refusal."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    if isinstance(exc, _REFUSALS):
        return str(exc)
    if isinstance(exc, SandboxError):  # e.g. the Docker daemon stopped answering
        return f"sandbox backend: {exc}"
    return None


def run(args: argparse.Namespace) -> int:
    try:
        _resumed(args)
        cfg = apply_overrides(load_config(args.config), args)
        validate(cfg, f"{args.config} (with command-line options)")
    except (ConfigError, SweepInputError) as exc:
        print(exc, file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        allowed = admission_check(cfg, tuple(args.tasks), tuple(args.solvers))
    except (ContractError, SweepInputError) as exc:
        print(exc, file=sys.stderr)
        return EXIT_BAD_INPUT
    opts = SweepOptions(
        run_dir=args.resume or args.run_dir,
        resume=args.resume is not None,
        tasks=tuple(args.tasks),
        solvers=tuple(args.solvers),
        progress="quiet" if args.quiet else args.progress,
        unadmitted=allowed,
    )
    try:
        check_engine(cfg)
        out = run_async(run_sweep, cfg, opts)
    except Exception as exc:
        refusal = _refusal(exc)
        if refusal is None:
            raise
        print(refusal, file=sys.stderr)
        return EXIT_BAD_INPUT
    return _finished(args, cfg, out, allowed)


def status_counts(rows: Iterable[ManifestRow]) -> dict[str, int]:
    """How many rows have each status, in the order first seen."""
    statuses: dict[str, int] = {}
    for row in rows:
        statuses[row.status] = statuses.get(row.status, 0) + 1
    return statuses


def cpu_line(out: SweepOutcome) -> str:
    """How busy the host's CPU was: while states replayed or waited for a browser slot
    (the pool's own figure), and over the whole run ('' where /proc/stat is missing)."""
    parts = []
    if out.states_cpu is not None:
        s = out.states_cpu
        parts.append(
            f"{s.use.describe()} while states replayed or waited"
            f" (up to {s.peak_slots} browser states at once)"
        )
        if s.waited is not None:
            parts.append(f"{s.waited.describe()} while a state waited for a browser slot")
    if out.cpu is not None:
        parts.append(f"{out.cpu.describe()} over the whole run")
    return "cpu: " + "; ".join(parts) if parts else ""


def _finished(
    args: argparse.Namespace, cfg: BenchConfig, out: SweepOutcome, allowed: tuple[str, ...]
) -> int:
    """The sweep's summary lines, its report, and the exit code."""
    run_dir, rows = out.run_dir, out.rows
    print(f"{run_dir}/manifest.jsonl: {len(rows)} row(s) written {status_counts(rows)}")
    if line := cpu_line(out):
        print(line)
    if allowed:
        print(
            f"--allow-unadmitted: {len(allowed)} task(s) without a recorded admission ran "
            "(the report says so):\n" + "\n".join(allowed),
            file=sys.stderr,
        )
    if out.stopped and not out.interrupted and not args.no_report:
        # Stopped early (a cap, a refused setup, an outage): the rows written so far are
        # reported; rows without a result are counted in its header, never scored.
        if _report(run_dir, Path(cfg.sweep.tasks_dir)):
            return EXIT_INTERRUPTED
    if out.interrupted or out.stopped:
        # The run directory remembers its filters: this reproduces the same cells.
        print(f"resume with: python -m orchestrator --config {args.config} --resume {run_dir}")
        if out.interrupted:
            # Everything is written; the process is leaving. A late second Ctrl-C must not
            # land in interpreter shutdown, which resets Python's handlers to the default
            # and would end the process by the signal instead of with 130.
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            return EXIT_INTERRUPTED
        return EXIT_STOPPED
    if not args.no_report:
        return _report(run_dir, Path(cfg.sweep.tasks_dir))
    return 0


def _report(run_dir: Path, tasks_dir: Path) -> int:
    """Write the run's report; a Ctrl-C here ends with one line (the rows are written:
    the report can be written again at any time) and exit 130."""
    try:
        from ..report import write_report

        files = write_report(run_dir, tasks_dir)
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # leaving: a second one changes nothing
        print(
            f"\ninterrupted while writing the report; every row is written. Write it with: "
            f"python -m orchestrator report {run_dir} --tasks-dir {tasks_dir}",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    print(f"report: {files.markdown} and {files.html}")
    return 0
