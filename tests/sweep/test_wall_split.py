"""A row's wall time is split (#41, item 5): the cell's own run and its wait for the
sweep's shared R0 baseline, which one cell runs while the others of its task wait. A
whole sweep on the fakes (`tests.fakesweep`) whose R0 takes a known time; the report's
cost table shows the cells' own time, the wait apart."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from orchestrator.cell import CellContext, _grade, run_baseline
from orchestrator.cli import main
from orchestrator.records import read_rows
from orchestrator.report import aggregate, load_run
from tests.fakesweep import fake_engine
from tests.fixtures.bench import bench

R0_S = 1.5


def test_the_wait_for_the_shared_baseline_is_recorded_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_engine(monkeypatch)
    real = run_baseline  # what `_grade` calls
    calls: list[str] = []

    async def slow_baseline(ctx: CellContext) -> object:
        calls.append(ctx.labels.cell)
        await anyio.sleep(R0_S)
        return await real(ctx)

    monkeypatch.setattr(_grade, "run_baseline", slow_baseline)
    config = bench(tmp_path, repeats=3, concurrency=3)
    config.write_text(config.read_text().replace("baseline = false", "baseline = true"))
    run_dir = tmp_path / "run"
    assert main(["--config", str(config), "--quiet", "--run-dir", str(run_dir)]) == 0

    rows = read_rows(run_dir / "manifest.jsonl")
    assert len(rows) == 3 and {r.status for r in rows} == {"ok"}
    assert len(calls) == 1  # one R0 for the sweep: the others waited for it
    # The cell that ran the R0 waited it out; the others queued behind it from when they
    # started (later, on a loaded machine): every one waited some, less than its wall.
    assert max(r.baseline_wait_s for r in rows) >= 0.95 * R0_S
    for r in rows:
        assert 0 < r.baseline_wait_s < r.wall_s, r
        assert r.run_s == pytest.approx(r.wall_s - r.baseline_wait_s)
    (cost,) = aggregate(load_run(run_dir, tmp_path / "tasks"), run_dir.name).cost
    assert cost.run_s == pytest.approx(sum(r.run_s for r in rows))
    assert cost.baseline_wait_s == pytest.approx(sum(r.baseline_wait_s for r in rows))
    md = (run_dir / "report.md").read_text()
    assert "wall s per cell" in md and f"{cost.run_s / 3:.1f}" in md
    assert f"{cost.baseline_wait_s:.1f}" in md
