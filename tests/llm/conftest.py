"""Fixtures of the LLM path's tests: both async backends, a tiny task, a key, a pool; a
unit revealed as the simulated user words it, and a task's work tree."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from orchestrator.contract import TaskPackage
from orchestrator.llm import ChatClient, FakeProvider, Fault, ProviderConfig, ProviderPool
from orchestrator.solvers import UserMessage
from orchestrator.workspace import Workspace

FIXTURES = Path(__file__).parent / "fixtures"
KEY_ENV = "PWB_TEST_LLM_KEY"
KEY = "sk-pwb-DISTINCTIVE-7f3a9c1e5b"


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def tiny_task() -> Path:
    return FIXTURES / "tiny-site"


@pytest.fixture
def api_key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(KEY_ENV, KEY)
    return KEY


def config(fake: FakeProvider, kind: str = "openai", **kw: Any) -> ProviderConfig:
    base = fake.anthropic_base_url if kind == "anthropic" else fake.base_url
    fields: dict[str, Any] = {
        "name": "test",
        "kind": kind,
        "model": "test-model",
        "base_url": base,
        "api_key_env": KEY_ENV,
        "backoff_initial_s": 0.01,
        "backoff_max_s": 0.05,
        "max_attempts": 4,
        "price_in_per_mtok": 1.0,
        "price_out_per_mtok": 2.0,
    }
    return ProviderConfig(**(fields | kw))


ClientFactory = Callable[..., Any]


@asynccontextmanager
async def open_client(
    fake: FakeProvider, kind: str = "openai", **kw: Any
) -> AsyncIterator[ChatClient]:
    async with ProviderPool([config(fake, kind, **kw)]) as pool:
        yield pool.client("test")


WIRE = FIXTURES / "wire"


def replay(name: str, times: int = 1) -> Fault:
    """A recorded response from tests/llm/fixtures/wire/, served verbatim."""
    data = json.loads((WIRE / f"{name}.json").read_text())
    return Fault(
        kind="replay",
        times=times,
        status=data["status"],
        headers=data["headers"],
        body=json.dumps(data["body"]),
    )


def reveal(task: TaskPackage, i: int, **kw: Any) -> UserMessage:
    unit = task.contract.units[i]
    text = f"Hi! Next thing on the list:\n\n{unit.request}\n\nThanks!"
    return UserMessage(kind="reveal", text=text, unit_id=unit.id, unit_index=i, **kw)


async def workspace(task: TaskPackage, tmp: Path, name: str = "ws") -> Workspace:
    return await Workspace.create(task.repo, tmp / name, task.contract.allowed_paths)
