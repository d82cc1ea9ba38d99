"""The scaffold solver on the local backend: only pass_env, its own process group, verdicts.

A stand-in agent (stdlib Python) talks to the gateway in front of the fake provider; no
Docker or browser needed. The local backend runs it as a host process, so these are the
promises that backend has to keep on its own.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest

from orchestrator.budget import BudgetExceeded
from orchestrator.events import Agent, read_events
from orchestrator.gateway import Gateway, Upstream
from orchestrator.llm import FakeProvider, Fault, LLMError, ProviderConfig
from tests.fixtures.scaffoldrun import run

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def gateway() -> AsyncIterator[tuple[Gateway, FakeProvider]]:
    async with FakeProvider() as fake:
        cfg = ProviderConfig(
            name="p", kind="openai", model="m", base_url=fake.base_url, price_in_per_mtok=10.0
        )
        async with Gateway({"p": Upstream(provider=cfg, base_url=fake.base_url)}) as gw:
            yield gw, fake


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat.split(")")[1].split()[0] != "Z"


async def test_only_named_variables_reach_the_agent_and_its_children_die(
    tmp_path: Path, gateway: tuple[Gateway, FakeProvider], monkeypatch: pytest.MonkeyPatch
) -> None:
    gw, _ = gateway
    monkeypatch.setenv("PWB_PASSED", "yes")
    monkeypatch.setenv("PWB_HOST_SECRET", "sk-host-only")
    solver, ws, output = await run(tmp_path, gw)
    names = next(line for line in output if line.startswith("env ")).split()[1:]
    assert "PWB_PASSED" in names and "TOKEN" in names
    assert "PWB_HOST_SECRET" not in names and "PYTHONPATH" not in names
    assert "status 200" in output and solver.verdict() is None
    pid = int((tmp_path / "pids").read_text())
    assert not alive(pid)  # the sleeper it left behind died with its process group
    assert not (ws.root / ".aider.chat.history.md").exists()  # its state is not delivery
    (event,) = [e for e in read_events(tmp_path / "events.jsonl") if isinstance(e, Agent)]
    assert event.run.requests[0].status == 200 and event.run.exit_code == 0


async def test_a_child_that_left_the_process_group_dies_too(
    tmp_path: Path, gateway: tuple[Gateway, FakeProvider]
) -> None:
    await run(tmp_path, gateway[0], env={"DETACH": "1"})  # setsid: a session of its own
    pid = int((tmp_path / "pids").read_text())
    for _ in range(100):  # killed as the agent's command ended; reaped by init
        if not alive(pid):
            break
        await anyio.sleep(0.05)
    assert not alive(pid), "the agent's detached child outlived the agent"


async def test_a_non_zero_exit_is_an_llm_error(
    tmp_path: Path, gateway: tuple[Gateway, FakeProvider]
) -> None:
    solver, _, _ = await run(tmp_path, gateway[0], env={"EXIT": "3"})
    verdict = solver.verdict()
    assert isinstance(verdict, LLMError) and "exited 3" in str(verdict)


async def test_no_successful_call_is_an_llm_error(
    tmp_path: Path, gateway: tuple[Gateway, FakeProvider]
) -> None:
    gw, fake = gateway
    fake.add_faults(Fault(kind="status", status=503, times=0))
    solver, _, output = await run(tmp_path, gw)
    assert "status 503" in output
    verdict = solver.verdict()
    assert isinstance(verdict, LLMError) and "503" in str(verdict)


async def test_running_out_of_time_is_a_wall_time_budget(
    tmp_path: Path, gateway: tuple[Gateway, FakeProvider]
) -> None:
    solver, _, _ = await run(
        tmp_path, gateway[0], command=("sh", "-c", "echo started; sleep 60"), wall_time_s=1.0
    )
    verdict = solver.verdict()
    assert isinstance(verdict, BudgetExceeded) and verdict.kind == "wall_time"
    (run_,) = solver.runs
    assert run_.timed_out and run_.output == ("started",)
