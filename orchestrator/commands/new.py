"""`python -m orchestrator new ID --stack STACK`: scaffold a task package `tasks` accepts."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..authoring import SERVE, scaffold
from ..contract import ContractError, load_task

HELP = "scaffold a new task package (repo skeleton, task.toml with the canary, one unit)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", help="task id: lowercase letters, digits and '-'")
    p.add_argument("--stack", choices=sorted(SERVE), required=True)
    p.add_argument("--tasks-dir", type=Path, default=Path("tasks"))


def run(args: argparse.Namespace) -> int:
    root = args.tasks_dir / args.id
    try:
        scaffold(root, args.id, args.stack)
        load_task(root)
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    except ContractError as exc:  # a bug of the scaffold, never the author's
        print(exc, file=sys.stderr)
        return 1
    print(f"{root}: scaffolded; next: edit repo/, write reference/u1.patch, then")
    print(f"  python -m orchestrator capture {root} && python -m orchestrator suggest {root}")
    return 0
