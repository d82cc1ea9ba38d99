"""Every cancellation shield is bounded (#40, STYLE.md "Cleanup is shielded and
bounded"): a bare `CancelScope(shield=True)` can hang a cell, or the sweep, forever.

Allowed: `move_on_after(t, shield=True)` / `fail_after(t, shield=True)`, or a shielded
`CancelScope` entered in the same `with` as a `move_on_after`/`fail_after` under it.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TIMEOUTS = {"move_on_after", "fail_after"}


def _name(call: ast.expr) -> str:
    func = call.func if isinstance(call, ast.Call) else call
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _shielded(call: ast.expr) -> bool:
    return isinstance(call, ast.Call) and any(
        k.arg == "shield" and isinstance(k.value, ast.Constant) and k.value.value is True
        for k in call.keywords
    )


def unbounded_shields(source: str, path: str) -> list[str]:
    problems = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.With | ast.AsyncWith):
            continue
        calls = [item.context_expr for item in node.items]
        bounded = any(_name(c) in TIMEOUTS for c in calls)
        for c in calls:
            if _name(c) == "CancelScope" and _shielded(c) and not bounded:
                problems.append(f"{path}:{node.lineno}: a shield with no bound")
    return problems


def test_every_shield_is_bounded() -> None:
    problems = [
        p
        for top in ("orchestrator", "sandbox")
        for path in sorted((ROOT / top).rglob("*.py"))
        for p in unbounded_shields(path.read_text(), str(path.relative_to(ROOT)))
    ]
    assert not problems, "\n".join(problems)


def test_a_bare_shield_is_caught() -> None:
    planted = (
        "async def f():\n"
        "    with anyio.CancelScope(shield=True):\n"
        "        await g()\n"
        "    with anyio.CancelScope(shield=True), anyio.move_on_after(5):\n"
        "        await g()\n"
        "    with anyio.move_on_after(5, shield=True):\n"
        "        await g()\n"
    )
    assert unbounded_shields(planted, "x.py") == ["x.py:2: a shield with no bound"]
