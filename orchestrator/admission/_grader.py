"""The grader's fingerprint: which grader made an admission (`tasks/ADMISSION.json`).

A recorded admission says a task's controls behaved *under the grader that ran them*.
CI trusts a `--repeat 3` record only while that grader is the one running: a changed
task whose record carries the current fingerprint is checked by R0 and its reference
alone, one with another fingerprint (or none) is admitted whole (`_select.py`).

The fingerprint is sha256 over three parts, each itself a sha256 (`GraderParts`):

- `code`: the code that decides verdicts, every `.py` file under `GRADER_SOURCES` by
  path (relative to the repository) and by what it does, sorted by path: its syntax tree
  (`ast.dump`, no positions) with every docstring dropped, so a comment, a docstring or
  a line's layout does not make another grader (a whole-suite admission takes hours;
  a fingerprint a docstring changes was stale after any edit of the verifier's prose).
  A file Python cannot parse counts by its bytes. A package's `__init__` counts without
  the names it exports (`_face`): only which of its modules it imports, and its other
  statements, so exporting a name for a test's sake keeps every record current. The
  tree's form is the running Python's, so a record made under another Python's minor
  version is not current (the safe side). The sources are
  the verifier (the gates, the replay, the pinned environment), the contract (checks,
  gates, their defaults, the contract hash), the cell (units cleared at a checkpoint,
  flips), the checkpoint (what a checkpoint grades), the verdict types, the admission
  (the controls' verdicts) and the offline solvers (the reference and negatives applying
  their patches). Not the report, the scores (an admission reads units, flips and final
  gates, never a score), the sweep, the LLM path or the CLI: none decides a verdict.
- `render`: the pinned rendering environment as far as it is known without launching a
  browser: the pinned fonts' digest (`fonts_digest`: `evidence/env.json`'s `fonts`;
  "missing" when a font is) and Chromium's major version from its Debian package
  (`env.json`'s `browser_major`). `env.json`'s calibration render needs a browser: it is
  left out (`verify` compares it with each task's evidence before a visual check anyway).
- `images`: every file of the task's stack's build context (`images/<stack>/`) and of the
  base image's (`images/base/`): the inputs of that stack image's tag hash
  (`sandbox/_docker_images.py`) that are the repository's. So a fingerprint is a task's
  (`task_grader`): a new stack, or another stack's Dockerfile, leaves every other task's
  records current. Not the image ids: the base
  image is bootstrapped on each machine (debootstrap, or the registry's latest
  bookworm-slim) and the tag hash covers its id and the host's CA bundle, so ids differ
  between any two machines. A record made on a developer's machine would never match on
  CI's, and every changed task would be admitted whole forever.

`common` (code and render, no images) keys the admission store (`_record.py`):
one store a grader, whatever stacks it holds; each result in it carries its task's
fingerprint.

A part that cannot be read is a fixed word ("missing", "unknown"): the fingerprint then
differs from one made where it could, and CI admits the task whole (the safe side).
"""

from __future__ import annotations

import ast
import functools
import hashlib
import subprocess
from collections.abc import Callable, Iterable
from pathlib import Path

import msgspec

from sandbox import stacks

from ..contract import TaskPackage
from ..verifier import PINNED_FONTS, fonts_digest, missing_fonts

ROOT = Path(__file__).resolve().parents[2]

# The code that decides verdicts (module docstring), relative to the repository.
GRADER_SOURCES: tuple[str, ...] = (
    "orchestrator/admission/_admit.py",
    "orchestrator/cell",
    "orchestrator/checkpoint.py",
    "orchestrator/contract",
    "orchestrator/records/_results.py",
    "orchestrator/solvers/_offline.py",
    "orchestrator/verifier",
)


class GraderParts(msgspec.Struct, frozen=True, kw_only=True):
    """The three parts of a fingerprint (module docstring), each a sha256 hex."""

    code: str
    render: str
    images: str

    @property
    def digest(self) -> str:
        """The fingerprint an admission record carries (`RecordedAdmission.grader`)."""
        text = f"code {self.code}\nrender {self.render}\nimages {self.images}\n"
        return hashlib.sha256(text.encode()).hexdigest()

    @property
    def common(self) -> str:
        """Code and render alone: what every task's fingerprint shares (the store's key)."""
        text = f"code {self.code}\nrender {self.render}\n"
        return hashlib.sha256(text.encode()).hexdigest()


def _files_digest(
    root: Path, files: Iterable[Path], read: Callable[[Path], bytes] = Path.read_bytes
) -> str:
    h = hashlib.sha256()
    for path in sorted(files, key=lambda p: p.relative_to(root).as_posix()):
        rel = path.relative_to(root).as_posix()
        h.update(rel.encode() + b"\0" + hashlib.sha256(read(path)).digest())
    return h.hexdigest()


_DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def code_form(path: Path) -> bytes:
    """What a source does (`code` above): its tree without docstrings, or its bytes when
    it does not parse."""
    data = path.read_bytes()
    try:
        tree = ast.parse(data, filename=str(path))
    except (SyntaxError, ValueError):
        return data
    for node in ast.walk(tree):
        if not isinstance(node, _DOCUMENTED):
            continue
        body = node.body
        first = body[0] if body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
            if isinstance(first.value.value, str):
                node.body = body[1:] or [ast.Pass()]
    if path.name == "__init__.py":
        tree.body = _face(tree.body)
    return ast.dump(tree, include_attributes=False).encode()


def _face(body: list[ast.stmt]) -> list[ast.stmt]:
    """A package's `__init__` with the names it exports dropped: its relative imports
    reduced to the modules they import (sorted, once each), `__all__` left out. What a
    package exports decides no verdict, so exporting a name for a caller or a test keeps
    the suite's records current; importing a module no more (a registration its import
    made) still counts, as does every other statement."""
    modules: set[tuple[int, str]] = set()
    kept: list[ast.stmt] = []
    for stmt in body:
        if isinstance(stmt, ast.ImportFrom) and stmt.level > 0:
            modules.add((stmt.level, stmt.module or ""))
        elif not _assigns_all(stmt):
            kept.append(stmt)
    imports: list[ast.stmt] = [
        ast.ImportFrom(module=m or None, names=[ast.alias(name="*")], level=level)
        for level, m in sorted(modules)
    ]
    return imports + kept


def _assigns_all(stmt: ast.stmt) -> bool:
    targets: list[ast.expr] = []
    if isinstance(stmt, ast.Assign):
        targets = stmt.targets
    elif isinstance(stmt, ast.AnnAssign | ast.AugAssign):
        targets = [stmt.target]
    return any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets)


def source_files(root: Path, sources: Iterable[str] = GRADER_SOURCES) -> list[Path]:
    """Every `.py` file of `sources` under `root` (a folder's recursively)."""
    files: list[Path] = []
    for rel in sources:
        path = root / rel
        if path.is_dir():
            files += (p for p in path.rglob("*.py") if "__pycache__" not in p.parts)
        elif path.is_file():
            files.append(path)
        else:
            raise FileNotFoundError(f"grader source {rel} is not under {root}")
    return files


def code_digest(root: Path = ROOT, sources: Iterable[str] = GRADER_SOURCES) -> str:
    return _files_digest(root, source_files(root, sources), code_form)


def chromium_major() -> str:
    """Chromium's major version from its Debian package (no browser launched)."""
    try:
        out = subprocess.run(
            ["dpkg-query", "-W", "-f=${Version}", "chromium"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    version = out.stdout.strip().split(":", 1)[-1]  # no epoch
    major = version.split(".", 1)[0]
    return major if out.returncode == 0 and major.isdigit() else "unknown"


def render_digest(
    fonts: tuple[str, ...] = PINNED_FONTS, browser: Callable[[], str] = chromium_major
) -> str:
    pinned = "missing" if missing_fonts(fonts) else fonts_digest(fonts)
    text = f"fonts {pinned}\nchromium {browser()}\n"
    return hashlib.sha256(text.encode()).hexdigest()


def images_digest(images_dir: Path, stack: str | None = None) -> str:
    """Every file of `stack`'s build context (None: every stack's) and of the base image's."""
    names = stacks(images_dir) if stack is None else [stack]
    folders = [images_dir / s for s in names] + [images_dir / "base"]
    files = [p for d in folders if d.is_dir() for p in d.rglob("*") if p.is_file()]
    return _files_digest(images_dir, files)


def grader_parts(
    root: Path = ROOT,
    *,
    stack: str | None = None,
    fonts: tuple[str, ...] = PINNED_FONTS,
    browser: Callable[[], str] = chromium_major,
) -> GraderParts:
    return GraderParts(
        code=code_digest(root),
        render=render_digest(fonts, browser),
        images=images_digest(root / "images", stack),
    )


@functools.cache
def _shared(root: Path) -> tuple[str, str]:
    """The code and render digests, read once a process whatever stacks are asked for."""
    return code_digest(root), render_digest()


@functools.cache
def _parts(stack: str | None, root: Path) -> GraderParts:
    code, render = _shared(root)
    return GraderParts(code=code, render=render, images=images_digest(root / "images", stack))


def grader_fingerprint(stack: str | None = None, root: Path = ROOT) -> str:
    """This checkout's fingerprint for a task on `stack` (None: every stack's images),
    computed once a process."""
    return _parts(stack, root).digest


def task_grader(task: TaskPackage) -> str:
    """The fingerprint `task`'s admission is recorded with: its stack's."""
    return grader_fingerprint(task.contract.stack)


def common_fingerprint(root: Path = ROOT) -> str:
    """The fingerprint every task's shares (`GraderParts.common`): the store's key."""
    return _parts(None, root).common


# A grader, as the admission and its record take it: one fingerprint for every task (a
# test's), or a task's own (`task_grader`).
Grader = str | Callable[[TaskPackage], str]


def grader_of(grader: Grader, task: TaskPackage) -> str:
    return grader(task) if callable(grader) else grader
