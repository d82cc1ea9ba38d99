"""`--replay full` vs the default reuse: identical verdicts at every checkpoint.

Runs shipped tasks' staged `reference` cell and each of its negative controls twice —
with a pool that replays every state (`replay="full"`, the audit mode) and with the
default that reuses unchanged states — and compares, checkpoint by checkpoint, every
check's passed/applicable/observed and every gate's status.

The whole suite both ways takes hours on 2 shared cores, so CI (90 minutes in all) runs a
representative subset: `fernhill-save-tools` (a static stack, where reuse is exercised:
per-URL dependencies, a negative applied after a unit), reference and first negative.
`PWB_AUDIT_TASKS='*'` (space-separated globs) audits every shipped task with every
negative; `PWB_AUDIT_TASKS='clinic-*'` adds a node stack (restarted at every change, so
reused only for an identical tree), `'coworking-*'` a php one (per-file dependencies
from the server's traced opens, `_reuse/_opens.py`).
"""

from __future__ import annotations

import fnmatch
import json
import os
from pathlib import Path
from typing import Any

import pytest

from orchestrator.cell import CellContext, run_cell
from orchestrator.contract import load_task
from orchestrator.solvers import NegativeSolver, ReferenceSolver, Solver
from orchestrator.verifier import BrowserPool, BrowserVerifier
from sandbox import DockerBackend, Labels
from tests.sweeps import new_sweep

SWEEP = new_sweep("pytest-audit")  # unique; collected at the session end

pytestmark = [pytest.mark.anyio, pytest.mark.docker, pytest.mark.browser]
ROOT = Path(__file__).resolve().parents[2]
SUBSET = {"fernhill-save-tools": 1}  # task -> negatives (None: all)


def _cells() -> list[tuple[str, str]]:
    globs = os.environ.get("PWB_AUDIT_TASKS", "").split()
    out = []
    for task_dir in sorted((ROOT / "tasks").glob("*/task.toml")):
        tid = task_dir.parent.name
        if globs and not any(fnmatch.fnmatch(tid, g) for g in globs):
            continue
        if not globs and tid not in SUBSET:
            continue
        negatives = [n.name for n in load_task(task_dir.parent).contract.negatives]
        keep = None if globs else SUBSET[tid]
        out += [(tid, "reference")] + [(tid, n) for n in negatives[:keep]]
    return out


def _verdicts(events: Path) -> list[Any]:
    rows = []
    for line in events.read_text().splitlines():
        e = json.loads(line)
        if e["kind"] == "checkpoint":
            c = e["checkpoint"]
            checks = [
                (k["id"], k["passed"], k.get("applicable", True), k["observed"])
                for k in c["checks"]
            ]
            rows.append((c["index"], c["unit"], c["gates"], sorted(checks)))
    return rows


@pytest.mark.full
@pytest.mark.timeout(3600)  # two cells of a real task; ~20 min under heavy load
@pytest.mark.parametrize(("task_id", "solver"), _cells())
async def test_reuse_grades_exactly_like_a_full_replay(
    require_docker: None, require_chromium: None, tmp_path: Path, task_id: str, solver: str
) -> None:
    task = load_task(ROOT / "tasks" / task_id)
    seen: dict[str, list[Any]] = {}
    reused = 0
    for mode in ("full", "reuse"):
        async with BrowserPool(max_contexts=2, replay=mode) as pool:
            player: Solver = (
                ReferenceSolver(task) if solver == "reference" else NegativeSolver(task, solver)
            )
            ctx = CellContext(
                task=task,
                backend=DockerBackend(),
                verifier=BrowserVerifier(pool),
                browser=pool,
                cell_dir=tmp_path / mode,
                labels=Labels(sweep=SWEEP, cell=f"{task_id}-{solver}-{mode}"),
            )
            await run_cell(ctx, player, "staged")
        events = tmp_path / mode / "events.jsonl"
        seen[mode] = _verdicts(events)
        if mode == "reuse":
            reused = sum(
                len(json.loads(ln)["checkpoint"].get("reused", {}))
                for ln in events.read_text().splitlines()
                if json.loads(ln)["kind"] == "checkpoint"
            )
    assert seen["full"], "no checkpoint ran"
    assert seen["reuse"] == seen["full"]
    if task_id == "fernhill-save-tools":
        assert reused > 0, "the static task reused nothing: the audit compared two full replays"
