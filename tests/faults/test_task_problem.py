"""A task whose untouched R0 cannot serve is the task's problem, not the solver's (#16).

Local backend, a tiny task whose start command fails. Every cell of it ends
`task_error` (never scored: not in any score table, counted in the report header)
instead of an `ok` row graded as the solver's failure; the same sweep on a runnable
task is `ok`. Admission reports the task: its R0 control fails with "cannot serve".
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from orchestrator.admission import admit_all
from orchestrator.config import load_config
from orchestrator.contract import load_task
from orchestrator.records import read_rows
from orchestrator.report import aggregate, load_run
from orchestrator.sweep import SweepOptions, run_sweep
from orchestrator.verifier import BrowserPool
from sandbox import LocalBackend
from tests.fixtures.tinytask import make_tiny_task

BENCH = """
[sweep]
name = "r0"
runs_dir = "{runs}"
tasks_dir = "{tasks}"
arms = ["staged"]
repeats = 2
concurrency = 2
backend = "local"
baseline = true
browser_contexts = 2

[[solvers]]
name = "reference"
kind = "reference"
"""
BROKEN_START = 'start = "echo no such server >&2; exit 1"'


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _task(tmp: Path, broken: bool) -> Path:
    task = make_tiny_task(tmp / "tasks", turns=1)
    if broken:
        toml = task / "task.toml"
        lines = toml.read_text().splitlines()
        toml.write_text(
            "\n".join(BROKEN_START if ln.startswith("start = ") else ln for ln in lines) + "\n"
        )
    return task


async def _sweep(tmp: Path) -> list[str]:
    config = tmp / "bench.toml"
    config.write_text(BENCH.format(runs=tmp / "runs", tasks=tmp / "tasks"))
    run_dir = (
        await run_sweep(load_config(config), SweepOptions(run_dir=tmp / "run", progress="quiet"))
    ).run_dir
    return [r.status for r in read_rows(run_dir / "manifest.jsonl")]


@pytest.mark.browser
@pytest.mark.anyio
async def test_cells_of_a_task_whose_r0_cannot_serve_end_task_error_unscored(
    require_chromium: None, tmp_path: Path
) -> None:
    _task(tmp_path, broken=True)
    statuses = await _sweep(tmp_path)
    assert Counter(statuses) == Counter({"task_error": 2}), statuses
    rows = read_rows(tmp_path / "run" / "manifest.jsonl")
    assert all("R0 cannot serve" in r.error and r.attempts == 1 for r in rows)
    rep = aggregate(load_run(tmp_path / "run", tmp_path / "tasks"), "run")
    assert rep.header.statuses == {"task_error": 2}
    assert rep.scores.rows == () or all(s.cells == 0 for s in rep.scores.rows)
    assert rep.scores_infra_zero.rows == () or all(s.cells == 0 for s in rep.scores_infra_zero.rows)


@pytest.mark.browser
@pytest.mark.anyio
async def test_the_same_sweep_on_a_runnable_task_is_ok(
    require_chromium: None, tmp_path: Path
) -> None:
    _task(tmp_path, broken=False)
    assert await _sweep(tmp_path) == ["ok", "ok"]


@pytest.mark.browser
@pytest.mark.anyio
async def test_admission_reports_a_task_whose_r0_cannot_serve(
    require_chromium: None, tmp_path: Path
) -> None:
    task = load_task(_task(tmp_path, broken=True))
    async with BrowserPool(max_contexts=2) as pool:
        (adm,) = await admit_all([task], LocalBackend(), pool, tmp_path / "adm", 1, 1)
    (r0,) = [c for c in adm.controls if c.control == "r0"]
    assert not adm.admitted and not r0.ok
    assert "R0 cannot serve" in r0.detail
