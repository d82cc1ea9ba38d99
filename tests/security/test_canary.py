"""The canary marks every grader-only file, and no solver-visible byte carries it.

For every shipped task: the fake LLM solver plays the whole task through the workspace
tools (over real HTTP to the scripted provider), the persona says everything it can say
(reveals, full spec, every FAQ answer, pushback quoting every check), and every read
tool is run over the whole tree. Then every request the provider received (system
prompt, user messages, tool results), every tool result and every workspace byte is
scanned for the canary.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orchestrator.contract import (
    CANARY,
    CANARY_LINE,
    ContractError,
    discover_tasks,
    grader_only_files,
    load_task,
)
from orchestrator.llm import AgentOptions, FakeProvider, ProviderConfig, ProviderPool, ToolCall
from orchestrator.persona import SimulatedUser
from orchestrator.records import CheckResult
from orchestrator.solvers import LLMSolver, UserMessage, run_tool
from orchestrator.workspace import Workspace
from tests.fixtures.tinytask import make_tiny_task

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[2]
TASKS = discover_tasks(ROOT / "tasks")
KEY_ENV = "PWB_TEST_CANARY_KEY"


def test_every_grader_only_file_of_every_shipped_task_carries_the_canary() -> None:
    assert len(TASKS) >= 10
    for task in TASKS:
        files = list(grader_only_files(task))
        kinds = {f.parent.name for f in files}
        assert {"reference", "negatives"} <= kinds, task.name
        assert any(f.suffix == ".json" for f in files), f"{task.name}: no evidence text"
        for f in files:
            assert CANARY.encode() in f.read_bytes(), f


@pytest.mark.parametrize(
    "rel", ["reference/u1.patch", "negatives/drop-about.patch", "task.toml", "evidence/r0/a.txt"]
)
def test_the_loader_refuses_a_grader_file_without_the_canary(tmp_path: Path, rel: str) -> None:
    root = make_tiny_task(tmp_path / "tasks")
    target = root / rel
    if not target.exists():
        target.parent.mkdir(parents=True)
        target.write_text("page text\n")
    else:
        target.write_text(target.read_text().replace(CANARY_LINE, "").replace(CANARY, "x"))
    with pytest.raises(ContractError, match=f"{rel}: expected the canary line"):
        load_task(root)


def test_old_evidence_without_the_canary_says_recapture_in_one_line(tmp_path: Path) -> None:
    # #38: evidence captured before the canary existed: one line naming the command.
    root = make_tiny_task(tmp_path / "tasks")
    for side in ("r0", "reference"):
        (root / "evidence" / side).mkdir(parents=True)
        for name in ("home.txt", "home.aria.yaml", "home.anchors.json"):
            (root / "evidence" / side / name).write_text("{}\n")
    with pytest.raises(ContractError) as caught:
        load_task(root)
    (line,) = caught.value.problems
    assert "(and 5 more evidence files)" in line, line
    assert line.endswith(f"re-capture it: python -m orchestrator capture {root.resolve()}"), line


def _walk_bytes(root: Path) -> list[tuple[str, bytes]]:
    return [
        (p.relative_to(root).as_posix(), p.read_bytes())
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink()
    ]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.parametrize("task_dir", TASKS, ids=[t.name for t in TASKS])
async def test_no_solver_visible_byte_carries_the_canary(
    task_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    task = load_task(task_dir)
    units = task.contract.units
    user = SimulatedUser(task.contract)
    shown: list[str] = [user.full_spec(), user.nudge()]
    shown += [user.answer(f.question, units) for u in units for f in u.faq]
    failures = [
        CheckResult(id=c.id, gate=c.gate, state=c.state, passed=False, message=c.describe)
        for c in task.contract.checks
    ]
    shown.append(user.pushback(failures))
    ws = await Workspace.create(task.repo, tmp_path / "ws", task.contract.allowed_paths)
    monkeypatch.setenv(KEY_ENV, "sk-canary-test")
    async with FakeProvider(task_dir=task.root) as fake:
        cfg = ProviderConfig(
            name="fake", kind="openai", model="m", base_url=fake.base_url, api_key_env=KEY_ENV
        )
        async with ProviderPool([cfg]) as pool:
            solver = LLMSolver(pool.client("fake"), AgentOptions())
            for i, unit in enumerate(units):
                text = user.reveal(unit, i)
                shown.append(text)
                message = UserMessage(kind="reveal", text=text, unit_id=unit.id, unit_index=i)
                await solver.respond(message, ws)
            shown.append(solver.system_prompt(ws))
        requests = fake.requests
    assert requests, "the provider saw no request"
    shown += [json.dumps(r.body) for r in requests]
    files = await ws.list_files()
    calls = [("list_files", {}), ("search", {"pattern": "."}), ("search", {"pattern": "canary"})]
    calls += [("read_file", {"path": p}) for p in files]
    for n, (name, args) in enumerate(calls):
        call = ToolCall(id=f"c{n}", name=name, arguments_json=json.dumps(args))
        out = await run_tool(call, ws, vision=False, screenshots=())
        shown.append(out.content)
    leaks = [s[:200] for s in shown if CANARY in s or "pwb-canary" in s]
    assert leaks == []
    for rel, data in _walk_bytes(ws.root):
        assert CANARY.encode() not in data, rel
