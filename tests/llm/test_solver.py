"""`LLMSolver` end to end: fake provider over loopback HTTP, a real task, a real Workspace."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import trio
from PIL import Image

from orchestrator.admission import SENTINELS
from orchestrator.budget import BudgetExceeded, Ledger
from orchestrator.contract import TaskPackage, discover_tasks, load_task
from orchestrator.llm import (
    AgentOptions,
    FakeProvider,
    Fault,
    ProviderConfig,
    ProviderPool,
    ReferenceBook,
    ToolCall,
)
from orchestrator.solvers import LLMSolver, UserMessage, run_tool

from .conftest import KEY, open_client, reveal, workspace

pytestmark = pytest.mark.anyio
TASKS = Path(__file__).resolve().parents[2] / "tasks"


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    # Workspace uses anyio.to_thread, which anyio 4.16 supports only on trio >= 0.32.
    if request.param == "trio" and tuple(map(int, trio.__version__.split(".")[:2])) < (0, 32):
        pytest.skip(f"trio {trio.__version__} is too old for anyio.to_thread")
    return str(request.param)


def texts(root: Path) -> dict[str, str]:
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_file() and not rel.startswith(".git/"):
            try:
                out[rel] = p.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue
    return out


def tool_messages(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


async def play_reference(task: TaskPackage, tmp: Path, kind: str = "openai") -> None:
    """Every unit: the solver's files equal the reference's, and the turn says edited."""
    ws = await workspace(task, tmp)
    ref = await workspace(task, tmp, "ref")
    async with FakeProvider(task_dir=task.root) as fake, open_client(fake, kind) as client:
        solver = LLMSolver(client, AgentOptions(), ledger=Ledger())
        for i, unit in enumerate(task.contract.units):
            turn = await solver.respond(reveal(task, i), ws)
            await ref.apply_patch(task.reference_patch(unit.id))
            assert turn.end == "edited", unit.id
            got, want = texts(ws.root), texts(ref.root)
            assert got == want, unit.id  # deleted files included (delete_file)
            assert turn.usage.requests == 2 and turn.usage.cost_usd > 0


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
async def test_fixture_task_reference_is_reproduced(
    api_key: str, tiny_task: Path, tmp_path: Path, kind: str
) -> None:
    await play_reference(load_task(tiny_task), tmp_path, kind)


def _shipped_tasks() -> list[object]:
    """Every shipped task, loaded in its test (not at collection); the sentinels in the
    fast tier, the others in the full tier (orchestrator/admission/)."""
    return [
        pytest.param(root, marks=() if root.name in SENTINELS else pytest.mark.full)
        for root in discover_tasks(TASKS)
    ]


@pytest.mark.parametrize("root", _shipped_tasks(), ids=lambda p: p.name)
async def test_real_task_reference_is_reproduced(api_key: str, root: Path, tmp_path: Path) -> None:
    task = load_task(root)
    ReferenceBook([root]).changed_files(task, task.contract.units[-1].id)
    await play_reference(task, tmp_path)


async def test_fake_kind_through_the_pool_needs_no_key(tiny_task: Path, tmp_path: Path) -> None:
    task = load_task(tiny_task)
    ws = await workspace(task, tmp_path)
    cfg = ProviderConfig(name="fake", kind="fake", model="reference")
    async with ProviderPool([cfg], fake_tasks=[tiny_task]) as pool:
        solver = LLMSolver(pool.client("fake"), AgentOptions())
        turn = await solver.respond(reveal(task, 0), ws)
    assert turn.end == "edited" and "Fresh every morning" in await ws.read_file("index.html")


async def test_write_outside_allowed_paths_is_refused_and_explained(
    api_key: str, tiny_task: Path, tmp_path: Path
) -> None:
    task = load_task(tiny_task)
    ws = await workspace(task, tmp_path)
    fault = Fault(kind="outside_path", path="server.py")
    async with FakeProvider(task_dir=tiny_task, faults=[fault]) as fake, open_client(fake) as c:
        turn = await LLMSolver(c, AgentOptions()).respond(reveal(task, 0), ws)
    assert turn.end == "done" and "escaped" not in await ws.read_file("server.py")
    told = tool_messages(fake.requests[1].body)
    assert told and "outside allowed paths" in told[0] and told[0].startswith("error:")


@pytest.mark.parametrize(
    ("kind", "says"),
    [
        ("bad_args", "not valid JSON"),
        ("unknown_tool", "unknown tool 'delete_everything'"),
        ("missing_arg", "missing required argument(s): content"),
    ],
)
async def test_malformed_tool_calls_are_answered_and_count_as_steps(
    api_key: str, tiny_task: Path, tmp_path: Path, kind: str, says: str
) -> None:
    task = load_task(tiny_task)
    ws = await workspace(task, tmp_path)
    async with FakeProvider(task_dir=tiny_task, faults=[Fault(kind=kind)]) as fake:  # type: ignore[arg-type]
        async with open_client(fake) as client:
            solver = LLMSolver(client, AgentOptions())
            turn = await solver.respond(reveal(task, 0), ws)
    assert turn.usage.requests == 2 and turn.end == "done"  # the fake gives up: done
    assert says in tool_messages(fake.requests[1].body)[0]


async def test_step_bound_ends_the_turn(api_key: str, tiny_task: Path, tmp_path: Path) -> None:
    task = load_task(tiny_task)
    ws = await workspace(task, tmp_path)
    fault = Fault(kind="unknown_tool", times=0)
    async with FakeProvider(task_dir=tiny_task, faults=[fault]) as fake, open_client(fake) as c:
        turn = await LLMSolver(c, AgentOptions(max_steps_per_turn=3)).respond(reveal(task, 0), ws)
    assert turn.end == "idle" and len(fake.requests) == 3


async def test_endless_questions_end_each_turn_with_one_request(
    api_key: str, tiny_task: Path, tmp_path: Path
) -> None:
    task = load_task(tiny_task)
    ws = await workspace(task, tmp_path)
    fault = Fault(kind="ask_user", times=0)
    async with FakeProvider(task_dir=tiny_task, faults=[fault]) as fake, open_client(fake) as c:
        solver = LLMSolver(c, AgentOptions())
        answer = UserMessage(kind="answer", text="Not specified.", unit_id="u1", unit_index=0)
        for n in range(1, 5):
            turn = await solver.respond(reveal(task, 0) if n == 1 else answer, ws)
            assert turn.end == "question" and turn.question.startswith("Which colour")
            assert len(fake.requests) == n
    # Each question got a tool result before the next user message (valid history).
    last = fake.requests[-1].body["messages"]
    assert [m["role"] for m in last[-3:]] == ["assistant", "tool", "user"]


async def test_context_too_long_truncates_history_and_succeeds(
    api_key: str, tiny_task: Path, tmp_path: Path
) -> None:
    task = load_task(tiny_task)
    ws = await workspace(task, tmp_path)
    async with FakeProvider(task_dir=tiny_task) as fake, open_client(fake) as client:
        solver = LLMSolver(client, AgentOptions())
        for i in (0, 1, 0, 1):
            await solver.respond(reveal(task, i), ws)
        fake.add_faults(Fault(kind="context_too_long"))
        turn = await solver.respond(reveal(task, 1), ws)
    assert turn.usage.requests == 2  # the refused request charges nothing
    refused, retried = (fake.requests[i].body for i in (-3, -2))
    users = [sum(m["role"] == "user" for m in b["messages"]) for b in (refused, retried)]
    assert users == [5, 2]  # five turns, then half of them (rounded down)


async def test_history_turns_keeps_the_last_n(
    api_key: str, tiny_task: Path, tmp_path: Path
) -> None:
    task = load_task(tiny_task)
    ws = await workspace(task, tmp_path)
    async with FakeProvider(task_dir=tiny_task) as fake, open_client(fake) as client:
        solver = LLMSolver(client, AgentOptions(history_turns=1))
        await solver.respond(reveal(task, 0), ws)
        await solver.respond(reveal(task, 1), ws)
    first = fake.requests[2].body["messages"]
    assert first[0]["role"] == "system" and first[1]["role"] == "user"
    assert task.contract.units[1].request in first[1]["content"]
    assert sum(m["role"] == "user" for m in first) == 1


def _has_image(body: dict[str, Any]) -> bool:
    return "image_url" in json.dumps(body)


async def test_vision_turn_sends_the_screenshot_and_text_only_does_not(
    api_key: str, tiny_task: Path, tmp_path: Path
) -> None:
    task = load_task(tiny_task)
    shot = tmp_path / "home.png"
    Image.new("RGB", (4, 4), "red").save(shot)
    for vision in (True, False):
        ws = await workspace(task, tmp_path, f"ws-{vision}")
        async with FakeProvider(task_dir=tiny_task) as fake, open_client(fake) as client:
            solver = LLMSolver(client, AgentOptions(vision=vision))
            turn = await solver.respond(reveal(task, 0, screenshots=(shot,)), ws)
        assert turn.end == "edited"
        bodies = [r.body for r in fake.requests]
        tools = {t["function"]["name"] for t in bodies[0]["tools"]}
        assert ("view_page" in tools) is vision
        assert any(map(_has_image, bodies)) is vision
        assert not _has_image(bodies[0])  # images arrive only through view_page


async def test_budget_caps_stop_between_requests(
    api_key: str, tiny_task: Path, tmp_path: Path
) -> None:
    task = load_task(tiny_task)
    ws = await workspace(task, tmp_path)
    ledger = Ledger(max_tokens=1)
    async with FakeProvider(task_dir=tiny_task) as fake, open_client(fake) as client:
        solver = LLMSolver(client, AgentOptions(), ledger=ledger)
        with pytest.raises(BudgetExceeded) as info:
            await solver.respond(reveal(task, 0), ws)
        assert info.value.kind == "tokens" and len(fake.requests) == 1
        assert ledger.spent_tokens == solver.usage.input_tokens + solver.usage.output_tokens > 0
        capped = LLMSolver(client, AgentOptions(max_cell_tokens=1))
        with pytest.raises(BudgetExceeded, match="cell spent"):
            await capped.respond(reveal(task, 0), ws)
        assert len(fake.requests) == 2


async def test_api_key_leaks_nowhere(api_key: str, tiny_task: Path, tmp_path: Path) -> None:
    task = load_task(tiny_task)
    ws = await workspace(task, tmp_path)
    async with FakeProvider(task_dir=tiny_task) as fake, open_client(fake) as client:
        solver = LLMSolver(client, AgentOptions())
        turns = [await solver.respond(reveal(task, i), ws) for i in (0, 1)]
    everything = repr(turns) + repr(fake.requests) + repr(client.config) + repr(solver.usage)
    for p in tmp_path.rglob("*"):
        if p.is_file():
            everything += p.read_bytes().decode(errors="replace")
    assert KEY not in everything


@pytest.mark.parametrize("root", _shipped_tasks(), ids=lambda p: p.name)
async def test_full_spec_request_plays_the_whole_plan(
    api_key: str, root: Path, tmp_path: Path
) -> None:
    """The full-spec arm's one request quotes every unit: the fake delivers all of them."""
    from orchestrator.persona import SimulatedUser

    task = load_task(root)
    units = task.contract.units
    text = SimulatedUser(task.contract).full_spec()
    msg = UserMessage(kind="full_spec", text=text, unit_id=units[-1].id, unit_index=len(units) - 1)
    ws = await workspace(task, tmp_path)
    ref = await workspace(task, tmp_path, "ref")
    for unit in units:
        await ref.apply_patch(task.reference_patch(unit.id))
    async with FakeProvider(task_dir=task.root) as fake, open_client(fake, "openai") as client:
        turn = await LLMSolver(client, AgentOptions(), ledger=Ledger()).respond(msg, ws)
    assert turn.end == "edited"
    assert texts(ws.root) == texts(ref.root)


