"""CI admits the whole shipped suite (DESIGN.md §6) through real Docker and Chromium.

Admission replays the reference unit by unit (each unit cleared at its first checkpoint,
no flip, full final suite passing: a whole-task pass), checks every negative fails its
expected gates, and that untouched R0 fails a completion gate.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.admission import Admitter
from orchestrator.contract import discover_tasks, load_task
from orchestrator.verifier import BrowserPool
from sandbox import DockerBackend

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


@pytest.mark.timeout(1500)
@pytest.mark.parametrize("root", TASKS, ids=[t.name for t in TASKS])
async def test_task_is_admitted(
    require_docker: None, pool: BrowserPool, root: Path, tmp_path: Path
) -> None:
    task = load_task(root)
    result = await Admitter(DockerBackend(), pool, tmp_path, sweep="pytest-admit").admit(task)
    problems = [f"{c.control}: {c.detail or c.failing_gates}" for c in result.controls if not c.ok]
    assert result.admitted, problems
