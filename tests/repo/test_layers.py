"""The layers of `orchestrator` and `sandbox`, read from the source (#40).

Every import in `orchestrator/` and `sandbox/` (lazy and `TYPE_CHECKING` ones included)
is an arrow between two *units*: a subpackage of `orchestrator` (`sweep`, `llm`, ...), a
top-level module of it (`config`, `budget`, ...), or `sandbox` as a whole. `LAYERS`
(`tests/layers.py`) lists the units top first; an arrow may only point to a lower layer,
so units of one layer are independent of each other and an arrow running back up fails
here with its file and line. A new unit must be placed in `LAYERS` before it can import
or be imported. `APART` forbids a few arrows the order would allow (the report never
imports a solver).

One level inside a unit, `INNER` orders its rooms the same way (the `verifier`'s
`_replay/`, `_browser/`, ...: an inner package, or a module beside them, is a room):
an arrow between two rooms of one unit may only point to a lower row.

Besides the order: no import cycle among the modules of one folder, and no private name
(`_x`, or anything from a `_x` module) imported from another package: a package's
public surface is its `__init__`.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.layers import INNER, LAYERS

ROOT = Path(__file__).resolve().parents[2]
TOPS = ("orchestrator", "sandbox")

# Arrows the order allows but the design does not: the report reads a run's rows and
# events, never the machinery that produced them.
APART: dict[str, set[str]] = {
    "report": {"cell", "gateway", "llm", "sandbox", "solvers", "verifier", "workspace"},
}


@dataclass(frozen=True)
class Arrow:
    source: str  # importing module, dotted
    target: str  # imported module, dotted (the deepest one that exists)
    name: str  # the imported name ('' for `import x`, or when `name` is a module)
    where: str  # file:line

    def __str__(self) -> str:
        what = f"{self.target}.{self.name}" if self.name else self.target
        return f"{self.where}: {self.source} imports {what}"


Sources = dict[str, str]  # path relative to the root → text


def read_sources(root: Path) -> Sources:
    """The harness's modules (the `new` skeletons under orchestrator/templates/ are a
    task's R0 files, data the harness copies, never imported)."""
    return {
        str(path.relative_to(root)): path.read_text()
        for top in TOPS
        for path in sorted((root / top).rglob("*.py"))
        if "templates" not in path.relative_to(root / top).parts
    }


SOURCES = read_sources(ROOT)


