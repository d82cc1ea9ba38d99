"""A cell's end is decided once and never rewritten (#57).

How a delivery ended (`orchestrator.cell.CellEnd`: finished, a budget stop, the disk
limit, a broken tree) is decided where the delivery ends (`cell/_deliver.py`) and carried
as it is by the `Delivery` and the `CellReport`. Read from the source:

- the end's variants and the `Delivery` are constructed only in `cell/_deliver.py` (and
  `cell/_staged.py` hands the delivery its counts; a report's default end, `Finished()`,
  is `cell/_context.py`'s);
- nothing rewrites an end afterwards: no `replace(..., end=...)` (nor the strings it
  replaced: `stopped`, `stopped_by`, `ended`), no `x.end = ...`;
- grading reads the delivery, never the `StagedRun` that produced it.

Each rule catches a planted violation.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
Sources = dict[str, str]  # path relative to the root → text

END_TYPES = {"Finished", "BudgetStopped", "DiskLimitHit", "TreeBroken"}
# Where each constructor may be called.
BUILT_IN: dict[str, set[str]] = {
    **{t: {"orchestrator/cell/_deliver.py"} for t in END_TYPES},
    "Finished": {"orchestrator/cell/_deliver.py", "orchestrator/cell/_context.py"},
    "Delivery": {"orchestrator/cell/_staged.py"},
}
END_FIELDS = {"end", "stopped", "stopped_by", "ended"}
GRADE = "orchestrator/cell/_grade.py"


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def end_problems(sources: Sources) -> list[str]:
    found: list[str] = []
    for path, text in sources.items():
        for node in ast.walk(ast.parse(text)):
            where = f"{path}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.Call):
                name = _name(node.func)
                if name in BUILT_IN and path not in BUILT_IN[name]:
                    found.append(f"{where}: constructs {name} outside where the end is decided")
                rewritten = {k.arg or "" for k in node.keywords} & END_FIELDS
                if name == "replace" and rewritten:
                    found.append(f"{where}: rewrites the end ({', '.join(sorted(rewritten))})")
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, ast.AugAssign | ast.AnnAssign):
                targets = [node.target]
            for t in targets:
                if isinstance(t, ast.Attribute) and t.attr in END_FIELDS - {"stopped"}:
                    found.append(f"{where}: rewrites the end (.{t.attr} =)")
            if path == GRADE and isinstance(node, ast.Name | ast.alias):
                name = node.id if isinstance(node, ast.Name) else node.name
                if name == "StagedRun":
                    found.append(f"{where}: grading reads the StagedRun, not the delivery")
    return found


SOURCES: Sources = {
    str(p.relative_to(ROOT)): p.read_text() for p in sorted((ROOT / "orchestrator").rglob("*.py"))
}


def test_the_end_is_decided_once_and_never_rewritten() -> None:
    assert end_problems(SOURCES) == []


@pytest.mark.parametrize(
    ("path", "line", "problem"),
    [
        ("orchestrator/sweep/_x.py", "e = BudgetStopped(kind='tokens', reason='x')", "constructs"),
        ("orchestrator/cell/_grade.py", "e = cell.TreeBroken(reason='x')", "constructs"),
        ("orchestrator/regrade/_x.py", "d = Delivery(end=e)", "constructs Delivery"),
        ("orchestrator/sweep/_x.py", "r = msgspec.structs.replace(r, end=e)", "rewrites"),
        ("orchestrator/sweep/_x.py", "r = replace(r, stopped='x', stopped_by=k)", "rewrites"),
        ("orchestrator/sweep/_x.py", "report.end = e", "rewrites"),
        ("orchestrator/cell/_deliver.py", "run.ended = 'x'", "rewrites"),
        (GRADE, "from ._staged import StagedRun", "reads the StagedRun"),
        (GRADE, "def grade(run: StagedRun) -> None: ...", "reads the StagedRun"),
    ],
)
def test_a_planted_rewrite_fails(path: str, line: str, problem: str) -> None:
    """The rule is not vacuous: each planted violation is caught."""
    planted = {**SOURCES, path: SOURCES.get(path, "") + "\n" + line + "\n"}
    assert any(problem in p for p in end_problems(planted)), end_problems(planted)
