"""`python -m orchestrator report RUN_DIR`: Markdown and static HTML report of a run."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..report import ReportError, write_report

HELP = "write RUN_DIR/report.md and RUN_DIR/report/index.html from the run's manifest"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("run_dir", type=Path, metavar="RUN_DIR")
    p.add_argument("--tasks-dir", type=Path, default=Path("tasks"))


def run(args: argparse.Namespace) -> int:
    try:
        files = write_report(args.run_dir, args.tasks_dir)
    except ReportError as exc:
        print(exc, file=sys.stderr)
        return 1
    s = files.report.load
    print(f"{files.markdown}\n{files.html}")
    print(
        f"{s.kept} rows reported; left out {s.stale_hash} stale, {s.missing_task} missing task, "
        f"{s.superseded} superseded, {s.torn} torn",
        file=sys.stderr,
    )
    return 0
