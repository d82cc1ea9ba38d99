"""kill -9 at random instants, then `--resume`: nothing lost, nothing duplicated, and the
same scores as an uninterrupted sweep (local backend; the baseline channel is on, so
kills land in baselines too)."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from orchestrator.records import FINAL_STATUSES, CellResult, read_manifest, read_rows
from orchestrator.sweep import is_run_dir
from tests.fixtures.tinytask import make_tiny_task

ROOT = Path(__file__).resolve().parents[2]
KILLS = 10
REPEATS = 4

BENCH = """
[sweep]
name = "kills"
runs_dir = "{runs}"
tasks_dir = "{tasks}"
allow_unadmitted = true  # fixture tasks: never admitted
arms = ["staged"]
repeats = {repeats}
concurrency = 2
backend = "local"
baseline = true
browser_contexts = 2

[[solvers]]
name = "reference"
kind = "reference"
"""


def _config(tmp: Path) -> Path:
    make_tiny_task(tmp / "tasks", turns=1)
    path = tmp / "bench.toml"
    path.write_text(BENCH.format(runs=tmp / "runs", tasks=tmp / "tasks", repeats=REPEATS))
    return path


def _cli(config: Path, *extra: str) -> list[str]:
    base = [sys.executable, "-m", "orchestrator", "--config", str(config), "--quiet"]
    return [*base, "--no-report", *extra]


def _wait_for(ready: Callable[[], bool], proc: subprocess.Popen[bytes], limit: float) -> None:
    deadline = time.monotonic() + limit
    while not ready() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)


def _results(run_dir: Path) -> dict[str, CellResult | None]:
    rows = [r for r in read_rows(run_dir / "manifest.jsonl") if r.status in FINAL_STATUSES]
    return {r.cell: r.result for r in rows}


@pytest.mark.browser
@pytest.mark.full  # the ci tier has test_sweep's kill -9 then resume
@pytest.mark.slow
def test_kill_9_at_random_points_then_resume_equals_an_uninterrupted_sweep(
    require_chromium: None, tmp_path: Path
) -> None:
    config = _config(tmp_path)
    calm = tmp_path / "calm"
    done = subprocess.run(
        _cli(config, "--run-dir", str(calm)), cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    expected = _results(calm)
    cells = {f"tiny-shop/reference/staged/{i}" for i in range(REPEATS)}
    assert set(expected) == cells

    run_dir = tmp_path / "run"
    rng = random.Random(int(os.environ.get("PWB_FAULT_SEED", "16")))
    finished: set[str] = set()
    kills = 0
    for _ in range(3 * KILLS):
        # Killed before it wrote anything (during start-up), a run does not exist yet.
        where = ("--resume",) if is_run_dir(run_dir) else ("--run-dir",)
        proc = subprocess.Popen(
            _cli(config, *where, str(run_dir)),
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        # Anywhere: start-up, a cell, a baseline, a manifest write. Every other kill waits
        # for the sweep to have started working, so kills also land late in cells.
        if kills % 2 and is_run_dir(run_dir):
            _wait_for(lambda: (run_dir / "cells").is_dir(), proc, 60)
        time.sleep(rng.uniform(0.3, 8.0))
        if proc.poll() is None:
            proc.kill()  # SIGKILL: no cleanup of any kind
            kills += 1
        proc.wait()
        read = read_manifest(run_dir / "manifest.jsonl")
        assert read.bad == (), read.bad  # never a corrupt complete line
        final = Counter(r.cell for r in read.items if r.status in FINAL_STATUSES)
        assert all(n == 1 for n in final.values()), final  # nothing re-run or duplicated
        assert finished <= set(final)  # nothing lost
        finished = set(final)
        if kills >= KILLS:
            break
    assert kills >= KILLS, f"only {kills} kills landed before the sweep finished"
    flag = "--resume" if is_run_dir(run_dir) else "--run-dir"
    done = subprocess.run(
        _cli(config, flag, str(run_dir)), cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    rows = read_rows(run_dir / "manifest.jsonl")
    final = Counter(r.cell for r in rows if r.status in FINAL_STATUSES)
    assert final == Counter(cells)  # exactly one terminal row per cell
    assert _results(run_dir) == expected  # the same scores as the uninterrupted sweep
