"""A solver has a lifecycle, not capabilities to probe (#57).

The cell binds every solver the same way (`async with solver.bind(CellBinding(...))`)
and the sweep reads every solver's `verdict()`: no `isinstance` check on a solver and no
`attach_*` call anywhere in the harness outside `orchestrator/solvers/`, where a solver
is made. Read from the source; a planted probe is caught.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOLVERS = "orchestrator/solvers/"


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id.lower()
    return node.attr.lower() if isinstance(node, ast.Attribute) else ""


def probe_problems(sources: dict[str, str]) -> list[str]:
    found: list[str] = []
    for path, text in sources.items():
        if path.startswith(SOLVERS):
            continue
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, ast.Call):
                continue
            where = f"{path}:{node.lineno}"
            func = node.func
            if isinstance(func, ast.Name) and func.id == "isinstance" and node.args:
                if "solver" in _name(node.args[0]):
                    found.append(f"{where}: probes the solver ({ast.unparse(node)})")
            if isinstance(func, ast.Attribute) and func.attr.startswith("attach_"):
                if "solver" in _name(func.value):
                    found.append(f"{where}: attaches to a solver ({ast.unparse(node)})")
    return found


SOURCES = {
    str(p.relative_to(ROOT)): p.read_text() for p in sorted((ROOT / "orchestrator").rglob("*.py"))
}


def test_no_solver_is_probed_or_attached() -> None:
    assert probe_problems(SOURCES) == []


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ("orchestrator/cell/_deliver.py", "ok = isinstance(solver, SandboxedSolver)"),
        (
            "orchestrator/sweep/_runner.py",
            "v = solver.verdict() if isinstance(self.solver, J) else 0",
        ),
        ("orchestrator/sweep/_runner.py", "solver.attach_gateway(gw, '', key)"),
    ],
)
def test_a_planted_probe_fails(path: str, line: str) -> None:
    planted = {**SOURCES, path: SOURCES[path] + "\n" + line + "\n"}
    assert len(probe_problems(planted)) == 1, probe_problems(planted)
