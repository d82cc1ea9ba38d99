"""`python -m orchestrator regrade RUN_DIR --out NEW_DIR` (or `--submission FILE`): grade
recorded trajectories again with this harness and the task packages as they are now."""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path

import msgspec

from sandbox import BackendUnavailable, SandboxError

from ..config import BenchConfig, ConfigError, load_config, validate
from ..contract import ContractError
from ..records import RunLocked
from ..regrade import (
    RegradeInputError,
    RegradeOptions,
    RegradeOutcome,
    SubmissionError,
    agreement_table,
    regrade,
)
from ..verifier import EnvironmentDrift
from ._loop import run_async
from .run import EXIT_BAD_INPUT, EXIT_INTERRUPTED, add_replay_argument, status_counts

HELP = "grade a run's (or a submission's) recorded trajectories again, with no solver"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("run_dir", type=Path, nargs="?", metavar="RUN_DIR")
    p.add_argument("--submission", type=Path, metavar="FILE", help="a file `export` wrote")
    p.add_argument("--out", type=Path, required=True, metavar="NEW_DIR", help="new or resumed")
    p.add_argument("--config", type=Path, default=Path("bench.toml"))
    p.add_argument("--concurrency", type=int, help="cells in flight (default: bench.toml)")
    p.add_argument("--backend", choices=("auto", "docker", "local"))
    p.add_argument("--quiet", action="store_true", help="no progress display")
    p.add_argument("--progress", choices=("live", "jsonl"), default="live")
    p.add_argument("--no-report", action="store_true", help="skip writing the report")
    p.add_argument("--allow-env-drift", action="store_true")
    add_replay_argument(p)


def _config(args: argparse.Namespace) -> BenchConfig:
    """bench.toml with the command line's overrides, validated (`ConfigError`)."""
    cfg = load_config(args.config)
    changes: dict[str, object] = {}
    for flag in ("concurrency", "backend", "replay"):
        if getattr(args, flag) is not None:
            changes[flag] = getattr(args, flag)
    if args.allow_env_drift:
        changes["allow_env_drift"] = True
    cfg = msgspec.structs.replace(cfg, sweep=msgspec.structs.replace(cfg.sweep, **changes))
    validate(cfg, f"{args.config} (with command-line options)")
    return cfg


def _summary(out: RegradeOutcome) -> None:
    """The rows written, the verdict diff's counts and agreement, and each refused cell."""
    changed = out.diff.changed
    print(f"{out.out}/manifest.jsonl: {len(out.rows)} row(s) {status_counts(out.rows)}")
    print(
        f"{out.out}/verdict-diff.md: {len(out.diff.cells)} cell(s), "
        f"{len(out.diff.cells) - len(changed)} identical, {len(changed)} changed"
    )
    print("\n".join(agreement_table(out.diff)))
    for c in out.diff.cells:
        if c.status == "refused":
            print(f"refused {c.cell}: {'; '.join(c.why)}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    try:
        cfg = _config(args)
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return EXIT_BAD_INPUT
    opts = RegradeOptions(
        out=args.out,
        run_dir=args.run_dir,
        submission=args.submission,
        progress="quiet" if args.quiet else args.progress,
    )
    try:
        out = run_async(regrade, cfg, opts)
    except (
        RegradeInputError,
        SubmissionError,
        ContractError,
        RunLocked,
        BackendUnavailable,
        EnvironmentDrift,
    ) as exc:
        print(exc, file=sys.stderr)
        return EXIT_BAD_INPUT
    except SandboxError as exc:
        print(f"sandbox backend: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    _summary(out)
    if out.interrupted:
        print("interrupted: the same command resumes (cells with a current row are kept)")
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        return EXIT_INTERRUPTED
    if not args.no_report:
        from ..report import ReportError, write_report

        try:
            files = write_report(out.out, Path(cfg.sweep.tasks_dir))
            print(f"report: {files.markdown} and {files.html}")
        except ReportError as exc:
            print(f"report: {exc}", file=sys.stderr)
    return 0
