"""`python -m orchestrator lint [TASK...]`: warnings about how well a package measures."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..admission import suite_twin_problems
from ..contract import ContractError, discover_tasks, load_task
from ..lint import evidence_missing, lint
from ._task import task_root

HELP = "warn about checks that cannot fail and unexercised units; note health-only states"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("tasks", nargs="*", help="task ids or directories (default: every task)")
    p.add_argument("--tasks-dir", type=Path, default=Path("tasks"))


def run(args: argparse.Namespace) -> int:
    roots = (
        [task_root(t, args.tasks_dir) for t in args.tasks]
        if args.tasks
        else discover_tasks(args.tasks_dir)
    )
    try:
        tasks = [load_task(root) for root in roots]
    except ContractError as exc:
        print(exc, file=sys.stderr)
        return 2
    twins = suite_twin_problems(tasks)
    if twins:
        print("\n".join(twins), file=sys.stderr)
        return 2
    warned = 0
    for task in tasks:
        if evidence_missing(task):
            print(f"{task.contract.id}: no evidence (run capture): evidence checks skipped")
        for finding in lint(task):
            warned += finding.level == "warning"
            print(f"{task.contract.id}: {finding}")
    return 0 if not warned else 1
