"""The agent over real-API behaviour: empty replies, context limits, spend kept on failure."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.budget import Ledger
from orchestrator.contract import load_task
from orchestrator.llm import AgentOptions, FakeProvider, Fault, LLMError
from orchestrator.solvers import LLMSolver

from .conftest import open_client, replay, reveal, workspace

pytestmark = pytest.mark.anyio

COMPACTED = "[output omitted: the request exceeded the model's context window]"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # Workspace threads; the solver tests cover trio


@pytest.mark.parametrize(
    ("kind", "empty"),
    [("openai", "openai_completion_empty"), ("anthropic", "anthropic_message_empty")],
)
async def test_an_empty_reply_does_not_poison_the_history(
    api_key: str, tiny_task: Path, tmp_path: Path, kind: str, empty: str
) -> None:
    task = load_task(tiny_task)
    ws = await workspace(task, tmp_path)
    async with FakeProvider(task_dir=tiny_task, faults=[replay(empty)]) as fake:
        async with open_client(fake, kind) as client:
            solver = LLMSolver(client, AgentOptions())
            first = await solver.respond(reveal(task, 0), ws)
            second = await solver.respond(reveal(task, 0), ws)  # the fake 400s a rejected shape
    assert first.end == "idle" and second.end == "edited"


async def test_context_error_on_the_first_turn_blanks_older_tool_output_and_retries(
    api_key: str, tiny_task: Path, tmp_path: Path
) -> None:
    task = load_task(tiny_task)
    ws = await workspace(task, tmp_path)
    faults = [
        Fault(kind="unknown_tool"),
        Fault(kind="unknown_tool"),
        Fault(kind="context_too_long"),
    ]
    async with FakeProvider(task_dir=tiny_task, faults=faults) as fake:
        async with open_client(fake) as client:
            turn = await LLMSolver(client, AgentOptions()).respond(reveal(task, 0), ws)
    assert turn.end == "done" and len(fake.requests) == 4
    refused, retried = fake.requests[2].body, fake.requests[3].body
    tools = [
        [m["content"] for m in b["messages"] if m["role"] == "tool"] for b in (refused, retried)
    ]
    assert COMPACTED not in tools[0]
    assert tools[1][0] == COMPACTED and tools[1][1] == tools[0][1]  # the last step is kept


async def test_context_error_with_nothing_to_drop_ends_the_cell(
    api_key: str, tiny_task: Path, tmp_path: Path
) -> None:
    task = load_task(tiny_task)
    ws = await workspace(task, tmp_path)
    async with FakeProvider(
        task_dir=tiny_task, faults=[Fault(kind="context_too_long", times=0)]
    ) as fake:
        async with open_client(fake) as client:
            with pytest.raises(LLMError, match="context_length_exceeded"):
                await LLMSolver(client, AgentOptions()).respond(reveal(task, 0), ws)
    assert len(fake.requests) == 1


async def test_a_context_window_stop_bills_its_tokens_then_truncates(
    api_key: str, tiny_task: Path, tmp_path: Path
) -> None:
    task = load_task(tiny_task)
    ws = await workspace(task, tmp_path)
    ledger = Ledger()
    async with FakeProvider(task_dir=tiny_task) as fake, open_client(fake, "anthropic") as client:
        solver = LLMSolver(client, AgentOptions(), ledger=ledger)
        await solver.respond(reveal(task, 0), ws)
        fake.add_faults(replay("anthropic_context_window_stop"))
        turn = await solver.respond(reveal(task, 1), ws)
    assert turn.end == "edited"
    assert turn.usage.input_tokens > 199000 and turn.usage.output_tokens > 1000
    assert ledger.spent_tokens == solver.usage.input_tokens + solver.usage.output_tokens
    users = sum(
        m["role"] == "user"
        and isinstance(m["content"], list)
        and any(b.get("type") == "text" and "Next thing" in b.get("text", "") for b in m["content"])
        for m in fake.requests[-2].body["messages"]
    )
    assert users == 1  # the retry kept only the current turn


async def test_missing_usage_is_charged_as_a_flagged_estimate(
    api_key: str, tiny_task: Path, tmp_path: Path
) -> None:
    task = load_task(tiny_task)
    ws = await workspace(task, tmp_path)
    sweep = Ledger(max_tokens=10**9)
    ledger = sweep.child()  # the cell's: its row's Spend carries estimated_requests
    async with FakeProvider(task_dir=tiny_task, faults=[Fault(kind="no_usage", times=0)]) as fake:
        async with open_client(fake) as client:
            turn = await LLMSolver(client, AgentOptions(), ledger=ledger).respond(
                reveal(task, 0), ws
            )
    assert turn.usage.estimated_requests == 2 == turn.usage.requests
    assert turn.usage.input_tokens > 100 and turn.usage.cost_usd > 0
    assert ledger.spent_tokens == turn.usage.input_tokens + turn.usage.output_tokens
    assert ledger.estimated_requests == 2 == sweep.estimated_requests


async def test_a_failed_cell_keeps_what_it_was_charged(
    api_key: str, tiny_task: Path, tmp_path: Path
) -> None:
    task = load_task(tiny_task)
    ws = await workspace(task, tmp_path)
    async with FakeProvider(task_dir=tiny_task) as fake, open_client(fake) as client:
        solver = LLMSolver(client, AgentOptions())
        await solver.respond(reveal(task, 0), ws)
        fake.add_faults(Fault(kind="status", status=400, times=0))
        with pytest.raises(LLMError) as info:
            await solver.respond(reveal(task, 1), ws)
    charged = info.value.cell_usage
    assert charged == solver.usage and charged.input_tokens > 0 and charged.cost_usd > 0
