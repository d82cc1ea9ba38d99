"""`python -m orchestrator suggest TASK`: preservation checks from R0's evidence, as TOML."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..authoring import suggest
from ..contract import ContractError, load_task
from ._task import task_root

HELP = "propose preservation checks (copy order, anchor boxes, nav, tokens) from R0 evidence"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("task", help="task id or directory")
    p.add_argument("--tasks-dir", type=Path, default=Path("tasks"))


def run(args: argparse.Namespace) -> int:
    try:
        task = load_task(task_root(args.task, args.tasks_dir))
    except ContractError as exc:
        print(exc, file=sys.stderr)
        return 2
    text, skipped = suggest(task)
    for line in skipped:
        print(f"# skipped: {line}", file=sys.stderr)
    if not text:
        print(f"{task.root}: nothing to suggest (capture R0 first)", file=sys.stderr)
        return 1
    print("# Preservation checks proposed from evidence/r0 — review, then paste into task.toml")
    print(text)
    return 0
