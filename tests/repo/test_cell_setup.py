"""One builder makes a cell's context (#57).

The sweep, a regrade, admission and the `cell` command build a cell's `CellContext`
through `CellSetup.context` (`orchestrator/cell/_setup.py`), so none of them spells out
its fields. Read from the source: nothing else in the harness calls `CellContext(...)`;
a planted call is caught. (Tests build contexts of their own.)
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILDER = "orchestrator/cell/_setup.py"


def context_problems(sources: dict[str, str]) -> list[str]:
    found: list[str] = []
    for path, text in sources.items():
        if path == BUILDER:
            continue
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.id if isinstance(func, ast.Name) else ""
                name = func.attr if isinstance(func, ast.Attribute) else name
                if name == "CellContext":
                    found.append(f"{path}:{node.lineno}: builds a CellContext by hand")
    return found


SOURCES = {
    str(p.relative_to(ROOT)): p.read_text() for p in sorted((ROOT / "orchestrator").rglob("*.py"))
}


def test_only_the_builder_makes_a_cell_context() -> None:
    assert context_problems(SOURCES) == []


@pytest.mark.parametrize(
    "path",
    ["orchestrator/admission/_admit.py", "orchestrator/regrade/_run.py", "orchestrator/x.py"],
)
def test_a_planted_context_fails(path: str) -> None:
    line = "ctx = cell.CellContext(task=t, backend=b, verifier=v, cell_dir=d, labels=l)"
    planted = {**SOURCES, path: SOURCES.get(path, "") + "\n" + line + "\n"}
    assert len(context_problems(planted)) == 1, context_problems(planted)
