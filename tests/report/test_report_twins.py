"""The report pairs greenfield twins with their Change sources (`twin_of`, paper §5):
per solver and arm, WCS of source and twin and the twin-minus-source delta."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from orchestrator.contract import load_task
from orchestrator.report import aggregate, load_run, tables
from tests.report.report_run import make_task, row, scores


def _twin(tasks_dir: Path, task_id: str, source: str) -> str:
    make_task(tasks_dir, task_id, "edit")
    toml = tasks_dir / task_id / "task.toml"
    text = toml.read_text().replace(
        'regime = "change"\ncapability = "edit"\nfacet = "content"',
        f'twin_of = "{source}"\nregime = "build"\ncapability = "build"\nfacet = "construction"',
    )
    assert "twin_of" in text
    toml.write_text(text)
    return load_task(tasks_dir / task_id).contract_hash


def test_twins_are_paired_with_their_sources_per_solver_and_arm(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks"
    h = {t: make_task(tasks, t, "edit") for t in ("s1", "s2", "lone")}
    h["s1-twin"] = _twin(tasks, "s1-twin", "s1")
    h["s2-twin"] = _twin(tasks, "s2-twin", "s2")
    rows = [
        # solver a: both pairs; s1 repeated (averaged within the task), twins lower.
        row("s1", "a", "staged", 0, h, scores=scores(1.0, 1.0, 0.9)),
        row("s1", "a", "staged", 1, h, scores=scores(1.0, 1.0, 0.7)),
        row("s1-twin", "a", "staged", 0, h, scores=scores(1.0, 1.0, 0.5)),
        row("s2", "a", "staged", 0, h, scores=scores(1.0, 1.0, 0.6)),
        row("s2-twin", "a", "staged", 0, h, scores=scores(1.0, 1.0, 0.4)),
        # An infrastructure failure is no result: the pair it would make is not counted.
        row("s2", "a", "full-spec", 0, h, scores=scores(1.0, 1.0, 0.6)),
        row("s2-twin", "a", "full-spec", 0, h, status="infra_error", error="x"),
        # solver b ran only the twin of s1 and an unpaired task: no pair, no row.
        row("s1-twin", "b", "staged", 0, h, scores=scores(1.0, 1.0, 0.5)),
        row("lone", "b", "staged", 0, h, scores=scores(1.0, 1.0, 0.5)),
    ]
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    lines = b"".join(msgspec.json.encode(r) + b"\n" for r in rows)
    (run_dir / "manifest.jsonl").write_bytes(lines)
    run = load_run(run_dir, tasks)
    assert run.twins == {"s1-twin": "s1", "s2-twin": "s2"}
    rep = aggregate(run, "run")
    t, pooled = rep.twins  # solver a, then "all" over the models (a alone here)
    assert (t.solver, t.arm, t.pairs) == ("a", "staged", 2)
    assert (pooled.solver, pooled.arm, pooled.pairs) == ("all", "staged", 2)
    assert pooled.wcs_delta == t.wcs_delta
    # paired t over the cells: mean -0.25, SD 0.0707 over 2 pairs -> -5.00
    assert t.t == pytest.approx(-5.0)
    assert t.wcs_source.value == pytest.approx((0.8 + 0.6) / 2)
    assert t.wcs_twin.value == pytest.approx((0.5 + 0.4) / 2)
    assert t.wcs_delta.value == pytest.approx(((0.5 - 0.8) + (0.4 - 0.6)) / 2)
    assert (t.wcs_delta.lo, t.wcs_delta.hi) == pytest.approx((-0.3, -0.2))
    (table,) = [x for x in tables(rep) if x.id == "twins"]
    one = ("2", "70.0 [60.0, 80.0]", "45.0 [40.0, 50.0]", "-25.0 [-30.0, -20.0]", "-5.00")
    assert table.rows == (("a", "staged", *one), ("all", "staged", *one))
    # A twin is never pooled into Build: it is its own group of the regime breakdown.
    groups = {(b.solver, b.arm, b.group) for b in rep.regimes}
    assert ("a", "staged", "build twin") in groups and ("a", "staged", "build") not in groups
    # No twin in a run: no table.
    plain = aggregate(msgspec.structs.replace(run, twins={}), "run")
    assert plain.twins == () and "twins" not in {x.id for x in tables(plain)}
