"""The fake provider's knowledge: which unit a conversation is on, and the reference files.

Runs in the fake server's threads, so it is plain blocking code.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path

from ...contract import TaskPackage, load_task

_SPACE = re.compile(r"\s+")
_GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "HOME": "/nonexistent",
    "PATH": "/usr/local/bin:/usr/bin:/bin",
}


def _norm(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def _text_files(root: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if not p.is_file() or rel.startswith(".git/"):
            continue
        try:
            out[rel] = p.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # write_file carries text; binary reference files are out of its reach
    return out


def _all_files(root: Path) -> list[str]:
    skip = (".git/", "node_modules/")
    rels = (p.relative_to(root).as_posix() for p in sorted(root.rglob("*")) if p.is_file())
    return [r for r in rels if not r.startswith(skip) and "/node_modules/" not in r]


class ReferenceBook:
    def __init__(self, task_dirs: Sequence[Path]) -> None:
        self.tasks = [load_task(d) for d in task_dirs]
        self._cache: dict[tuple[str, str], dict[str, str | None]] = {}
        self._lock = threading.Lock()

    def match(self, user_texts: Sequence[str]) -> tuple[TaskPackage, str] | None:
        """The furthest unit of the plan that the newest quoting user text asks for.

        A staged reveal quotes one unit; a full-spec request quotes them all, and then the
        whole plan is played (through its last unit). A request quoted only because it is
        part of a longer quoted request does not count.
        """
        for text in reversed(user_texts):
            said = _norm(text)
            best: tuple[int, int, TaskPackage, str] | None = None
            for task in self.tasks:
                asked = [
                    (i, _norm(u.request))
                    for i, u in enumerate(task.contract.units)
                    if _norm(u.request) in said
                ]
                own = [i for i, r in asked if not any(r != o and r in o for _, o in asked)]
                if own:
                    key = (len(own), max(own))
                    if best is None or key > best[:2]:
                        best = (*key, task, task.contract.units[max(own)].id)
            if best is not None:
                return best[2], best[3]
        return None

    def changed_files(self, task: TaskPackage, unit_id: str) -> dict[str, str | None]:
        """Files that differ from R0 once the reference is applied through `unit_id`: the
        new text of each changed text file, None for each file the reference deleted."""
        key = (task.contract.id, unit_id)
        with self._lock:
            if key not in self._cache:
                self._cache[key] = self._compute(task, unit_id)
            return self._cache[key]

    def _compute(self, task: TaskPackage, unit_id: str) -> dict[str, str | None]:
        r0 = _text_files(task.repo)
        with tempfile.TemporaryDirectory(prefix="pwb-fake-") as tmp:
            scratch = Path(tmp) / "repo"
            shutil.copytree(
                task.repo, scratch, ignore=shutil.ignore_patterns(".git", "node_modules")
            )
            # A repository of its own, so `git apply` never resolves paths against an outer one.
            subprocess.run(["git", "init", "-q"], cwd=scratch, env=_GIT_ENV, check=True)
            for unit in task.contract.units:
                patch = task.reference_patch(unit.id)
                subprocess.run(
                    ["git", "apply", "--whitespace=nowarn", str(patch)],
                    cwd=scratch,
                    env=_GIT_ENV,
                    check=True,
                    capture_output=True,
                )
                if unit.id == unit_id:
                    break
            after = _text_files(scratch)
            deleted = [p for p in _all_files(task.repo) if not (scratch / p).exists()]
        changed: dict[str, str | None] = {p: t for p, t in after.items() if r0.get(p) != t}
        return changed | dict.fromkeys(deleted)
