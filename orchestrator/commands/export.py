"""`python -m orchestrator export RUN_DIR -o FILE`: a run's trajectories and solver cards
as one submission file (no grader data), for `regrade --submission FILE` elsewhere."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..regrade import export_run
from .run import EXIT_BAD_INPUT

HELP = "pack a run's trajectories and solver cards into a submission file"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("run_dir", type=Path, metavar="RUN_DIR")
    p.add_argument("-o", "--out", type=Path, required=True, metavar="FILE")


def run(args: argparse.Namespace) -> int:
    if not (args.run_dir / "manifest.jsonl").is_file():
        print(f"{args.run_dir}: not a run directory (no manifest.jsonl)", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        n, skipped = export_run(args.run_dir, args.out)
    except OSError as exc:
        print(f"{args.out}: cannot write: {exc.strerror}", file=sys.stderr)
        return EXIT_BAD_INPUT
    for line in skipped:
        print(f"left out {line}", file=sys.stderr)
    print(f"{args.out}: {n} cell(s)")
    return 0
