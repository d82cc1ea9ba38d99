"""`python -m orchestrator tasks`: list tasks with labels and hashes, then the suite's
composition (regime × capability × facet × stack); non-zero on an invalid task. A task
whose contract has no recorded admission (`ADMISSION.json` beside it) is named on stderr."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..admission import (
    AdmissionRecordError,
    composition,
    load_record,
    record_path,
    suite_twin_problems,
    unadmitted,
)
from ..contract import ContractError, TaskPackage, discover_tasks, load_task
from ._task import task_root

HELP = "list the task suite (labels, contract hashes) and its composition; exit 1 if any is invalid"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("tasks", nargs="*", help="task ids or directories (default: every task)")
    p.add_argument("--tasks-dir", type=Path, default=Path("tasks"))


def run(args: argparse.Namespace) -> int:
    bad = 0
    valid: list[TaskPackage] = []
    roots = (
        [task_root(t, args.tasks_dir) for t in args.tasks]
        if args.tasks
        else discover_tasks(args.tasks_dir)
    )
    if not roots:
        print(f"{args.tasks_dir}: no task.toml found", file=sys.stderr)
        return 1
    for root in roots:
        try:
            t = load_task(root)
        except ContractError as exc:
            bad += 1
            for line in exc.problems:
                print(line, file=sys.stderr)
            continue
        c = t.contract
        valid.append(t)
        print(
            f"{c.id:32} {c.regime:7} {c.capability:12} {c.facet:15} {c.stack:7} "
            f"units={len(c.units):2} checks={len(c.checks):3} {t.contract_hash[:12]}"
            + (f" twin_of={c.twin_of}" if c.twin_of else "")
        )
    twins = suite_twin_problems(valid)
    for line in twins:
        bad += 1
        print(line, file=sys.stderr)
    if valid:
        print()
        print(composition(t.contract for t in valid), end="")
    for parent in sorted({t.root.resolve().parent for t in valid}):
        try:
            record = load_record(record_path(parent))
        except AdmissionRecordError as exc:
            bad += 1
            print(exc, file=sys.stderr)
            continue
        mine = [t for t in valid if t.root.resolve().parent == parent]
        for line in unadmitted(mine, record):
            print(f"unadmitted: {line}", file=sys.stderr)
    if bad:
        print(f"{bad} invalid task(s)", file=sys.stderr)
    return 1 if bad else 0
