"""A sandbox lost mid-cell is an infrastructure fault: retried, never graded.

The fake-backend test removes the sandbox before one checkpoint (the check that catches
it runs before and after every checkpoint); the Docker test removes a real container
with `docker rm -f` while its cell runs.
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections import Counter
from pathlib import Path

import anyio
import pytest

from orchestrator.config import load_config
from orchestrator.records import read_rows
from orchestrator.sweep import SweepOptions, run_sweep
from sandbox import ContainerError
from tests.fakes import Point
from tests.fixtures.bench import bench
from tests.fixtures.cellsweep import cell_sweep


def test_sandbox_lost_before_a_checkpoint_is_retried_with_undisturbed_scores(
    tmp_path: Path,
) -> None:
    calm, _ = cell_sweep(tmp_path / "calm", lambda p, c, n: None)

    def lose_second_checkpoint(point: Point, cell: str, n: int) -> BaseException | None:
        return ContainerError("container abc is gone") if point == "alive" and n == 3 else None

    rows, _ = cell_sweep(tmp_path / "lost", lose_second_checkpoint)
    assert [(r.status, r.attempts) for r in rows] == [("ok", 2)]
    assert rows[0].result == calm[0].result  # graded only on the undisturbed attempt


@pytest.mark.docker
@pytest.mark.browser
def test_container_removed_mid_cell_is_retried_and_scores_equal_undisturbed(
    require_docker: None, require_chromium: None, tmp_path: Path
) -> None:
    config = bench(tmp_path, repeats=2, concurrency=2, backend="docker", turns=1)
    run_dir = tmp_path / "run"
    label = f"label=pwb.lock={(run_dir / '.lock').resolve()}"
    removed: list[str] = []

    def remove_one() -> None:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and not removed:
            ps = subprocess.run(
                ["docker", "ps", "-q", "--filter", label], capture_output=True, text=True
            )
            ids = ps.stdout.split()
            if ids:
                time.sleep(2.0)  # mid-cell: the cell is working on it by now
                subprocess.run(["docker", "rm", "-f", ids[0]], capture_output=True)
                removed.append(ids[0])
            time.sleep(0.2)

    killer = threading.Thread(target=remove_one, daemon=True)
    killer.start()
    cfg = load_config(config)
    anyio.run(
        lambda: run_sweep(cfg, SweepOptions(run_dir=run_dir, progress="quiet")),
        backend="asyncio",
    )
    killer.join(timeout=5)
    assert removed, "no container was ever seen"
    rows = read_rows(run_dir / "manifest.jsonl")
    assert Counter(r.cell for r in rows) == Counter(
        f"tiny-shop/reference/staged/{i}" for i in range(2)
    )
    assert {r.status for r in rows} == {"ok"}, [(r.status, r.error) for r in rows]
    assert max(r.attempts for r in rows) == 2  # the disturbed cell was retried
    assert all(r.scores is not None and r.scores.whole_task for r in rows)  # as undisturbed
