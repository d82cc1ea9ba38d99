"""A hand-made run directory whose every statistic is known (see `known_run`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import pytest
from PIL import Image

from orchestrator import events as ev
from orchestrator.contract import CANARY_LINE, Capability, load_task
from orchestrator.events import CheckpointSummary, Event
from orchestrator.records import (
    BaselineRegression,
    CheckResult,
    Flip,
    ManifestRow,
    Scores,
    Spend,
    TaskLabels,
    UnitOutcome,
)
from tests.rows import outcome, result

TASK_TOML = """\
# pwb-canary: 5b1f0c7e-pwb-grader-only
id = "{id}"
regime = "change"
capability = "{capability}"
facet = "content"
stack = "static"
framework = "none"
allowed_paths = ["index.html"]

[serve]
start = "python3 -m http.server $PORT --bind 0.0.0.0"

[[states]]
id = "home"
route = "/"

[[checks]]
id = "c1"
gate = "dom"
state = "home"
describe = "The page has a heading"
assert = {{ kind = "exists", selector = "h1" }}

[[units]]
id = "u1"
request = "Add a heading."
checks = ["c1"]
"""

HERO_MESSAGE = "<b>Hero</b> heading missing on / at desktop: found 0 of 1 & none visible"
SHOT_CELL = "t1/a/staged/1"


def make_task(tasks_dir: Path, task_id: str, capability: str) -> str:
    root = tasks_dir / task_id
    (root / "repo").mkdir(parents=True)
    (root / "reference").mkdir()
    (root / "repo" / "index.html").write_text("<title>x</title>\n")
    (root / "reference" / "u1.patch").write_text(CANARY_LINE)
    (root / "task.toml").write_text(TASK_TOML.format(id=task_id, capability=capability))
    ref = root / "evidence" / "reference"
    ref.mkdir(parents=True)
    Image.new("RGB", (40, 30), (0, 120, 255)).save(ref / "home.png")
    Image.new("RGB", (40, 90), (0, 120, 255)).save(ref / "home.full.png")
    return load_task(root).contract_hash


def scores(
    gate: float,
    stage: float,
    wcs: float,
    *,
    whole: bool = False,
    completion: bool = True,
    cons: bool = True,
    broad: bool = True,
    breaks: int = 0,
) -> Scores:
    return Scores(
        stage=stage,
        gate=gate,
        final_pass=gate == 1.0,
        breaks=breaks,
        whole_task=whole,
        wcs=wcs,
        completion_pass=completion,
        continuity_pass=cons,
        continuity_pass_broad=broad,
        complete_not_cleared=completion and not cons,
        complete_not_cleared_broad=completion and not broad,
    )


def row(
    task: str,
    solver: str,
    arm: str,
    repeat: int,
    hashes: dict[str, str],
    *,
    status: str = "ok",
    error: str = "",
    scores: Scores | None = None,
    **kw: Any,
) -> ManifestRow:
    cap: Capability = "repair" if task == "t2" else "edit"
    tokens = kw.pop("input_tokens", 0) + kw.pop("output_tokens", 0)
    spend = Spend(tokens=tokens, cost_usd=kw.pop("cost_usd", 0.0))
    res = result(scores, **kw) if scores is not None else None
    return ManifestRow(
        sweep="s1",
        cell=f"{task}/{solver}/{arm}/{repeat}",
        task=task,
        labels=TaskLabels(
            regime="change", capability=cap, facet="content", stack="static", framework="none"
        ),
        contract_hash=hashes.get(task, "0" * 64),
        config_hash="cfg",
        solver=solver,
        arm=arm,  # type: ignore[arg-type]
        repeat=repeat,
        outcome=outcome(status, error, res),
        spend=spend,
    )


def _flip(check: str, gate: str, repaired: int | None = None) -> Flip:
    return Flip(check=check, gate=gate, passed_at=0, failed_at=1, repaired_at=repaired)  # type: ignore[arg-type]


def known_rows(h: dict[str, str]) -> list[ManifestRow]:
    """Rows in manifest order; the expected numbers are derived in test_report_aggregate.py."""
    ok = "ok"
    return [
        row(
            "t1",
            "a",
            "staged",
            0,
            h,
            status=ok,
            baseline_covered=True,
            final_gates={"dom": "pass", "text": "pass", "visual_regression": "pass"},
            scores=scores(1.0, 1.0, 1.0, whole=True),
        ),
        row(
            "t1",
            "a",
            "staged",
            1,
            h,
            status=ok,
            baseline_covered=True,
            final_gates={"dom": "fail", "text": "pass", "regression_text": "fail"},
            flips=(_flip("c1", "regression_text"),),
            units=(
                UnitOutcome(
                    id="u1", kind="stage", cleared=True, capped=False, turns=1, cleared_at=0
                ),
                UnitOutcome(id="u2", kind="rework", cleared=False, capped=True, turns=12),
            ),
            baseline_regressions=(BaselineRegression(gate="layout_overflow"),),
            scores=scores(0.5, 0.5, 0.4, cons=False, broad=False, breaks=1),
        ),
        row(
            "t2",
            "a",
            "staged",
            0,
            h,
            status=ok,
            baseline_covered=False,
            flips=(_flip("nav", "navigation", repaired=2),),
            scores=scores(0.75, 1.0, 0.7, broad=False, breaks=1),
        ),
        row(
            "t1",
            "b",
            "staged",
            0,
            h,
            status=ok,
            baseline_covered=True,
            baseline_regressions=(
                BaselineRegression(gate="console", failed_checks=("console@home",)),
            ),
            scores=scores(0.25, 0.0, 0.1, completion=False, cons=False, broad=False),
        ),
        row("t2", "b", "staged", 0, h, status="infra_error", error="daemon gone"),
        row(
            "t2",
            "b",
            "staged",
            1,
            h,
            status=ok,
            baseline_covered=True,
            scores=scores(0.5, 0.5, 0.3),
        ),
        row(
            "t1",
            "c",
            "staged",
            0,
            h,
            status="budget",
            scores=scores(0.0, 0.0, 0.0, completion=False, cons=False, broad=False),
        ),
        # superseded by the next row of the same cell
        row("t2", "c", "staged", 0, h, status=ok, scores=scores(0.0, 0.0, 0.0)),
        row(
            "t2",
            "c",
            "staged",
            0,
            h,
            status=ok,
            baseline_covered=True,
            scores=scores(1.0, 1.0, 1.0, whole=True),
        ),
        row("t1", "a", "full-spec", 0, h, status=ok, scores=scores(0.5, 1.0, 0.5)),
        row("t2", "a", "full-spec", 0, h, status=ok, scores=scores(0.25, 1.0, 0.2)),
        # stale: hash of an older contract
        row("t1", "a", "staged", 2, {"t1": "f" * 64}, status=ok, scores=scores(1.0, 1.0, 1.0)),
        # task gone
        row("gone", "a", "staged", 0, h, status=ok, scores=scores(1.0, 1.0, 1.0)),
    ]


def write_events(cell_dir: Path) -> None:
    # Where a cell writes them: relative to the checkpoint's artifact directory.
    shots = cell_dir / "artifacts" / "checkpoint-001-final" / "states"
    shots.mkdir(parents=True)
    Image.new("RGB", (40, 30), (255, 80, 0)).save(shots / "home.png")
    (shots.parents[2] / "artifacts" / "checkpoint-000" / "states").mkdir(parents=True)
    cp0 = CheckpointSummary(
        index=0, unit="u1", build_ok=True, serve_ok=True, passed=3, failed=0, gates={"dom": "pass"}
    )
    cp1 = CheckpointSummary(
        index=1,
        unit="",
        build_ok=True,
        serve_ok=True,
        passed=2,
        failed=1,
        gates={"dom": "fail"},
        checks=(
            CheckResult(id="c1", gate="dom", state="home", passed=False, message=HERO_MESSAGE),
            CheckResult(id="c2", gate="text", state="home", passed=True),
            CheckResult(
                id="v1",
                gate="visual_regression",
                state="home",
                passed=False,
                observed="12.00% of pixels differ",
                region=(5, 5, 10, 8),
            ),
        ),
        screenshots={"home": "states/home.png", "evil": "../../../../../etc/passwd"},
    )
    events: list[Event] = [
        ev.Start(t=100.0, text="t1 a staged"),
        ev.Reveal(t=100.5, unit="u1", text="Add a heading."),
        ev.Turn(t=101.0, unit="u1", turn=1, text="I added <h1>."),
        ev.Edit(t=101.2, unit="u1", path="index.html", applied=True),
        ev.Checkpoint(t=102.0, unit="u1", checkpoint=cp0),
        ev.Cleared(t=102.1, unit="u1", turn=1),
        ev.FlipEvent(t=103.0, check="c1", passed_at=0, failed_at=1),
        ev.Checkpoint(t=104.0, checkpoint=cp1),
        ev.End(t=105.0, text="wcs=0.4"),
    ]
    enc = msgspec.json.Encoder()
    (cell_dir / "events.jsonl").write_bytes(
        b"".join(enc.encode(e) + b"\n" for e in events) + b'{"t": 106.0, "ki'
    )


@dataclass(frozen=True)
class KnownRun:
    run_dir: Path
    tasks_dir: Path


@pytest.fixture
def known_run(tmp_path: Path) -> KnownRun:
    tasks_dir = tmp_path / "tasks"
    hashes = {"t1": make_task(tasks_dir, "t1", "edit"), "t2": make_task(tasks_dir, "t2", "repair")}
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    enc = msgspec.json.Encoder()
    lines = [enc.encode(r) for r in known_rows(hashes)]
    torn = json.dumps({"sweep": "s1", "cell": "t1/z/staged/0"})[:20].encode()
    (run_dir / "manifest.jsonl").write_bytes(b"\n".join([*lines, torn]))
    write_events(run_dir / "cells" / SHOT_CELL.replace("/", "__"))
    return KnownRun(run_dir=run_dir, tasks_dir=tasks_dir)
