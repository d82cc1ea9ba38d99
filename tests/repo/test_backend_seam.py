"""No caller asks which sandbox backend it holds (#40): the backend owns its network,
reaping, lost-daemon wait and task image (`sandbox.ManagedBackend`), so outside
`sandbox/` nothing compares a backend's name or checks for a backend class."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BACKEND_CLASSES = {"DockerBackend", "LocalBackend"}


def _branches(source: str) -> list[int]:
    """Lines that branch on a backend: `<x>.name ==/!= <str>` where x names a backend,
    or `isinstance(_, DockerBackend|LocalBackend)`."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare) and isinstance(node.left, ast.Attribute):
            owner = ast.unparse(node.left.value)
            if node.left.attr == "name" and "backend" in owner.lower():
                out.append(node.lineno)
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "isinstance":
            if BACKEND_CLASSES & {n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)}:
                out.append(node.lineno)
    return out


@pytest.mark.fast
def test_no_caller_branches_on_the_backend() -> None:
    found = [
        f"{p.relative_to(ROOT)}:{line}"
        for p in sorted((ROOT / "orchestrator").rglob("*.py"))
        for line in _branches(p.read_text())
    ]
    assert found == [], f"branches on the backend's kind (make it a backend hook): {found}"


@pytest.mark.fast
@pytest.mark.parametrize(
    "planted",
    [
        'if self.backend.name != "docker" or self.image:\n    pass',
        'if backend.name == "docker":\n    pass',
        "if isinstance(backend, DockerBackend):\n    pass",
    ],
)
def test_the_guard_sees_a_planted_branch(planted: str) -> None:
    assert _branches(planted) == [1]
