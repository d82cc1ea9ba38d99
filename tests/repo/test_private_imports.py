"""How many modules under `tests/` import a private module of the harness, held to a
ceiling that only goes down (#57; docs/architecture.md "Private imports in tests").

A module *imports privately* when one of its imports (at module level or inside a
function) reaches `orchestrator` or `sandbox` through a segment starting with `_`: a
private module (`from orchestrator.sweep._core import Engine`,
`import orchestrator.sweep._runner as runner`, `from orchestrator.report import
_measures`) or a private name (`from orchestrator.lint import _trivial`). A package's
face is its `__init__`; what a test needs of a package and a caller could use too is
exported there and imported from there (STYLE.md "Public surface vs private modules").
A test that patches a module's attributes, or calls one of its private names, needs the
module: those stay, and are counted.

`CEILING` is the count when it was last lowered. More fails (import the name from the
package's face, or export it there); fewer fails too, until `CEILING` is lowered to the
new count, so a gain is kept. `python -m tests.repo.test_private_imports` prints the
count and each module with what it imports privately.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOPS = ("orchestrator", "sandbox")

# 57 of 264 modules (from 109 of 245, then 80 of 264, then 62 of 264); 25 of the 57
# import from the grader's packages (the verifier, the cell, the contract, the
# checkpoint). The fingerprint (`orchestrator/admission/_grader.py`) counts a package's
# `__init__` without the names it exports (`_face`), so their faces export what a test
# needs and a caller could use; what is left needs a module no face imports, or patches
# or calls a module's internals.
CEILING = 57

# The packages whose files are the grader's fingerprint (GRADER_SOURCES), by unit.
GRADER_UNITS = ("cell", "checkpoint", "contract", "verifier")


def read_tests(root: Path) -> dict[str, str]:
    """Every module under `root/tests`: path relative to `root` → text."""
    return {
        path.relative_to(root).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted((root / "tests").rglob("*.py"))
    }


def is_private(part: str) -> bool:
    return part.startswith("_") and not part.startswith("__")


def private_imports(path: str, text: str) -> list[str]:
    """What `text` imports privately from the harness, dotted (`orchestrator.sweep._core`,
    `orchestrator.lint._trivial`), each with its line."""
    found = []
    for node in ast.walk(ast.parse(text, path)):
        if isinstance(node, ast.Import):
            dotted = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            if any(is_private(p) for p in node.module.split(".")):
                dotted = [node.module]
            else:
                dotted = [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in dotted:
            parts = name.split(".")
            if parts[0] in TOPS and any(is_private(p) for p in parts):
                found.append(f"{name} (line {node.lineno})")
    return found


def private_importers(sources: dict[str, str]) -> dict[str, list[str]]:
    """Each module that imports privately → what it imports so."""
    found = {path: private_imports(path, text) for path, text in sources.items()}
    return {path: names for path, names in found.items() if names}


def from_grader(names: list[str]) -> bool:
    return any(name.split(".")[1] in GRADER_UNITS for name in names if "." in name)


SOURCES = read_tests(ROOT)


def test_private_imports_stay_at_the_ceiling() -> None:
    found = private_importers(SOURCES)
    listing = "\n".join(f"{path}: {', '.join(names)}" for path, names in sorted(found.items()))
    assert len(found) <= CEILING, (
        f"{len(found)} modules import privately, more than CEILING = {CEILING}: import "
        f"from the package's face (export the name there) instead\n{listing}"
    )
    assert len(found) >= CEILING, f"{len(found)} now: lower CEILING to {len(found)}"


PLANTED = {
    "a name from a private module": "from orchestrator.sweep._core import Engine\n",
    "a private module, bound": "import orchestrator.sweep._runner as runner\n",
    "a private module from its package": "from orchestrator.report import _measures\n",
    "a private name of a public module": "from orchestrator.lint import _trivial\n",
    "the sandbox's private module": "from sandbox._gc import lock_held\n",
    "a lazy import in a test": (
        "def test_x() -> None:\n    from orchestrator.llm._retry import parse_retry_after\n"
    ),
}


@pytest.mark.parametrize("bug", list(PLANTED))
def test_a_planted_private_import_is_counted(bug: str) -> None:
    """The count is not vacuous: a new module importing privately is one more."""
    planted = {**SOURCES, "tests/core/test_planted.py": PLANTED[bug]}
    found = private_importers(planted)
    assert "tests/core/test_planted.py" in found
    assert len(found) == len(private_importers(SOURCES)) + 1


@pytest.mark.parametrize(
    "text",
    [
        "from orchestrator.sweep import Engine, SweepResources\n",
        "import orchestrator.sweep\n",
        "from orchestrator import sweep\n",
        "from sandbox import Labels, __version__\n",
        "from tests.fakes import _helper\nimport _thread\n",
        "from . import _local\n",
    ],
)
def test_a_public_import_is_not_counted(text: str) -> None:
    assert private_imports("tests/core/test_planted.py", text) == []


def main() -> None:
    found = private_importers(SOURCES)
    grader = sum(from_grader(names) for names in found.values())
    print(
        f"{len(found)} of {len(SOURCES)} modules under tests/ import privately "
        f"({100 * len(found) / len(SOURCES):.1f} %); {grader} of them from the grader's "
        f"packages ({', '.join(GRADER_UNITS)}); CEILING = {CEILING}"
    )
    for path, names in sorted(found.items()):
        print(f"  {path}: {', '.join(names)}")


if __name__ == "__main__":
    main()
