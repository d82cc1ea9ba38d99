"""The LLM path and the full-spec arm through real cells (Docker + Chromium)."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.budget import Ledger
from orchestrator.cell import CellContext, run_cell
from orchestrator.contract import TaskPackage, load_task
from orchestrator.llm import AgentOptions, ProviderConfig, ProviderPool
from orchestrator.solvers import LLMSolver
from orchestrator.verifier import BrowserPool, BrowserVerifier
from sandbox import DockerBackend, Labels
from tests.sweeps import new_sweep

SWEEP = new_sweep("pytest-arms")  # unique; collected at the session end

pytestmark = [pytest.mark.anyio, pytest.mark.docker, pytest.mark.browser]
ROOT = Path(__file__).resolve().parents[2]


def _ctx(task: TaskPackage, pool: BrowserPool, cell_dir: Path) -> CellContext:
    return CellContext(
        task=task,
        backend=DockerBackend(),
        verifier=BrowserVerifier(pool),
        browser=pool,
        cell_dir=cell_dir,
        labels=Labels(sweep=SWEEP, cell=cell_dir.name),
    )


async def test_fake_llm_clears_a_shipped_task_in_the_staged_arm(
    require_docker: None, pool: BrowserPool, tmp_path: Path
) -> None:
    task = load_task(ROOT / "tasks" / "fernhill-save-tools")
    cfg = ProviderConfig(name="fake", kind="fake", model="scripted")
    async with ProviderPool([cfg], fake_tasks=[task.root]) as providers:
        solver = LLMSolver(providers.client("fake"), AgentOptions(), ledger=Ledger(), name="fake")
        report = await run_cell(_ctx(task, pool, tmp_path / "llm"), solver)
    assert all(u.cleared and u.turns == 1 for u in report.result.units), report.result.units
    assert report.result.scores.whole_task
    assert report.usage.requests >= 2 * len(task.contract.units)  # tool calls, then done
