"""Record a real sweep, regrade it from its trajectories alone (Docker + Chromium).

One task: in the staged arm the reference, its first negative, thrash and the scripted
fake LLM; in the full-spec arm aider (a CLI agent through the metering gateway). The
regrade runs no solver and calls no model, under a hostile host fontconfig (the sweep
ran on the host's), and every verdict, flip and score is identical (the agreement
table: 0 differing); a planted verifier change (one check inverted) shows up in the
verdict diff, and only there. The ci tier runs it on the tiny test task (2 states); the
full tier on a small shipped task (static, 3 units, 8 states: 13 cell runs, ~10 min on a
loaded 2-core machine), where the submission path (export, then `regrade --submission`)
also grades the same cells the same way.
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import msgspec
import pytest

from orchestrator.config import load_config
from orchestrator.contract import CANARY, load_task
from orchestrator.records import VerifyReport, cell_dir_name, read_rows
from orchestrator.records import trajectory as tj
from orchestrator.regrade import RegradeOptions, agreement, export_run, regrade
from orchestrator.sweep import SweepOptions, run_sweep
from orchestrator.verifier import BrowserPool, BrowserVerifier, VerifyRequest
from tests.conftest import use_hostile_fonts
from tests.fakes import FakeVerifierBase
from tests.fixtures.tinytask import make_tiny_task

pytestmark = [pytest.mark.anyio, pytest.mark.docker, pytest.mark.browser]
ROOT = Path(__file__).resolve().parents[2]
SHIPPED = "hollin-ridge-sessions"

BENCH = """
[sweep]
name = "regrade"
runs_dir = "RUNS"
tasks_dir = "TASKS"
tasks = ["TASK_ID"]
arms = ["staged", "full-spec"]
repeats = 1
concurrency = 4
backend = "docker"
baseline = true
browser_contexts = 2

[[providers]]
name = "fake"
kind = "fake"
model = "scripted-reference"

[[solvers]]
name = "reference"
kind = "reference"
arms = ["staged"]

[[solvers]]
name = "negative"
kind = "negative"
arms = ["staged"]

[[solvers]]
name = "thrash"
kind = "thrash"
arms = ["staged"]

[[solvers]]
name = "fake-llm"
kind = "llm"
provider = "fake"
arms = ["staged"]
options = { vision = false, max_steps_per_turn = 30 }
"""


class Inverted(FakeVerifierBase):
    """The browser verifier with a planted change: one check's verdict inverted."""

    def __init__(self, pool: BrowserPool, check: str) -> None:
        self.inner = BrowserVerifier(pool)
        self.check = check

    async def grade(self, request: VerifyRequest) -> VerifyReport:
        # As before the request object: the inner verifier was asked with its default
        # `a11y` (True), whatever the checkpoint asked.
        return await self.inner.verify(dataclasses.replace(request, a11y=True))

    def amend(self, request: VerifyRequest, report: VerifyReport) -> VerifyReport:
        from orchestrator.verifier import gate_results

        checks = [
            msgspec.structs.replace(c, passed=not c.passed) if c.id == self.check else c
            for c in report.checks
        ]
        return msgspec.structs.replace(report, checks=tuple(checks), gates=gate_results(checks))


def _verdicts(rows: list) -> dict[str, tuple]:  # type: ignore[type-arg]
    out = {}
    for r in rows:
        res = r.result
        assert res is not None, (r.cell, r.status, r.error)
        out[r.cell] = (
            r.status,
            res.units,
            res.final_gates,
            res.flips,
            res.scores,
            res.baseline_regressions,
            res.checkpoints,
            res.turns,
        )
    return out


