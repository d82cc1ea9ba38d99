"""The scaffold solver on the local backend: only pass_env, its own process group, verdicts.

A stand-in agent (stdlib Python) talks to the gateway in front of the fake provider; no
Docker or browser needed. The local backend runs it as a host process, so these are the
promises that backend has to keep on its own.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest

from orchestrator.budget import BudgetExceeded, Ledger
from orchestrator.config import ScaffoldConfig
from orchestrator.events import Agent, EventLog, read_events
from orchestrator.gateway import Gateway, Upstream
from orchestrator.llm import FakeProvider, Fault, LLMError, ProviderConfig
from orchestrator.solvers import UserMessage
from orchestrator.solvers._scaffold import ScaffoldSolver
from orchestrator.workspace import Workspace
from sandbox import Labels, LocalBackend, ServeSpec

pytestmark = pytest.mark.anyio
SPEC = ServeSpec(stack="static", start="true")
MESSAGE = UserMessage(kind="full_spec", text="Do the task.", unit_id="u1", unit_index=0)

AGENT = r"""
import json, os, subprocess, sys, urllib.error, urllib.request
print("env", " ".join(sorted(os.environ)), flush=True)
child = subprocess.Popen(["sleep", "300"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    start_new_session=bool(os.environ.get("DETACH")))
open(os.environ["PIDS"], "w").write(str(child.pid))
body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode()
req = urllib.request.Request(os.environ["BASE"] + "/chat/completions", data=body,
    headers={"authorization": "Bearer " + os.environ["TOKEN"], "content-type": "application/json"})
try:
    print("status", urllib.request.urlopen(req, timeout=30).status, flush=True)
except urllib.error.HTTPError as exc:
    print("status", exc.code, flush=True)
open(".aider.chat.history.md", "w").write("state")
sys.exit(int(os.environ.get("EXIT", "0")))
"""


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


async def run(
    tmp_path: Path, gw: Gateway, **over: object
) -> tuple[ScaffoldSolver, Workspace, list[str]]:
    repo = tmp_path / "r0"
    repo.mkdir(exist_ok=True)
    (repo / "index.html").write_text("<p>hi</p>\n")
    ws = await Workspace.create(repo, tmp_path / "ws", ["*.html"])
    env = {"BASE": "{openai_base_url}", "TOKEN": "{token}", "PIDS": str(tmp_path / "pids")}
    cfg = ScaffoldConfig(
        command=over.pop("command", (sys.executable, "-c", AGENT)),  # type: ignore[arg-type]
        env={**env, **over.pop("env", {})},  # type: ignore[dict-item]
        pass_env=("PWB_PASSED",),
        state=(".aider*",),
        **over,  # type: ignore[arg-type]
    )
    solver = ScaffoldSolver("standin", cfg, Ledger(), "p")
    with EventLog(tmp_path / "events.jsonl") as log:
        async with LocalBackend().open(ws.root, SPEC, Labels(sweep="t", cell="c")) as box:
            solver.attach_sandbox(box, log)
            solver.attach_gateway(gw, "", "cell-1")
            await solver.respond(MESSAGE, ws)
    return solver, ws, [line for r in solver.runs for line in r.output]


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