def test_a_staged_reveal_still_plays_through_its_own_unit(tiny_task: Path) -> None:
    task = load_task(tiny_task)
    book = ReferenceBook([tiny_task])
    for i, unit in enumerate(task.contract.units):
        found = book.match(["earlier words", reveal(task, i).text, "pushback without a request"])
        assert found is not None and found[1] == unit.id


async def test_edit_format_whole_file_offers_and_runs_no_search_replace(
    api_key: str, tiny_task: Path, tmp_path: Path
) -> None:
    """The paper's edit-format ablation: whole_file offers only write_file, and an `edit`
    call is refused (unknown tool) instead of silently applied."""
    task = load_task(tiny_task)
    for fmt in ("search_replace", "whole_file"):
        ws = await workspace(task, tmp_path, f"ws-{fmt}")
        async with FakeProvider(task_dir=tiny_task) as fake, open_client(fake) as client:
            solver = LLMSolver(client, AgentOptions(edit_format=fmt))
            turn = await solver.respond(reveal(task, 0), ws)
        assert turn.end == "edited"  # the scripted model writes whole files either way
        tools = {t["function"]["name"] for t in fake.requests[0].body["tools"]}
        assert ("edit" in tools) is (fmt == "search_replace") and "write_file" in tools

    path = next(p for p in texts(ws.root) if p.endswith(".html"))
    before = (ws.root / path).read_text()
    call = ToolCall(
        id="c1",
        name="edit",
        arguments_json=json.dumps({"path": path, "search": before[:20], "replace": "X"}),
    )
    refused = await run_tool(call, ws, vision=False, screenshots=(), edit_format="whole_file")
    assert refused.is_error and "unknown tool 'edit'" in refused.content
    assert (ws.root / path).read_text() == before
    applied = await run_tool(call, ws, vision=False, screenshots=())
    assert not applied.is_error and (ws.root / path).read_text() != before