@pytest.mark.parametrize(
    "shipped",
    [
        pytest.param(False, id="tiny"),
        pytest.param(True, id=SHIPPED, marks=[pytest.mark.full, pytest.mark.timeout(2400)]),
    ],
)
async def test_a_recorded_sweep_regrades_identically_and_a_planted_change_shows_only_in_the_diff(
    require_docker: None,
    require_chromium: None,
    tmp_path: Path,
    shipped: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tasks = ROOT / "tasks" if shipped else make_tiny_task(tmp_path / "tasks").parent
    task_id = SHIPPED if shipped else "tiny-shop"
    (tmp_path / "bench.toml").write_text(
        BENCH.replace("RUNS", str(tmp_path / "runs"))
        .replace("TASKS", str(tasks))
        .replace("TASK_ID", task_id)
    )
    cfg = load_config(tmp_path / "bench.toml")
    # One CLI agent too: aider (bench.toml's preset, full-spec) through the gateway.
    aider = next(s for s in load_config(ROOT / "bench.toml").solvers if s.name == "aider")
    cfg = msgspec.structs.replace(cfg, solvers=(*cfg.solvers, aider))
    run = tmp_path / "run"
    swept = await run_sweep(cfg, SweepOptions(run_dir=run, progress="quiet"))
    rows = read_rows(run / "manifest.jsonl")
    assert len(rows) == 5 and {r.status for r in rows} == {"ok"}, [(r.cell, r.error) for r in rows]
    assert f"{task_id}/aider/full-spec/0" in {r.cell for r in rows}
    for r in rows:  # a trajectory per cell, without a grader-only byte
        data = (run / "cells" / cell_dir_name(r.cell) / tj.FILE).read_bytes()
        assert CANARY.encode() not in data, r.cell
        assert tj.parse(data, r.cell).end() is not None
    llm = tj.read(run / "cells" / cell_dir_name(f"{task_id}/fake-llm/staged/0") / tj.FILE)
    calls = [c.name for t in llm.turns() for m in t.messages for c in m.tool_calls]
    assert calls and {"write_file", "done"} & set(calls), calls  # the LLM's tool calls
    assert sum(t.usage.requests for t in llm.turns()) > 0

    # Regraded under a hostile host fontconfig (the sweep graded on the host's own): a
    # verdict is a function of the package and the work tree, so they agree 100%.
    use_hostile_fonts(monkeypatch, tmp_path / "hostile")
    out = await regrade(cfg, RegradeOptions(out=tmp_path / "again", run_dir=run))
    assert _verdicts(out.rows) == _verdicts(swept.rows)
    assert [c.cell for c in out.diff.changed] == [] and all(not c.why for c in out.diff.cells)
    table = agreement(out.diff)
    assert (
        all(bad == 0 for _, _, bad in table)
        and dict((k, n) for k, n, _ in table)["check verdicts"] > 0
    ), table
    for r in rows:  # the same work trees at the same checkpoints
        a = tj.read(run / "cells" / cell_dir_name(r.cell) / tj.FILE)
        b = tj.read(tmp_path / "again" / "cells" / cell_dir_name(r.cell) / tj.FILE)
        assert [c.tree for c in a.checkpoints()] == [c.tree for c in b.checkpoints()]

    # The submission path: exported, then graded as anyone's would be.
    sub = tmp_path / "run.submission"
    assert export_run(run, sub) == (5, [])
    assert CANARY.encode() not in sub.read_bytes()
    if shipped:  # four more cell runs; the fast tier grades submissions on a fake site
        graded = await regrade(cfg, RegradeOptions(out=tmp_path / "sub", submission=sub))
        assert {r.cell: r.scores for r in graded.rows} == {r.cell: r.scores for r in rows}

    # A planted verifier change, on the reference's cell alone (a run of that one row).
    ref = f"{task_id}/reference/staged/0"
    one = tmp_path / "one"
    (one / "cells").mkdir(parents=True)
    (one / "manifest.jsonl").write_bytes(
        b"".join(msgspec.json.encode(r) + b"\n" for r in rows if r.cell == ref)
    )
    shutil.copytree(
        run / "cells" / cell_dir_name(ref), one / "cells" / cell_dir_name(ref), symlinks=True
    )
    task = load_task(tasks / task_id)
    planted = task.contract.preservation_check_ids()[0]
    changed = await regrade(
        cfg,
        RegradeOptions(
            out=tmp_path / "planted",
            run_dir=one,
            verifier=lambda pool: Inverted(pool, planted),
            verifier_version="planted",
        ),
    )
    [cell] = changed.diff.cells
    checks = [c for c in cell.changes if " check " in c]
    assert checks and all(f" check {planted}: pass -> fail" in c for c in checks), cell.changes
    assert not [c for c in cell.changes if c.startswith(("unit", "flip", "checkpoints"))]
    assert cell.why == (f"verifier version changed: {llm.header.verifier} -> planted",)
