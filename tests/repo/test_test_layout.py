"""Test helpers live in helper modules, not in test modules (#57).

A `test_*` module holds tests. What several modules share (a builder, a fake, a constant,
a fixture) lives where any of them can import it: `tests/fixtures/<name>.py`, a shared
module of `tests/` (`fakes.py`, `rows.py`, `layers.py`, ...) or a `conftest.py`. So no
module under `tests/` imports a `test_*` module: not `from tests.x.test_y import h`, not
`from tests.x import test_y`, not `import tests.x.test_y`, not a relative
`from .test_y import h`, not `import test_y` off `sys.path`, not
`importlib.import_module("tests.x.test_y")`; at module level or inside a function. Each
one found fails here with its file and line.

One exception, `RUNS_TESTS`: a module whose tests run other modules' tests
(`test_planted_bugs.py` plants each bug of #18 and #35 in the real code and runs the test
that guards against it). It may import a test module as a whole
(`from tests.x import test_y`) and use nothing of it but its tests (`test_y.test_*`); a
helper it needs is imported from a helper module like anyone else's.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Modules that run other modules' tests, and why.
RUNS_TESTS: dict[str, str] = {
    "tests/mutants/test_planted_bugs.py": "runs each planted bug's guard, a test elsewhere",
}


def read_tests(root: Path) -> dict[str, str]:
    """Every module under `root/tests`: path relative to `root` → text."""
    return {
        path.relative_to(root).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted((root / "tests").rglob("*.py"))
    }


def is_test_module(dotted: str) -> bool:
    return any(part.startswith("test_") for part in dotted.split("."))


def resolve(path: str, level: int, module: str) -> str:
    """The dotted module a `from` import in `path` names (`level` dots, then `module`)."""
    if not level:
        return module
    package = Path(path).with_suffix("").parts[:-1]
    base = package[: len(package) - level + 1]
    return ".".join([*base, *([module] if module else [])])


def imported_by_name(node: ast.Call) -> str:
    """The module `importlib.import_module("m")` or `__import__("m")` names ('' if none)."""
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if name not in ("import_module", "__import__") or not node.args:
        return ""
    arg = node.args[0]
    return arg.value if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else ""


def module_problems(path: str, text: str, runs_tests: bool) -> list[str]:
    problems = []
    bound: dict[str, str] = {}  # name → the test module it is, where `runs_tests` allows it
    tree = ast.parse(text, path)
    for node in ast.walk(tree):
        where = f"{path}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Import):
            for alias in node.names:
                if is_test_module(alias.name):
                    problems.append(f"{where}: imports the test module {alias.name}")
        elif isinstance(node, ast.ImportFrom):
            target = resolve(path, node.level, node.module or "")
            if is_test_module(target):
                names = ", ".join(alias.name for alias in node.names)
                problems.append(f"{where}: imports {names} from the test module {target}")
                continue
            for alias in node.names:
                if not alias.name.startswith("test_"):
                    continue
                if runs_tests:
                    bound[alias.asname or alias.name] = f"{target}.{alias.name}"
                else:
                    problems.append(f"{where}: imports the test module {target}.{alias.name}")
        elif isinstance(node, ast.Call) and is_test_module(imported_by_name(node)):
            problems.append(f"{where}: imports the test module {imported_by_name(node)}")
    if bound:
        problems += _uses_beyond_tests(path, tree, bound)
    return problems


def _uses_beyond_tests(path: str, tree: ast.Module, bound: dict[str, str]) -> list[str]:
    """Each use of a test module bound in `bound` that is not one of its `test_*`."""
    tests = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.attr.startswith("test_")
    }
    return [
        f"{path}:{node.lineno}: uses {bound[node.id]} for more than its tests"
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and node.id in bound and id(node) not in tests
    ]


def layout_problems(sources: dict[str, str]) -> list[str]:
    return [
        problem
        for path, text in sources.items()
        for problem in module_problems(path, text, path in RUNS_TESTS)
    ]


def test_no_module_under_tests_imports_a_test_module() -> None:
    problems = layout_problems(read_tests(ROOT))
    assert not problems, "\n".join(problems)


def test_every_module_that_runs_tests_is_here_and_imports_a_test_module() -> None:
    """An exception that no longer applies is dropped from `RUNS_TESTS`."""
    for path in RUNS_TESTS:
        tree = ast.parse((ROOT / path).read_text(encoding="utf-8"), path)
        assert any(
            isinstance(node, ast.ImportFrom)
            and any(alias.name.startswith("test_") for alias in node.names)
            for node in ast.walk(tree)
        ), path


def _tree(root: Path, files: dict[str, str]) -> dict[str, str]:
    """A small tests/ tree on disk, read back as the real one is."""
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return read_tests(root)


HELPERS = {
    "tests/conftest.py": "import pytest\n",
    "tests/fixtures/__init__.py": "",
    "tests/fixtures/site.py": "def build() -> int:\n    return 1\n",
    "tests/core/__init__.py": "",
    "tests/core/test_site.py": (
        "from tests.fixtures.site import build\n\n\n"
        "def _helper() -> int:\n    return build()\n\n\n"
        "def test_site() -> None:\n    assert _helper() == 1\n"
    ),
}
PLANTED_IN = "tests/core/test_other.py"
RUNNER = "tests/mutants/test_planted_bugs.py"

# A module's text → the problem it must be reported with. Each goes in `PLANTED_IN`,
# but those given as (path, text), which go in `path`.
PLANTED: dict[str, tuple[str | tuple[str, str], str]] = {
    "a helper from a test module": (
        "from tests.core.test_site import _helper\n",
        f"{PLANTED_IN}:1: imports _helper from the test module tests.core.test_site",
    ),
    "a relative import of a helper": (
        "import os\nfrom .test_site import _helper\n",
        f"{PLANTED_IN}:2: imports _helper from the test module tests.core.test_site",
    ),
    "a test module from its package": (
        "from tests.core import test_site\n",
        f"{PLANTED_IN}:1: imports the test module tests.core.test_site",
    ),
    "a relative import of the module": (
        "from . import test_site as site\n",
        f"{PLANTED_IN}:1: imports the test module tests.core.test_site",
    ),
    "a plain import": (
        "import tests.core.test_site\n",
        f"{PLANTED_IN}:1: imports the test module tests.core.test_site",
    ),
    "an import off sys.path": (
        "import test_site as sql\n",
        f"{PLANTED_IN}:1: imports the test module test_site",
    ),
    "a lazy import in a test": (
        "def test_x() -> None:\n    from tests.core.test_site import _helper\n",
        f"{PLANTED_IN}:2: imports _helper from the test module tests.core.test_site",
    ),
    "an import by name": (
        'import importlib\n\nsite = importlib.import_module("tests.core.test_site")\n',
        f"{PLANTED_IN}:3: imports the test module tests.core.test_site",
    ),
    "a helper module importing a test module": (
        ("tests/fixtures/more.py", "from tests.core.test_site import _helper\n"),
        "tests/fixtures/more.py:1: imports _helper from the test module tests.core.test_site",
    ),
    "the runner using a test module's helper": (
        (RUNNER, "from tests.core import test_site\n\nx = test_site._helper()\n"),
        f"{RUNNER}:3: uses tests.core.test_site for more than its tests",
    ),
    "the runner importing a helper from a test module": (
        (RUNNER, "from tests.core.test_site import _helper\n"),
        f"{RUNNER}:1: imports _helper from the test module tests.core.test_site",
    ),
}


@pytest.mark.parametrize("bug", list(PLANTED))
def test_a_planted_import_of_a_test_module_is_caught(bug: str, tmp_path: Path) -> None:
    """The check is not vacuous: each planted import is reported, with its file and line."""
    planted, caught = PLANTED[bug]
    path, text = planted if isinstance(planted, tuple) else (PLANTED_IN, planted)
    assert layout_problems(_tree(tmp_path, {**HELPERS, path: text})) == [caught]


def test_a_clean_tree_passes(tmp_path: Path) -> None:
    """Helpers from helper modules and a runner that uses only tests: nothing to report."""
    clean = {
        **HELPERS,
        PLANTED_IN: "from tests.fixtures.site import build\nfrom .. import conftest\n",
        RUNNER: "from tests.core import test_site\n\nguard = test_site.test_site\n",
    }
    assert layout_problems(_tree(tmp_path, clean)) == []
