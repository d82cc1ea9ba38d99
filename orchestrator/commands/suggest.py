"""`python -m orchestrator suggest TASK`: preservation checks from R0's evidence, as TOML."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..authoring import EXISTS, suggest, suggest_negatives
from ..contract import ContractError, TaskPackage, load_task
from ._task import task_root

HELP = "propose preservation checks (copy order, anchor boxes, nav, tokens) from R0 evidence"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("task", help="task id or directory")
    p.add_argument("--tasks-dir", type=Path, default=Path("tasks"))
    p.add_argument(
        "--nav-boxes",
        action="store_true",
        help="propose navigations' boxes too (their entries are checked already; a negative"
        " that drops an entry then fails visual_anchors as well)",
    )
    p.add_argument(
        "--negatives",
        action="store_true",
        help="propose negatives instead (a live region silenced): writes negatives/<name>.patch"
        " for each, never over an existing file, and prints their [[negatives]] entries",
    )


def run(args: argparse.Namespace) -> int:
    try:
        task = load_task(task_root(args.task, args.tasks_dir))
    except ContractError as exc:
        print(exc, file=sys.stderr)
        return 2
    if args.negatives:
        return _negatives(task)
    text, skipped = suggest(task, nav_boxes=args.nav_boxes)
    for line in skipped:
        print(f"# skipped: {line}", file=sys.stderr)
    if not text:
        print(f"{task.root}: {_why_nothing(task, skipped)}", file=sys.stderr)
        return 1
    print("# Preservation checks proposed from evidence/r0 — review, then paste into task.toml")
    print(text)
    return 0


def _why_nothing(task: TaskPackage, skipped: list[str]) -> str:
    """Why `suggest` proposed nothing: no evidence yet, or every check already pasted."""
    if not any((task.evidence / "r0").glob("*.anchors.json")):
        return "nothing to suggest: no evidence/r0 (run capture first)"
    present = sum(line.endswith(EXISTS) for line in skipped)
    if present:
        return (
            f"nothing new to suggest: the {present} check(s) it proposes are in task.toml already"
        )
    return "nothing to suggest: the evidence holds nothing a preservation check would keep"


def _negatives(task: TaskPackage) -> int:
    proposed, skipped = suggest_negatives(task)
    for line in skipped:
        print(f"# skipped: {line}", file=sys.stderr)
    written = []
    for n in proposed:
        path = task.root / "negatives" / f"{n.name}.patch"
        if path.exists():
            print(f"# skipped: {path} exists", file=sys.stderr)
            continue
        path.parent.mkdir(exist_ok=True)
        path.write_text(n.patch, encoding="utf-8")
        written.append(n.toml)
    if not written:
        print(f"{task.root}: no negative to propose", file=sys.stderr)
        return 1
    print("# Negatives proposed from evidence/r0 (patches written) — review, then paste")
    print("\n".join(written))
    return 0