def modules(sources: Sources) -> dict[str, tuple[str, bool]]:
    """Dotted name → (file, is a package's __init__) for every module."""
    found = {}
    for path in sources:
        parts = list(Path(path).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        found[".".join(parts[:-1] if is_pkg else parts)] = (path, is_pkg)
    return found


def arrows(sources: Sources) -> list[Arrow]:
    mods = modules(sources)
    found = []
    for name, (path, is_pkg) in mods.items():
        package = name if is_pkg else name.rpartition(".")[0]
        for level, target, names, line in _imports(path, sources[path]):
            where = f"{path}:{line}"
            if level:
                base = package.split(".")[: len(package.split(".")) - level + 1]
                target = ".".join([*base, *([target] if target else [])])
            if target.split(".")[0] not in TOPS:
                continue
            for alias in names or ("",):
                sub = f"{target}.{alias}"
                if not alias or sub in mods:
                    found.append(Arrow(name, sub if alias else target, "", where))
                else:
                    found.append(Arrow(name, target, alias, where))
    return found


@functools.cache
def _imports(path: str, text: str) -> list[tuple[int, str, tuple[str, ...], int]]:
    """(level, module, names, line) per import; `import x` as (0, 'x', (), line)."""
    found: list[tuple[int, str, tuple[str, ...], int]] = []
    for node in ast.walk(ast.parse(text, path)):
        if isinstance(node, ast.Import):
            found += [(0, alias.name, (), node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = tuple(alias.name for alias in node.names)
            found.append((node.level, node.module or "", names, node.lineno))
    return found


def unit(module: str) -> str:
    """`orchestrator.sweep._ray` → 'sweep'; `orchestrator.config` → 'config'; `sandbox.*`
    → 'sandbox'; the bare package `orchestrator` → '' (its `__init__` is empty: importing
    it is for its `__file__`, not an arrow)."""
    parts = module.split(".")
    if parts[0] == "sandbox":
        return "sandbox"
    return parts[1] if len(parts) > 1 else ""


def is_private(part: str) -> bool:
    return part.startswith("_") and not part.startswith("__")


def package_of(module: str, mods: dict[str, tuple[str, bool]]) -> str:
    return module if mods[module][1] else module.rpartition(".")[0]


def layer_problems(sources: Sources) -> list[str]:
    index = {u: i for i, layer in enumerate(LAYERS) for u in layer}
    problems = []
    for arrow in arrows(sources):
        src, dst = unit(arrow.source), unit(arrow.target)
        if not src or not dst or src == dst:
            continue
        for u in (src, dst):
            if u not in index:
                problems.append(f"{arrow}: unit {u!r} is in no layer (place it in LAYERS)")
        if src in index and dst in index and index[dst] <= index[src]:
            up = "up" if index[dst] < index[src] else "sideways"
            problems.append(f"{arrow}: {src} → {dst} runs {up} the layers")
        if dst in APART.get(src, set()):
            problems.append(f"{arrow}: {src} must not import {dst}")
    return problems


def room(module: str) -> str:
    """`orchestrator.verifier._replay._state` → '_replay'; `orchestrator.verifier._seam` →
    '_seam'; the package itself → '__init__'."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 else "__init__"


def inner_problems(sources: Sources) -> list[str]:
    problems = []
    for arrow in arrows(sources):
        outer = unit(arrow.source)
        if outer not in INNER or unit(arrow.target) != outer:
            continue
        index = {r: i for i, row in enumerate(INNER[outer]) for r in row}
        src, dst = room(arrow.source), room(arrow.target)
        if src == dst:
            continue
        for r in (src, dst):
            if r not in index:
                problems.append(f"{arrow}: room {outer}/{r} is in no row (place it in INNER)")
        if src in index and dst in index and index[dst] <= index[src]:
            up = "up" if index[dst] < index[src] else "sideways"
            problems.append(f"{arrow}: {outer}/{src} → {outer}/{dst} runs {up} the rooms")
    return problems


def private_problems(sources: Sources) -> list[str]:
    mods = modules(sources)
    problems = []
    for arrow in arrows(sources):
        if not arrow.target or unit(arrow.target) == "":
            continue
        target_pkg = package_of(arrow.target, mods) if arrow.target in mods else arrow.target
        if target_pkg == package_of(arrow.source, mods):
            continue
        inside = arrow.target.split(".")[len(target_pkg.split(".")) :]
        if any(is_private(p) for p in [*inside, *arrow.name.split(".")] if p):
            problems.append(f"{arrow}: a private name of another package")
    return problems


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def folder_cycles(sources: Sources) -> list[list[str]]:
    """Import cycles among the plain modules of one folder (`__init__` aside)."""
    mods = modules(sources)
    graph: dict[str, set[str]] = {}
    for arrow in arrows(sources):
        src, dst = arrow.source, arrow.target
        if dst in mods and not mods[src][1] and not mods[dst][1] and src != dst:
            if src.rpartition(".")[0] == dst.rpartition(".")[0]:
                graph.setdefault(src, set()).add(dst)
    return cycles(graph)


def unit_cycles(sources: Sources) -> list[list[str]]:
    graph: dict[str, set[str]] = {}
    for arrow in arrows(sources):
        src, dst = unit(arrow.source), unit(arrow.target)
        if src and dst and src != dst:
            graph.setdefault(src, set()).add(dst)
    return cycles(graph)


def test_imports_run_down_the_layers() -> None:
    problems = layer_problems(SOURCES)
    assert not problems, "\n".join(problems)


def test_imports_run_down_the_rooms() -> None:
    problems = inner_problems(SOURCES)
    assert not problems, "\n".join(problems)


def test_every_room_is_placed_once() -> None:
    mods = modules(SOURCES)
    for outer, rows in INNER.items():
        placed = [r for row in rows for r in row]
        assert len(placed) == len(set(placed)), outer
        present = {room(m) for m in mods if unit(m) == outer and m.startswith("orchestrator.")}
        assert present == set(placed), (outer, present - set(placed), set(placed) - present)


def test_no_cycle_between_units() -> None:
    found = unit_cycles(SOURCES)
    assert not found, "\n".join(" ↔ ".join(c) for c in found)


def test_no_cycle_inside_a_folder() -> None:
    found = folder_cycles(SOURCES)
    assert not found, "\n".join(" ↔ ".join(c) for c in found)


def test_no_private_name_imported_across_packages() -> None:
    problems = private_problems(SOURCES)
    assert not problems, "\n".join(problems)


def test_every_unit_is_placed_once() -> None:
    placed = [u for layer in LAYERS for u in layer]
    assert len(placed) == len(set(placed))
    present = {unit(m) for m in modules(SOURCES)} - {""}
    assert present == set(placed), (present - set(placed), set(placed) - present)


@pytest.mark.parametrize(
    ("path", "line", "problem"),
    [
        ("orchestrator/contract/_x.py", "from ..sweep import run_sweep", "runs up"),
        ("sandbox/_x.py", "from orchestrator.config import BenchConfig", "runs up"),
        ("orchestrator/llm/_x.py", "from ..gateway import Gateway", "runs up"),
        ("orchestrator/llm/_x.py", "from ..workspace import Workspace", "runs sideways"),
        ("orchestrator/report/_x.py", "from ..solvers import Solver", "report must not"),
        ("orchestrator/cell/_x.py", "from ..solvers._llm import LLMSolver", "private"),
        ("orchestrator/cell/_x.py", "from ..solvers import _factory", "private"),
        ("orchestrator/sweep/_x.py", "from ..nowhere import y", "in no layer"),
        ("orchestrator/sweep/_a.py", "from ._b import y", "cycle"),
    ],
)
def test_a_planted_arrow_fails(path: str, line: str, problem: str) -> None:
    """The checks are not vacuous: each planted arrow is caught."""
    planted = {**SOURCES, path: line + "\ny = 1\n", "orchestrator/nowhere.py": "y = 1\n"}
    if problem == "cycle":
        planted["orchestrator/sweep/_b.py"] = "from ._a import y\n"
    found = [*layer_problems(planted), *private_problems(planted)]
    found += [" ".join(c) + " cycle" for c in folder_cycles(planted) + unit_cycles(planted)]
    assert any(problem in p for p in found), found


@pytest.mark.parametrize(
    ("path", "line", "problem"),
    [
        ("orchestrator/verifier/_browser/_x.py", "from .._replay import ReplayOptions", "runs up"),
        ("orchestrator/verifier/_core/_x.py", "from .._reuse import ReuseCache", "runs up"),
        ("orchestrator/verifier/_verify/_x.py", "from .._a11y import A11Y_ID", "runs up"),
        ("orchestrator/verifier/_a11y/_x.py", "from .._seam import Verifier", "runs sideways"),
        ("orchestrator/verifier/_replay/_x.py", "from .._browser._pool import CHROMIUM", "private"),
        ("orchestrator/verifier/_nowhere/_x.py", "from .._core import RunHealth", "in no row"),
        ("orchestrator/sweep/_core.py", "from ._runner import run_cell", "runs up"),
        ("orchestrator/sweep/_runner.py", "from ._progress import Progress", "runs sideways"),
        ("orchestrator/report/_stats.py", "from ._model import RunModel", "runs up"),
        ("orchestrator/report/_newroom.py", "from ._stats import wilson", "in no row"),
        ("orchestrator/llm/_openai.py", "from ._anthropic import Anthropic", "runs sideways"),
        ("orchestrator/llm/_types.py", "from ._client import LLMClient", "runs up"),
    ],
)
def test_a_planted_arrow_between_rooms_fails(path: str, line: str, problem: str) -> None:
    """The room order is not vacuous: each planted arrow is caught."""
    planted = {**SOURCES, path: line + "\ny = 1\n"}
    found = [*inner_problems(planted), *private_problems(planted)]
    assert any(problem in p for p in found), found
