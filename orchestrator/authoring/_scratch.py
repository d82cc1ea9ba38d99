"""`negative`: a negative scaffolded in a scratch work tree, then saved as its patch.

An author used to make each negative by hand: copy `repo/`, `git init`, apply the
reference patches through the unit the negative follows, break one thing, diff with the
right flags (new files included), put the canary line first, and type its
`[[negatives]]` entry. `open_scratch` does the first part: a git work tree of R0 with the
reference applied through `after` (a commit a unit, so `git diff` shows only what the
author breaks). `save_scratch` does the rest: the staged diff against that commit, canary
first, written to `negatives/<name>.patch`, and the TOML entry to paste. The patch
applies the way admission applies it (`git apply` on the same tree), which
`save_scratch` checks before it writes.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import msgspec

from ..contract import (
    CANARY_LINE,
    GATES,
    ContractError,
    TaskPackage,
    contract_hash,
    decode_contract,
    load_task,
)

# What a scratch copy of `repo/` leaves out: a package's repository holds no such folder,
# but an author's R0 may have been built in place.
IGNORED = shutil.ignore_patterns(".git", "node_modules", "dist", "build", ".astro", "_site")
R0 = "r0"  # `--after r0`: the negative is written on R0 (`after_unit = ""`)
MARK = "pwb-negative.json"  # in the scratch tree's .git: what it was opened for


class ScratchError(Exception):
    """The author's input or scratch tree is wrong: one line, naming what and where."""


@dataclass(frozen=True, slots=True)
class SavedNegative:
    path: Path
    toml: str


def default_dir(task: TaskPackage, name: str) -> Path:
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "pwb" / "negatives" / task.contract.id / name


def _git(tree: Path, *args: str, stdin: bytes | None = None) -> bytes:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "pwb",
        "GIT_AUTHOR_EMAIL": "pwb@localhost",
        "GIT_COMMITTER_NAME": "pwb",
        "GIT_COMMITTER_EMAIL": "pwb@localhost",
    }
    done = subprocess.run(
        ["git", "-c", "core.autocrlf=false", *args],
        cwd=tree,
        input=stdin,
        capture_output=True,
        env=env,
    )
    if done.returncode != 0:
        err = done.stderr.decode(errors="replace").strip().splitlines()
        raise ScratchError(f"{tree}: git {args[0]}: {err[-1] if err else done.returncode}")
    return done.stdout


def _units_through(task: TaskPackage, after: str) -> list[str]:
    ids = [u.id for u in task.contract.units]
    if after == R0:
        return []
    if after not in ids:
        raise ScratchError(f"{task.root}: --after {after!r}: expected r0 or one of {ids}")
    return ids[: ids.index(after) + 1]


# `load_task`'s problem for a negative listed in task.toml whose patch is not written yet.
_UNWRITTEN = re.compile(
    r":negatives\[\d+\]\.name: expected a patch file negatives/[a-z0-9-]+\.patch,"
    r" got 'missing file'$"
)


def load_for_negative(root: Path) -> TaskPackage:
    """The package as `negative` needs it. An author who listed the negatives in task.toml
    before making their patches gets the package without those entries; any other
    problem is `load_task`'s `ContractError`, as it is."""
    try:
        return load_task(root)
    except ContractError as exc:
        if not all(_UNWRITTEN.search(p) for p in exc.problems):
            raise
    root = root.resolve()
    toml = root / "task.toml"
    contract = decode_contract(toml.read_text(encoding="utf-8"), str(toml))
    written = tuple(
        n for n in contract.negatives if (root / "negatives" / f"{n.name}.patch").is_file()
    )
    contract = msgspec.structs.replace(contract, negatives=written)
    return TaskPackage(root=root, contract=contract, contract_hash=contract_hash(root, contract))


def check_name(task: TaskPackage, name: str) -> None:
    task.negative_patch(name)  # a safe id, else a ContractError naming it


def _build(task: TaskPackage, units: list[str], tree: Path) -> None:
    """`repo/` copied into `tree` (empty) and the units' reference patches applied, a
    commit a step."""
    tree.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(task.repo, tree, ignore=IGNORED, dirs_exist_ok=True)
    _git(tree, "init", "-q")
    _git(tree, "add", "-A")
    _git(tree, "commit", "-qm", R0, "--allow-empty")
    for unit in units:
        _git(tree, "apply", "--whitespace=nowarn", str(task.reference_patch(unit).resolve()))
        _git(tree, "add", "-A")
        _git(tree, "commit", "-qm", unit, "--allow-empty")


def open_scratch(task: TaskPackage, name: str, after: str, tree: Path) -> Path:
    """R0 with the reference applied through `after`, one commit a step, in `tree`."""
    check_name(task, name)
    units = _units_through(task, after)
    if tree.exists() and any(tree.iterdir()):
        raise ScratchError(f"{tree}: not empty (save it, or remove it to start again)")
    _build(task, units, tree)
    mark = {"task": task.contract.id, "name": name, "after": after}
    (tree / ".git" / MARK).write_text(json.dumps(mark), encoding="utf-8")
    return tree


def _entry(name: str, after: str, expect: list[str], why: str) -> str:
    lines = ["[[negatives]]", f'name = "{name}"']
    if after != R0:
        lines.append(f'after_unit = "{after}"')
    lines.append("expect_fail = [" + ", ".join(f'"{g}"' for g in expect) + "]")
    lines.append("why = " + json.dumps(why or "TODO: what breaks, and which gate alone sees it"))
    return "\n".join(lines) + "\n"


def save_scratch(
    task: TaskPackage, name: str, tree: Path, expect: list[str], why: str, *, force: bool
) -> SavedNegative:
    """The scratch tree's changes as `negatives/<name>.patch`, and its TOML entry."""
    check_name(task, name)
    if unknown := [g for g in expect if g not in GATES]:
        raise ScratchError(f"--expect: unknown gate(s) {unknown}: expected some of {GATES}")
    if not expect:
        raise ScratchError("--expect: name the gate(s) the negative must fail")
    mark_path = tree / ".git" / MARK
    if not mark_path.is_file():
        raise ScratchError(f"{tree}: no scratch tree (open it first: negative TASK NAME)")
    mark = json.loads(mark_path.read_text(encoding="utf-8"))
    if (mark["task"], mark["name"]) != (task.contract.id, name):
        raise ScratchError(f"{tree}: opened for {mark['task']}/{mark['name']}, not this one")
    _git(tree, "add", "-A")
    diff = _git(tree, "diff", "--cached", "--binary", "HEAD")
    if not diff.strip():
        raise ScratchError(f"{tree}: nothing changed since the reference: break something")
    # The patch must apply where admission applies it: on R0 and the reference patches
    # as they are now (the scratch tree may be older than an edit to them).
    with tempfile.TemporaryDirectory(prefix="pwb-negative-") as tmp:
        fresh = Path(tmp) / "tree"
        _build(task, _units_through(task, mark["after"]), fresh)
        _git(fresh, "apply", "--check", "-", stdin=diff)
    path = task.negative_patch(name)
    if path.exists() and not force:
        raise ScratchError(f"{path}: exists (--force to replace it)")
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(CANARY_LINE.encode() + diff)
    return SavedNegative(path, _entry(name, mark["after"], expect, why))
