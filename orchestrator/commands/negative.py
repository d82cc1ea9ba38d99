"""`python -m orchestrator negative TASK NAME`: scaffold a negative in a scratch work tree
(R0 with the reference applied through `--after`), then `--save` it as its patch."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..authoring import (
    R0,
    ScratchError,
    default_dir,
    load_for_negative,
    open_scratch,
    save_scratch,
)
from ..contract import ContractError
from ._task import task_root

HELP = "scaffold a negative: a scratch tree of the reference to break, then --save its patch"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("task", help="task id or directory")
    p.add_argument("name", help="the negative's name: lowercase letters, digits and '-'")
    p.add_argument("--tasks-dir", type=Path, default=Path("tasks"))
    p.add_argument(
        "--after",
        help=f"the unit whose reference the negative follows (default the last; {R0}: on R0)",
    )
    p.add_argument("--dir", type=Path, help="the scratch tree (default under ~/.cache/pwb)")
    p.add_argument("--save", action="store_true", help="write negatives/NAME.patch from it")
    p.add_argument("--expect", default="", help="with --save: the gates it fails, a,b")
    p.add_argument("--why", default="", help="with --save: what breaks, for the entry")
    p.add_argument("--force", action="store_true", help="with --save: replace the patch")


def run(args: argparse.Namespace) -> int:
    try:
        task = load_for_negative(task_root(args.task, args.tasks_dir))
    except ContractError as exc:
        print(exc, file=sys.stderr)
        return 2
    tree = args.dir or default_dir(task, args.name)
    try:
        if args.save:
            expect = [g.strip() for g in args.expect.split(",") if g.strip()]
            saved = save_scratch(task, args.name, tree, expect, args.why, force=args.force)
        else:
            after = args.after or task.contract.units[-1].id
            open_scratch(task, args.name, after, tree)
    except (ScratchError, ContractError) as exc:
        print(f"negative: {exc}", file=sys.stderr)
        return 2
    if args.save:
        print(f"# wrote {saved.path}; paste into task.toml, then admit --repeat 1")
        print(saved.toml, end="")
        return 0
    print(f"{tree}: the reference through {after}; break one thing there, then")
    print(
        f"  python -m orchestrator negative {task.root} {args.name} --dir {tree} --save"
        " --expect GATE[,GATE] --why '...'"
    )
    return 0
