"""The LLM path and the full-spec arm through real cells (Docker + Chromium)."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.budget import Ledger
from orchestrator.cell import CellContext, run_cell
from orchestrator.config import ScaffoldConfig
from orchestrator.contract import TaskPackage, load_task
from orchestrator.llm import AgentOptions, ProviderConfig, ProviderPool
from orchestrator.solvers._llm import LLMSolver
from orchestrator.solvers._scaffold import ScaffoldSolver
from orchestrator.verifier import BrowserPool
from sandbox import DockerBackend, Labels
from tests.fixtures.tinytask import make_tiny_task

pytestmark = [pytest.mark.anyio, pytest.mark.docker, pytest.mark.browser]
ROOT = Path(__file__).resolve().parents[2]
SECRET = "sk-test-DO-NOT-LEAK-4b1d"


def _ctx(task: TaskPackage, pool: BrowserPool, cell_dir: Path) -> CellContext:
    return CellContext(
        task=task,
        backend=DockerBackend(),
        pool=pool,
        cell_dir=cell_dir,
        labels=Labels(sweep="pytest-arms", cell=cell_dir.name),
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


async def test_scaffold_cli_runs_inside_the_sandbox_in_the_full_spec_arm(
    require_docker: None, pool: BrowserPool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    task = load_task(make_tiny_task(tmp_path / "tasks"))
    monkeypatch.setenv("PWB_STANDIN_KEY", SECRET)
    # A scripted stand-in for an external agent: reads its prompt, needs its key, edits files.
    script = (
        'test -n "$PWB_STANDIN_KEY" || exit 3; grep -q "Plums" "$0" || exit 4; '
        "sed -i 's/>Welcome</>Welcome back</; s#<li>Pears</li></ul>#<li>Pears</li><li>Plums</li></ul>#' index.html; "
        "sed -i 's/We sell fruit./We have sold fruit since 1999./' about.html; "
        'echo \'pwb-usage: {"input_tokens": 10, "output_tokens": 5, "cost_usd": 0.01}\''
    )
    scaffold = ScaffoldConfig(
        command=("sh", "-c", script, "{prompt_file}"), pass_env=("PWB_STANDIN_KEY",)
    )
    ledger = Ledger()
    solver = ScaffoldSolver("standin", scaffold, ledger)
    cell_dir = tmp_path / "scaffold"
    report = await run_cell(_ctx(task, pool, cell_dir), solver, "full-spec")
    assert [u.cleared for u in report.result.units] == [True, True, True]
    assert report.result.checkpoints == 1  # verified once, at the end
    assert report.result.scores.final_pass and report.result.flips == ()
    assert ledger.spent_usd == pytest.approx(0.01)
    for path in cell_dir.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path
