"""No blocking call on an event loop on the Ray path (#40), read from the source.

A node runs hundreds of cells on one event loop: a `ray.get` there stalls every one of
them for a round trip (the cluster ledger did, once per LLM call). In every module that
imports Ray:

- an `async def` never calls `ray.get`, `ray.wait`, a GCS lookup (`ray.nodes`,
  `ray.get_actor`, ...) or `time.sleep` (it awaits the ObjectRef, hands the lookup to a
  worker thread, or `anyio.sleep`s);
- a plain `def` that does is named in `OFF_LOOP` with where it runs instead: a sync
  method called from async code (`ClusterLedger.charge` was one) blocks just the same.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

ROOT = Path(__file__).resolve().parents[2]
# Each waits for a round trip (an object, the GCS) or sleeps. (`ray.init`, at a sweep's
# start and in `gc`, is left out: it connects once, before any cell runs.)
BLOCKING = {
    "ray.get",
    "ray.wait",
    "ray.nodes",
    "ray.get_actor",
    "ray.util.list_named_actors",
    "time.sleep",
}

# Sync functions allowed to block, and why no event loop waits on them.
OFF_LOOP = {
    "_fetch": "CellNode's constructor: a worker thread (NodeHost.open, asyncio.to_thread)",
    "gc_cluster": "the `gc` command: synchronous, no event loop",
    "_spawn_new": "RayEngine.refresh: a worker thread",
    "start_ledger_actor": "open_ray_engine: a worker thread",
    "_stale_hosts": "retire_stale_hosts: a worker thread",
}


def ray_modules() -> list[Path]:
    found = []
    for top in ("orchestrator", "sandbox"):
        for path in sorted((ROOT / top).rglob("*.py")):
            tree = ast.parse(path.read_text())
            for node in ast.walk(tree):
                names = []
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and not node.level:
                    names = [node.module or ""]
                if any(n == "ray" or n.startswith("ray.") for n in names):
                    found.append(path)
                    break
    return found


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


def _own_calls(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.Call]:
    """The calls in `fn`'s own body: not in the functions or lambdas defined inside it
    (a nested `def` handed to a thread runs off the loop; a nested one is checked alone)."""
    calls: list[ast.Call] = []
    todo: list[ast.AST] = list(fn.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        if isinstance(node, ast.Call):
            calls.append(node)
        todo.extend(ast.iter_child_nodes(node))
    return calls


def blocking_calls(source: str, path: str) -> list[str]:
    problems = []
    tree = ast.parse(source)
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for call in _own_calls(fn):
            name = _dotted(call.func)
            if name not in BLOCKING:
                continue
            where = f"{path}:{call.lineno}: {name} in {fn.name}"
            if isinstance(fn, ast.AsyncFunctionDef):
                problems.append(f"{where}, an async def: await it, or hand it to a thread")
            elif fn.name not in OFF_LOOP:
                problems.append(f"{where}, a def not in OFF_LOOP: async callers would block")
    return problems


def test_the_ray_path_is_found() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in ray_modules()}
    assert {"orchestrator/sweep/_ray.py", "orchestrator/sweep/_ray_ledger.py"} <= names, names


@pytest.mark.parametrize("path", ray_modules(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_blocking_call_on_an_event_loop(path: Path) -> None:
    problems = blocking_calls(path.read_text(), path.relative_to(ROOT).as_posix())
    assert not problems, "\n".join(problems)


def test_every_allowed_blocker_still_exists() -> None:
    defined = {
        fn.name
        for path in ray_modules()
        for fn in ast.walk(ast.parse(path.read_text()))
        if isinstance(fn, ast.FunctionDef)
    }
    assert set(OFF_LOOP) <= defined, set(OFF_LOOP) - defined


PLANTED = """
import time
import ray

class ClusterLedger:
    def charge(self, tokens):
        ray.get(self.actor.charge.remote(tokens))

async def attempt(ref):
    def in_a_thread():
        return ray.get(ref)
    time.sleep(1)
    return await ref
"""


def test_a_planted_blocking_call_fails() -> None:
    """A sync method that blocks, a helper for a thread not declared off the loop, and a
    sleep in an async def: each is caught (the first is what `ClusterLedger` did)."""
    problems = sorted(blocking_calls(PLANTED, "planted.py"))
    assert len(problems) == 3, problems
    assert "planted.py:7: ray.get in charge, a def not in OFF_LOOP" in problems[2]
    assert "planted.py:11: ray.get in in_a_thread, a def not in OFF_LOOP" in problems[0]
    assert "planted.py:12: time.sleep in attempt, an async def" in problems[1]


class _Method:
    """A fake actor method: `.remote()` applies at once (Ray runs one caller's calls in
    the order sent) and returns an awaitable that records it was awaited."""

    def __init__(self, fn: Callable[..., Any], awaited: list[str]) -> None:
        self.fn = fn
        self.awaited = awaited

    def remote(self, *args: Any) -> Any:
        result = self.fn(*args)
        name = self.fn.__name__

        async def reply() -> Any:
            await anyio.sleep(0)  # a round trip: the loop runs other cells meanwhile
            self.awaited.append(name)
            return result

        return reply()


class _FakeLedgerActor:
    def __init__(self, max_usd: float) -> None:
        from orchestrator.cluster_ledger import LedgerActor

        self.real = LedgerActor(max_usd=max_usd, max_tokens=None)
        self.awaited: list[str] = []
        self.charge = _Method(self.real.charge, self.awaited)
        self.totals = _Method(self.real.totals, self.awaited)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # Ray's ObjectRefs are awaited on asyncio


@pytest.mark.anyio
async def test_the_cluster_ledger_awaits_the_actor() -> None:
    """Charges are sent at once and awaited by the next `acheck`, before it reads the
    cluster's totals; the cap holds through a cell's child ledger; a blocking `check`
    does not exist."""
    pytest.importorskip("ray")
    from orchestrator.budget import BudgetExceeded
    from orchestrator.sweep._ray_ledger import ClusterLedger

    actor = _FakeLedgerActor(max_usd=1.0)
    cluster = ClusterLedger(max_usd=1.0, cell="c1", node="n1", actor=actor)
    cell = cluster.child()
    await cell.acheck()
    cell.charge(10, 0.6)
    cell.charge(10, 0.6)
    assert actor.real.totals() == (20, 1.2) and actor.awaited == ["totals"]
    with pytest.raises(BudgetExceeded, match="money"):
        await cell.acheck()
    assert actor.awaited == ["totals", "charge", "charge", "totals"] and not cluster.sent
    with pytest.raises(TypeError, match="acheck"):
        cell.check()
    cell.charge(1, 0.0)
    await cluster.flush()
    assert actor.awaited[-1] == "charge" and not cluster.sent
