"""The sweep for real: manifest rows, kill -9 + resume, SIGINT teardown, the money cap."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest

from orchestrator.config import load_config
from orchestrator.records import FINAL_STATUSES, read_rows
from orchestrator.sweep import SweepOptions, is_run_dir, run_sweep
from tests.fixtures.bench import ROOT, bench, cli


@pytest.mark.browser
@pytest.mark.anyio
async def test_every_cell_gets_exactly_one_row(require_chromium: None, tmp_path: Path) -> None:
    cfg = load_config(bench(tmp_path, repeats=6, concurrency=6))
    out = await run_sweep(cfg, SweepOptions(run_dir=tmp_path / "run", progress="quiet"))
    run_dir, rows = out.run_dir, out.rows
    on_disk = read_rows(run_dir / "manifest.jsonl")
    assert len(on_disk) == 6 == len(rows)
    assert Counter(r.cell for r in on_disk) == Counter(
        f"tiny-shop/reference/staged/{i}" for i in range(6)
    )
    assert {r.status for r in on_disk} == {"ok"}
    assert {r.backend for r in on_disk} == {"local"}  # every row says where it ran
    assert all(r.scores is not None and r.scores.whole_task for r in on_disk)


@pytest.mark.browser
@pytest.mark.slow
def test_kill_9_then_resume_loses_and_duplicates_nothing(
    require_chromium: None, tmp_path: Path
) -> None:
    config = bench(tmp_path, repeats=8, concurrency=2)
    run_dir = tmp_path / "run"
    rng = random.Random(7)
    finished_before: set[str] = set()
    for attempt in range(3):
        # Killed before it wrote anything (start-up), a run does not exist yet: start it.
        args = (
            cli(config, "--resume", str(run_dir))
            if attempt and is_run_dir(run_dir)
            else cli(config, "--run-dir", str(run_dir))
        )
        proc = subprocess.Popen(
            args, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        time.sleep(rng.uniform(6, 14))
        proc.kill()  # SIGKILL: no cleanup of any kind
        proc.wait()
        rows = read_rows(run_dir / "manifest.jsonl")
        final = [r for r in rows if r.status in FINAL_STATUSES]
        counts = Counter(r.cell for r in final)
        assert all(n == 1 for n in counts.values()), counts  # nothing re-run or duplicated
        assert finished_before <= set(counts)  # nothing lost
        finished_before = set(counts)
    done = subprocess.run(
        cli(config, "--resume" if is_run_dir(run_dir) else "--run-dir", str(run_dir)),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    rows = read_rows(run_dir / "manifest.jsonl")
    finals = Counter(r.cell for r in rows if r.status in FINAL_STATUSES)
    assert finals == Counter(f"tiny-shop/reference/staged/{i}" for i in range(8))


@pytest.mark.docker
@pytest.mark.browser
def test_sigint_tears_down_every_container_and_leaves_a_valid_manifest(
    require_docker: None, require_chromium: None, tmp_path: Path
) -> None:
    config = bench(
        tmp_path, repeats=4, concurrency=4, backend="docker", solver="noop", kind="noop", turns=3
    )
    run_dir = tmp_path / "run"
    proc = subprocess.Popen(
        cli(config, "--run-dir", str(run_dir)),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # A sweep's resources carry its run lock's path (its sweep id is unique per process).
    label = f"label=pwb.lock={(run_dir / '.lock').resolve()}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        ps = subprocess.run(
            ["docker", "ps", "-q", "--filter", label], capture_output=True, text=True
        )
        if ps.stdout.split():
            break
        time.sleep(0.5)
    else:
        proc.kill()
        pytest.fail("the sweep never started a container")
    os.kill(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err[-2000:]
    assert "resume with:" in out
    left = subprocess.run(
        ["docker", "ps", "-aq", "--filter", label], capture_output=True, text=True
    )
    assert left.stdout.split() == []
    nets = subprocess.run(
        ["docker", "network", "ls", "-q", "--filter", label], capture_output=True, text=True
    )
    assert nets.stdout.split() == []  # the sweep's network is removed too
    rows = read_rows(run_dir / "manifest.jsonl")
    assert Counter(r.cell for r in rows) == Counter(f"tiny-shop/noop/staged/{i}" for i in range(4))
    assert "cancelled" in {r.status for r in rows}


@pytest.mark.browser
@pytest.mark.anyio
async def test_money_cap_ends_the_sweep_with_budget_rows(
    require_chromium: None, tmp_path: Path
) -> None:
    config = bench(
        tmp_path,
        repeats=6,
        concurrency=2,
        solver="fake-llm",
        kind="llm",
        solver_extra='provider = "fake"',
        extra="max_usd = 0.5",
    )
    cfg = load_config(config)
    out = await run_sweep(cfg, SweepOptions(run_dir=tmp_path / "run", progress="quiet"))
    run_dir, rows = out.run_dir, out.rows
    statuses = Counter(r.status for r in read_rows(run_dir / "manifest.jsonl"))
    assert sum(statuses.values()) == 6
    assert statuses["budget"] >= 4, statuses
    # The cap stopped the sweep because the money was spent: the rows' spend adds up to at
    # least the cap, and every cell that ran an attempt paid for it (`>= 0` could not fail).
    assert sum(r.spend.cost_usd for r in rows) >= 0.5, [r.spend for r in rows]
    assert all(r.spend.cost_usd > 0 for r in rows if r.attempts > 0), [r.spend for r in rows]
    # A cell the cap stopped mid-run still took its final checkpoint and is scored on it.
    stopped = [r for r in rows if r.status == "budget" and r.attempts > 0]
    assert stopped, statuses
    for r in stopped:
        assert r.result is not None and r.final_gates and r.result.checkpoints >= 1, r
        assert "budget exceeded" in r.error


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
