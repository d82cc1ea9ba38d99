"""What CI verified: `ci_verified` written, after a passing sample, for the tasks whose
package is exactly the committed one (the package's docstring says why)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path

from ..contract import TaskPackage, load_task
from ._record import load_record, record_path, with_ci_verified, write_record

# Every file git would not check out as committed: changed, staged, untracked, ignored.
_STATUS = ("status", "--porcelain", "-z", "--ignored", "--untracked-files=all")


def committed_as_is(root: Path, task_ids: Iterable[str]) -> set[str]:
    """Tasks whose package under `root/tasks` is exactly the committed one: no modified,
    staged, untracked or ignored file in it (what a clean clone would hold); none when git
    cannot tell, or when `root` is not the top of its repository (git's paths are)."""
    top = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "--show-toplevel"], capture_output=True, text=True
    )
    if top.returncode != 0 or Path(top.stdout.strip()).resolve() != root.resolve():
        return set()
    out = subprocess.run(
        ["git", "-C", str(root), *_STATUS, "--", "tasks"], capture_output=True, text=True
    )
    if out.returncode != 0:
        return set()
    paths, entries = [], iter(out.stdout.split("\0"))
    for entry in entries:  # "XY path", a rename's or copy's origin path next
        if len(entry) > 3:
            paths.append(entry[3:])
            if {"R", "C"} & set(entry[:2]):
                paths.append(next(entries, ""))
    dirty = {p.split("/")[1] for p in paths if p.count("/") >= 2}
    return {i for i in task_ids if i not in dirty}


def mark_ci_verified(root: Path, tasks: Sequence[TaskPackage]) -> list[str]:
    """After a passing admission sample under CI=true: record `ci_verified` (each task's
    current contract hash) for every task of `tasks` whose package is the committed one
    (`committed_as_is`) and still the one admitted (its hash read again: a package
    committed anew during the run is not the verified one), in the work tree's
    `tasks/ADMISSION.json`. Returns the tasks newly marked (the file is written only when
    there is one)."""
    path = record_path(root / "tasks")
    record = load_record(path)
    clean = committed_as_is(root, [t.contract.id for t in tasks])
    marks = {
        t.contract.id: t.contract_hash
        for t in tasks
        if t.contract.id in clean
        and t.contract.id in record.tasks
        and record.tasks[t.contract.id].ci_verified != t.contract_hash
        and load_task(t.root).contract_hash == t.contract_hash
    }
    if marks:
        write_record(path, with_ci_verified(record, marks))
    return sorted(marks)
