"""Provider outages pause cells, never fail them (issue #16, the matrix's LLM outages).

The scripted provider runs on loopback outside the sweep and answers every request with
429 for a fixed time (a storm). The sweep's cells must ride it out behind the breaker's
pause and end `ok`; an outage longer than the pause bound ends them `outage`, the sweep
exits non-zero, and `--resume` re-runs exactly those cells.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from orchestrator.config import load_config
from orchestrator.llm import FakeProvider, Fault
from orchestrator.records import read_rows
from orchestrator.sweep import SweepOptions, run_sweep
from tests.fixtures.bench import bench

ROOT = Path(__file__).resolve().parents[2]
KEY_ENV = "PWB_TEST_OUTAGE_KEY"
CELLS = 4
PROVIDER = """
[[providers]]
name = "flaky"
kind = "openai"
base_url = "{url}"
model = "scripted"
api_key_env = "{env}"
backoff_initial_s = 0.5
backoff_max_s = 4.0
outage_probe_s = 2.0
outage_max_pause_s = {bound}
"""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _config(tmp: Path, url: str, bound: float) -> Path:
    return bench(
        tmp,
        repeats=CELLS,
        concurrency=CELLS,
        solver="flaky-llm",
        kind="llm",
        solver_extra='provider = "flaky"',
        extra=PROVIDER.format(url=url, env=KEY_ENV, bound=bound),
    )


@pytest.mark.browser
@pytest.mark.full  # fast: the loopback storms of tests/llm/test_outage.py
@pytest.mark.slow
@pytest.mark.anyio
async def test_a_60_second_429_storm_fails_no_cell(
    require_chromium: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-outage-test")
    (tmp_path / "tasks").mkdir()
    from tests.fixtures.tinytask import make_tiny_task

    task = make_tiny_task(tmp_path / "tasks", turns=1)
    storm = Fault(kind="status", status=429, for_s=60.0)
    async with FakeProvider(task_dir=task, api_key="sk-outage-test", faults=[storm]) as fake:
        # The bound is far above the storm: the test fails (not hangs) if cells are not
        # released by the first success after it.
        cfg = load_config(_config(tmp_path, fake.base_url, bound=150.0))
        start = time.monotonic()
        opts = SweepOptions(run_dir=tmp_path / "run", progress="quiet")
        out = await run_sweep(cfg, opts)
        elapsed = time.monotonic() - start
        during = [r for r in fake.requests if r.path == "/v1/chat/completions"]
    rows = read_rows(out.run_dir / "manifest.jsonl")
    assert Counter(r.status for r in rows) == Counter({"ok": CELLS}), [r.error for r in rows]
    assert all(r.scores is not None and r.scores.whole_task for r in rows)
    assert all(r.attempts == 1 for r in rows)  # paused, not failed and retried
    assert not out.stopped
    assert elapsed >= 60.0
    # Behind the breaker the provider saw about one probe every 2 s, not 4 cells
    # retrying: 60 s / 2 s = 30 probes, plus the requests before it tripped and the
    # cells' real work after it.
    assert len(during) < 30 + 5 * CELLS + 40, len(during)


def _cli(config: Path, *extra: str) -> list[str]:
    base = [sys.executable, "-m", "orchestrator", "--config", str(config), "--quiet"]
    return [*base, "--no-report", *extra]


@pytest.mark.browser
@pytest.mark.anyio
async def test_an_outage_past_the_bound_ends_cells_outage_and_resume_reruns_them(
    require_chromium: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-outage-test")
    from tests.fixtures.tinytask import make_tiny_task

    task = make_tiny_task(tmp_path / "tasks", turns=1)
    down = Fault(kind="status", status=503, times=0)  # down until cleared
    async with FakeProvider(task_dir=task, api_key="sk-outage-test", faults=[down]) as fake:
        config = _config(tmp_path, fake.base_url, bound=3.0)
        run_dir = tmp_path / "run"
        first = subprocess.run(
            _cli(config, "--run-dir", str(run_dir)), cwd=ROOT, capture_output=True, text=True
        )
        rows = read_rows(run_dir / "manifest.jsonl")
        assert Counter(r.status for r in rows) == Counter({"outage": CELLS}), first.stderr
        assert all("pause bound" in r.error for r in rows)
        assert first.returncode == 3, first.stderr[-2000:]  # stopped early: resumable
        assert "--resume" in first.stdout and "outage" in first.stderr

        fake.clear_faults()  # the provider is back
        second = subprocess.run(
            _cli(config, "--resume", str(run_dir)), cwd=ROOT, capture_output=True, text=True
        )
    assert second.returncode == 0, second.stderr[-2000:]
    rows = read_rows(run_dir / "manifest.jsonl")
    latest = {r.cell: r for r in rows}
    assert len(rows) == 2 * CELLS and len(latest) == CELLS
    assert {r.status for r in latest.values()} == {"ok"}
    assert all(r.scores is not None and r.scores.whole_task for r in latest.values())
