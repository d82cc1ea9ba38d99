"""A trajectory holds no grader-only byte, and `export` never ships one.

A shipped task is played through whole cells (`run_cell`, the scripted site of the staged-rules tests: no
Docker, no browser) by the reference (it applies the canary-marked reference patches)
and by the fake LLM over loopback HTTP; every byte of each trajectory is scanned. Then a
trajectory carrying the canary is planted in a run: `export` leaves that cell out.
"""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from orchestrator.budget import Ledger
from orchestrator.cell import CellContext, CellReport, run_cell
from orchestrator.contract import CANARY, discover_tasks, load_task
from orchestrator.llm import AgentOptions, ProviderConfig, ProviderPool
from orchestrator.records import Manifest, ManifestRow, Ok, VerifyReport
from orchestrator.records import TaskLabels as RowLabels
from orchestrator.records import trajectory as tj
from orchestrator.regrade import export_run
from orchestrator.solvers import LLMSolver, ReferenceSolver, Solver
from orchestrator.verifier import VerifyRequest, gate_results
from sandbox import Labels
from tests.fixtures.staged import Site

pytestmark = pytest.mark.anyio
ROOT = Path(__file__).resolve().parents[2]
TASKS = [r for r in discover_tasks(ROOT / "tasks") if r.name == "hollin-ridge-sessions"]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class AllPass(Site):
    """Every check passes: each unit clears at its first checkpoint (fewest turns)."""

    def amend(self, request: VerifyRequest, report: VerifyReport) -> VerifyReport:
        checks = [msgspec.structs.replace(c, passed=True) for c in report.checks]
        return msgspec.structs.replace(report, checks=tuple(checks), gates=gate_results(checks))


async def _play(task_dir: Path, solver: Solver, cell_dir: Path) -> tuple[CellReport, bytes]:
    task = load_task(task_dir)
    site = AllPass()
    ctx = CellContext(
        task=task,
        backend=site,
        cell_dir=cell_dir,
        labels=Labels(sweep="s", cell=cell_dir.name),
        verifier=site,
    )
    report = await run_cell(ctx, solver)
    assert report.result.turns > 0
    return report, (cell_dir / tj.FILE).read_bytes()


@pytest.mark.parametrize("task_dir", TASKS, ids=[t.name for t in TASKS])
async def test_no_trajectory_byte_carries_the_canary(task_dir: Path, tmp_path: Path) -> None:
    task = load_task(task_dir)
    assert any(
        CANARY.encode() in task.reference_patch(u.id).read_bytes() for u in task.contract.units
    )
    _, ref = await _play(task_dir, ReferenceSolver(task), tmp_path / "ref")
    assert b'"patch":"' in ref  # the reference's edits are in it
    cfg = ProviderConfig(name="fake", kind="fake", model="scripted")
    async with ProviderPool([cfg], fake_tasks=[task.root]) as providers:
        llm = LLMSolver(providers.client("fake"), AgentOptions(), ledger=Ledger(), name="fake")
        _, played = await _play(task_dir, llm, tmp_path / "llm")
    assert b'"tool_calls":[{' in played  # the model's calls are in it
    for data in (ref, played):
        assert CANARY.encode() not in data
        assert b"pwb-canary" not in data


async def test_export_leaves_out_a_trajectory_that_carries_the_canary(tmp_path: Path) -> None:
    task = load_task(TASKS[0])
    run = tmp_path / "run"
    c = task.contract
    labels = RowLabels(
        regime=c.regime,
        capability=c.capability,
        facet=c.facet,
        stack=c.stack,
        framework=c.framework,
    )
    with Manifest(run) as manifest:
        for solver in ("reference", "leaky"):
            key = f"{c.id}/{solver}/staged/0"
            cell = run / "cells" / key.replace("/", "__")
            report, data = await _play(TASKS[0], ReferenceSolver(task), cell)
            if solver == "leaky":  # a note quoting grader data
                data = data.replace(b'"note":""', f'"note":"{CANARY}"'.encode(), 1)
                (cell / tj.FILE).write_bytes(data)
            manifest.append(
                ManifestRow(
                    sweep="s",
                    cell=key,
                    task=c.id,
                    labels=labels,
                    contract_hash=task.contract_hash,
                    config_hash="x",
                    solver=solver,
                    arm="staged",
                    outcome=Ok(result=report.result),
                )
            )
    out = tmp_path / "sub"
    n, skipped = export_run(run, out)
    assert n == 1 and len(skipped) == 1 and "canary" in skipped[0]
    assert CANARY.encode() not in out.read_bytes()
