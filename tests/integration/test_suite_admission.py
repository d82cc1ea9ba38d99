"""CI admits the whole shipped suite (DESIGN.md §6) through real Docker and Chromium.

Admission replays the reference unit by unit (each unit cleared at its first checkpoint,
no flip, full final suite passing: a whole-task pass), checks every negative fails its
expected gates, and that untouched R0 fails a completion gate.

The host's fontconfig is made hostile for these tests (`hostile_host_fonts`: every family
the host resolves becomes DejaVu Serif): a verdict is a function of the package and the
workspace alone, so every reference must still pass every gate and render, state by
state, as its evidence does.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from orchestrator.admission import Admitter
from orchestrator.contract import discover_tasks, load_task
from orchestrator.verifier import BrowserPool
from orchestrator.verifier._visual import diff_region
from sandbox import DockerBackend
from tests.sweeps import new_sweep

SWEEP = new_sweep("pytest-admit")  # unique; collected at the session end

pytestmark = [pytest.mark.anyio, pytest.mark.docker, pytest.mark.browser, pytest.mark.slow]
TASKS = discover_tasks(Path(__file__).resolve().parents[2] / "tasks")


def test_the_suite_meets_the_issue_requirements() -> None:
    contracts = [load_task(t).contract for t in TASKS]
    change = [c for c in contracts if c.regime == "change"]
    build = [c for c in contracts if c.regime == "build"]
    assert len(contracts) >= 10 and len(change) >= 7 and len(build) >= 3
    for cap in ("edit", "repair", "consistency"):
        assert sum(c.capability == cap for c in change) >= 2, cap
    assert {c.facet for c in change} >= {
        "state",
        "design",
        "experience",
        "content",
        "regression",
        "implementation",
    }
    assert {c.stack for c in contracts} >= {"static", "node", "php", "vite"}
    for c in contracts:
        assert len(c.negatives) >= 2, c.id
        assert any(u.kind == "rework" for u in c.units), c.id
        if c.regime == "change":
            assert 3 <= len(c.units) <= 6 and c.preservation_check_ids(), c.id
        else:
            assert 5 <= len(c.units) <= 9, c.id


@pytest.fixture
async def pool(require_chromium: None, hostile_host_fonts: Path) -> AsyncIterator[BrowserPool]:
    async with BrowserPool(max_contexts=2) as p:
        yield p


# Share of pixels allowed to differ between a state's render and its evidence.
RENDER_TOLERANCE = 0.001


@pytest.mark.timeout(1500)
@pytest.mark.parametrize("root", TASKS, ids=[t.name for t in TASKS])
async def test_task_is_admitted(
    require_docker: None, pool: BrowserPool, root: Path, tmp_path: Path
) -> None:
    task = load_task(root)
    result = await Admitter(DockerBackend(), pool, tmp_path, sweep=SWEEP).admit(task)
    problems = [f"{c.control}: {c.detail or c.failing_gates}" for c in result.controls if not c.ok]
    assert result.admitted, problems
    final = sorted((tmp_path / task.contract.id / "reference-0" / "artifacts").glob("*-final"))
    shots = sorted((final[-1] / "states").glob("*.png"))
    assert len(shots) >= len(task.contract.states)
    differs = {}
    for shot in shots:
        evidence = task.evidence / "reference" / shot.name
        if shot.stem.endswith("~bare") or not evidence.is_file():
            continue
        got = diff_region(shot.read_bytes(), evidence, [], 0)
        if isinstance(got, str) or got[0] > RENDER_TOLERANCE:
            differs[shot.stem] = got
    assert not differs, f"renders differ from the evidence: {differs}"
