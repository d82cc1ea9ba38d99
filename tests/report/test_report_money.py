"""The report's cost table is what was spent (#41, item 3): the attempts a resumed sweep
superseded count, and spend past a cell's own cap is flagged."""

from __future__ import annotations

from pathlib import Path

import msgspec

from orchestrator.records import Spend
from orchestrator.report import aggregate, load_run, write_report
from tests.report.report_run import make_task, row, scores


def test_superseded_attempts_are_spend_and_an_overshoot_is_flagged(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks"
    hashes = {"t1": make_task(tasks, "t1", "edit")}
    ok = scores(1.0, 1.0, 1.0, whole=True)
    first = row("t1", "a", "staged", 0, hashes, status="outage", cost_usd=0.0406)
    again = row("t1", "a", "staged", 0, hashes, scores=ok, cost_usd=0.0466)
    over = row("t1", "a", "staged", 1, hashes, scores=ok, cost_usd=0.01)
    over = msgspec.structs.replace(over, spend=Spend(cost_usd=0.01, overshoot_usd=0.002))
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    enc = msgspec.json.Encoder()
    (run_dir / "manifest.jsonl").write_bytes(
        b"".join(enc.encode(r) + b"\n" for r in (first, again, over))
    )

    rep = aggregate(load_run(run_dir, tasks), run_dir.name)
    (cost,) = rep.cost
    assert cost.cells == 2  # results: the latest row of each cell
    assert round(cost.cost_usd, 6) == round(0.0406 + 0.0466 + 0.01, 6)  # spend is spend
    assert round(cost.superseded_usd, 6) == 0.0406
    assert cost.overshoot_cells == 1 and round(cost.overshoot_usd, 6) == 0.002

    md = write_report(run_dir, tasks).markdown.read_text()
    assert "0.0972" in md and "superseded USD" in md
    assert "0.002000 (1)" in md  # the overshoot, and in how many cells


def test_a_config_error_is_no_result_beside_scored_rows(tmp_path: Path) -> None:
    """A refused setup says nothing about the model: never a zero in any score table."""
    tasks = tmp_path / "tasks"
    hashes = {"t1": make_task(tasks, "t1", "edit")}
    ok = scores(1.0, 1.0, 1.0, whole=True)
    rows = [
        row("t1", "m1", "staged", 0, hashes, scores=ok),
        row("t1", "m1", "staged", 1, hashes, status="config_error", error="cannot pay"),
    ]
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    enc = msgspec.json.Encoder()
    (run_dir / "manifest.jsonl").write_bytes(b"".join(enc.encode(r) + b"\n" for r in rows))
    rep = aggregate(load_run(run_dir, tasks), run_dir.name)
    for table in (rep.scores, rep.scores_infra_zero):
        (m1,) = table.rows
        assert m1.cells == 1 and (m1.task.k, m1.task.n) == (1, 1)
    assert rep.header.statuses == {"config_error": 1, "ok": 1} and rep.header.cancelled == 1
