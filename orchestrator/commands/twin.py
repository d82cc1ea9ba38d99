"""`python -m orchestrator twin SOURCE --keep PATH...`: derive a greenfield twin of a Change
task; after `capture`, `twin ID --settle` moves into unit 1 the source's preservation
checks the starter fails (AUTHORING.md, "Greenfield twins")."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..authoring import TwinError, derive_twin, repatch_twin, settle_twin
from ..contract import ContractError, TaskPackage, load_task
from ..lint import evidence_missing, holds_on_evidence
from ..workspace import path_allowed
from ._task import task_root

HELP = "derive a greenfield twin of a change task; after capture, --settle its unit 1"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("task", help="the change task (id or directory); with --settle, the twin")
    p.add_argument("--id", help="the twin's id (default build-SOURCE)")
    p.add_argument("--tasks-dir", type=Path, default=Path("tasks"))
    p.add_argument(
        "--keep",
        action="append",
        default=[],
        metavar="PATH",
        help="a file, folder or glob of the source's repo/ the starter keeps (repeat it)",
    )
    p.add_argument(
        "--settle",
        action="store_true",
        help="after capture: move into unit 1 the preservation checks evidence/r0 shows failing",
    )
    p.add_argument(
        "--repatch",
        action="store_true",
        help="after editing the twin's repo/: make unit 1's patch again from it",
    )
    p.add_argument(
        "--move",
        default="",
        metavar="ID[,ID]",
        help="with --settle: preservation checks to move too, or 'undecided': all those the"
        " evidence cannot judge",
    )


def run(args: argparse.Namespace) -> int:
    try:
        task = load_task(task_root(args.task, args.tasks_dir))
    except ContractError as exc:
        print(f"twin: {exc.problems[0]}", file=sys.stderr)
        return 2
    try:
        if args.settle and args.repatch:
            raise TwinError("--settle and --repatch: one at a time")
        if args.repatch:
            return _repatch(task, args)
        return _settle(task, args) if args.settle else _derive(task, args)
    except (TwinError, ContractError) as exc:
        print(f"twin: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 2


def _derive(source: TaskPackage, args: argparse.Namespace) -> int:
    if args.move:
        raise TwinError("--move: only with --settle")
    if not args.keep:
        raise TwinError("--keep: name the source's files the starter keeps (its stylesheet...)")
    c = source.contract
    root = args.tasks_dir / (args.id or f"build-{c.id}")
    made = derive_twin(source, root, args.keep, path_allowed)
    u1 = c.units[0].id
    print(f"{made.root}: the greenfield twin of {c.id}")
    print(f"  repo/ (the starter): {', '.join(made.starter)}")
    print(f"    written by the kit: {', '.join(made.made) or 'nothing'} (review the copy)")
    print(f"  reference/{u1}.patch: the starter to {c.id}'s R0 with its {u1} applied")
    if len(c.units) > 1:
        print(f"  reference/: {', '.join(u.id for u in c.units[1:])} copied from {c.id}")
    if made.allowed_added:
        print(f"  allowed_paths += {', '.join(made.allowed_added)} (unit {u1} writes them)")
    print("  negatives: none (a twin's own: `negative`)")
    pres = c.preservation_check_ids()
    print("next:")
    print(f"  1. write unit {u1}'s request in task.toml (a TODO: lint warns until it is replaced)")
    print(f"     and README.md; after editing repo/: twin {made.root} --repatch")
    print(f"  2. python -m orchestrator capture {made.root}")
    print(f"  3. python -m orchestrator twin {made.root} --settle: of {c.id}'s {len(pres)}")
    print(f"     preservation checks, moves into {u1} those the starter fails")
    print(f"  4. negatives (`negative {made.root} NAME`), lint, admit --repeat 3")
    return 0


def _settle(twin: TaskPackage, args: argparse.Namespace) -> int:
    if args.keep or args.id:
        raise TwinError("--settle: takes the twin alone (no --keep, no --id)")
    if evidence_missing(twin):
        raise TwinError(f"{twin.root}: no evidence/r0 (run capture first)")
    move = [m.strip() for m in args.move.split(",") if m.strip()]
    judge = {k.id: k for k in twin.contract.checks}
    done = settle_twin(twin, lambda cid: holds_on_evidence(twin, judge[cid], "r0"), move)
    u1 = twin.contract.units[0].id
    load_task(twin.root)  # the rewrite keeps a package the loader accepts
    if done.moved:
        print(f"{twin.root}: moved into {u1}: {', '.join(done.moved)}")
    else:
        print(f"{twin.root}: nothing to move into {u1}")
    if done.passing:
        print(f"  the starter passes (preservation checks still): {', '.join(done.passing)}")
    if done.undecided:
        print(f"  the evidence cannot judge: {', '.join(done.undecided)}")
        print("  move those the starter cannot pass (a unit check the starter passes is harmless;")
        print("  a preservation check it fails keeps the twin from admission):")
        print(f"    python -m orchestrator twin {twin.root} --settle --move ID[,ID]|undecided")
    return 0


def _repatch(twin: TaskPackage, args: argparse.Namespace) -> int:
    if args.keep or args.id or args.move:
        raise TwinError("--repatch: takes the twin alone (no --keep, --id or --move)")
    c = twin.contract
    if c.twin_of is None:
        raise TwinError(f"{twin.root}: not a greenfield twin (no twin_of)")
    beside = twin.root.parent / c.twin_of
    source = load_task(beside if (beside / "task.toml").is_file() else args.tasks_dir / c.twin_of)
    added = repatch_twin(twin, source, path_allowed)
    u1 = c.units[0].id
    print(f"{twin.root}: reference/{u1}.patch made again from repo/ (ends on {c.twin_of}'s tree)")
    if added:
        print(f"  allowed_paths += {', '.join(added)} (unit {u1} writes them)")
    print(f"next: python -m orchestrator capture {twin.root} (R0 and the reference changed)")
    return 0
