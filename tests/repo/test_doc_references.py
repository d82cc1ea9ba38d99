"""Every `.md` file the code's prose cites is a file of the repository, and every README
section it names (`README "Scores"`) is a heading of README.md (#57).

Read: the docstrings and comments of `orchestrator/`, `sandbox/` and `tests/`, and the
repository's own notes (README.md, docs/*.md, tests/perf/RESULTS.md). A mention resolves
when it is a tracked file's path (from the root or from the citing file's folder), a bare
name one tracked file has (`DESIGN.md` is docs/DESIGN.md), or a glob matching one. The
only other `.md` names are those the harness writes at run time (`report.md`,
`admission.md`, ...): a name the code spells as a string literal, outside prose.
"""

from __future__ import annotations

import ast
import fnmatch
import functools
import io
import re
import subprocess
import tokenize
from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath

import pytest

ROOT = Path(__file__).resolve().parents[2]
SELF = Path(__file__).resolve().relative_to(ROOT).as_posix()
MENTION = re.compile(r"[\w./<>{}*-]*[\w*]\.md\b")
SECTION = re.compile(r"README \"([^\"]+)\"")  # README "Scores": a heading of it
NOTES = ("README.md", "docs/*.md", "tests/perf/RESULTS.md")


def tracked(root: Path) -> list[str]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True)
    return [p for p in out.stdout.decode().split("\0") if p]


@functools.cache
def _tree(text: str, path: str) -> ast.Module:
    return ast.parse(text, path)


def _docstrings(tree: ast.Module) -> Iterator[ast.Constant]:
    kinds = ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef
    for node in ast.walk(tree):
        if isinstance(node, kinds) and ast.get_docstring(node, clean=False) is not None:
            first = node.body[0]
            assert isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            yield first.value


@functools.cache
def prose(text: str, path: str) -> tuple[tuple[int, str], ...]:
    """(line, text) of every docstring and comment of a Python source."""
    docs = [(d.lineno, str(d.value)) for d in _docstrings(_tree(text, path))]
    comments = [
        (tok.start[0], tok.string)
        for tok in tokenize.generate_tokens(io.StringIO(text).readline)
        if tok.type == tokenize.COMMENT
    ]
    return (*docs, *comments)


def written_names(sources: dict[str, str]) -> set[str]:
    """`.md` names spelled as string literals outside docstrings: files made at run time
    (this module's own literals are the planted mentions below, not such files)."""
    return set().union(*(_literals(t, p) for p, t in sources.items() if p != SELF))


@functools.cache
def _literals(text: str, path: str) -> frozenset[str]:
    tree = _tree(text, path)
    docs = {id(d) for d in _docstrings(tree)}
    return frozenset(
        PurePosixPath(m).name
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs
        for m in MENTION.findall(n.value)
    )


class Repo:
    """The tracked files, as paths and as bare names."""

    def __init__(self, files: list[str]) -> None:
        self.files = set(files)
        self.names = {PurePosixPath(f).name for f in files}


def resolves(mention: str, where: str, repo: Repo, written: set[str]) -> bool:
    name = re.split(r"[>}]", mention)[-1].lstrip("/")  # `<run>/admission.md`: its name
    if name != mention:
        return PurePosixPath(name).name in written
    if "*" in mention:
        return any(fnmatch.fnmatch(f, mention) for f in repo.files)
    if mention in repo.files or str(PurePosixPath(where).parent / mention) in repo.files:
        return True
    if "/" not in mention and mention in repo.names:
        return True
    # A name the code writes, which no tracked file has (`RUN_DIR/report.md`).
    return PurePosixPath(mention).name in written - repo.names


def dangling(sources: dict[str, str], notes: dict[str, str], files: list[str]) -> list[str]:
    """`file:line: mention` for each mention that resolves to nothing."""
    written, repo = written_names(sources), Repo(files)
    cited = [
        (path, line, m)
        for path, text in sources.items()
        for line, chunk in prose(text, path)
        for m in MENTION.findall(chunk)
    ]
    cited += [
        (path, n, m)
        for path, text in notes.items()
        for n, chunk in enumerate(text.splitlines(), 1)
        for m in MENTION.findall(chunk)
    ]
    problems = [f"{p}:{n}: {m}" for p, n, m in cited if not resolves(m, p, repo, written)]
    headings = {h.lstrip("#").strip() for h in notes["README.md"].splitlines() if h[:2] == "##"}
    return problems + [
        f'{path}:{line}: README "{title}" (no such heading)'
        for path, text in sources.items()
        for line, chunk in prose(text, path)
        for title in SECTION.findall(" ".join(chunk.split()))
        if title not in headings
    ]


FILES = tracked(ROOT)
PYTHON = {
    f: (ROOT / f).read_text(encoding="utf-8")
    for f in FILES
    if f.endswith(".py") and f.split("/")[0] in ("orchestrator", "sandbox", "tests")
}
# The others cite no note.
SOURCES = {f: text for f, text in PYTHON.items() if ".md" in text or "README" in text}
NOTE_TEXTS = {
    f: (ROOT / f).read_text(encoding="utf-8")
    for f in FILES
    if any(fnmatch.fnmatch(f, pattern) for pattern in NOTES)
}


def test_every_md_the_code_and_notes_cite_is_in_the_repository() -> None:
    assert dangling(SOURCES, NOTE_TEXTS, FILES) == []


PLANTED: dict[str, tuple[str, Callable[[str], str], str]] = {
    "a docstring citing a file that is not here": (
        "orchestrator/scoring.py",
        lambda t: t.replace("DESIGN.md", "SPEC.md", 1),
        "orchestrator/scoring.py:1: SPEC.md",
    ),
    "a path into the wrong folder": (
        "orchestrator/authoring/__init__.py",
        lambda t: t.replace("tasks/AUTHORING.md", "docs/AUTHORING.md", 1),
        "orchestrator/authoring/__init__.py:1: docs/AUTHORING.md",
    ),
    "a comment citing a moved note": (
        "tests/layers.py",
        lambda t: t.replace("# Top first.", "# Top first (LAYERS.md).", 1),
        ": LAYERS.md",
    ),
    "a docstring citing a README section that is not there": (
        "orchestrator/scoring.py",
        lambda t: t.replace('README "Scores"', 'README "Speed"', 1),
        'orchestrator/scoring.py:17: README "Speed" (no such heading)',
    ),
    "a README citing a result never recorded": (
        "README.md",
        lambda t: t.replace("`tiers-s18.md`", "`tiers-s99.md`", 1),
        "README.md:",
    ),
}


@pytest.mark.parametrize("bug", list(PLANTED))
def test_a_planted_dangling_reference_is_caught(bug: str) -> None:
    path, edit, caught = PLANTED[bug]
    sources, notes = dict(SOURCES), dict(NOTE_TEXTS)
    texts = notes if path in notes else sources
    planted = edit(texts.get(path) or PYTHON[path])
    assert planted != (texts.get(path) or PYTHON[path])
    texts[path] = planted
    problems = dangling(sources, notes, FILES)
    assert len(problems) == 1 and caught in problems[0], problems
