"""A Ray cluster whose only worker node is lost, and keys only the driver holds (#41,
item 4), on a real one-worker cluster on this machine (`tests.fixtures.raycluster`).

- The only worker is removed mid-sweep: the cells wait for capacity (here a 6 s bound,
  `ray_capacity_wait_s`) instead of burning their three attempts in two seconds, then
  end `infra_error` without a result; the sweep says why and that it is resumable.
  A worker is started again and `--resume` completes the run.
- A provider key set only in the driver's environment (the worker started without it)
  reaches the node through the object store, per sweep: the LLM cells run.

CPU heavy (a cluster, Chromium on the node): `full` tier.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest

from orchestrator.config import load_config
from orchestrator.llm import FakeProvider
from orchestrator.records import read_rows
from orchestrator.sweep import SweepOptions, run_sweep, staging_root
from tests.fixtures.bench import bench
from tests.fixtures.raycluster import add_worker, start_head

ray = pytest.importorskip("ray") if os.environ.get("CI") != "true" else __import__("ray")
pytestmark = [pytest.mark.full, pytest.mark.browser, pytest.mark.anyio]
KEY_ENV = "PWB_TEST_RAY_DRIVER_KEY"
KEY = "sk-ray-driver-only-4b1e"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    os.environ.pop(KEY_ENV, None)  # the worker nodes start without the key
    c = start_head()
    workers = [add_worker(c)]
    c.wait_for_nodes()
    ray.init(address=c.address, include_dashboard=False, log_to_driver=False)
    try:
        yield c, workers
    finally:
        ray.shutdown()
        c.shutdown()


def _ray(path: Path, **sweep: Any) -> Any:
    cfg = load_config(path)
    return msgspec.structs.replace(
        cfg, sweep=msgspec.structs.replace(cfg.sweep, engine="ray", **sweep)
    )


async def test_the_only_worker_lost_ends_resumable_rows_and_resume_completes(
    require_chromium: None, cluster: Any, tmp_path: Path
) -> None:
    c, workers = cluster
    config = bench(tmp_path, repeats=4, concurrency=2, turns=3)
    run_dir = tmp_path / "run"

    async def lose_the_worker() -> None:
        while not list(staging_root().glob(f"{run_dir.name}-*/cells/*")):
            await anyio.sleep(0.1)
        await anyio.to_thread.run_sync(c.remove_node, workers.pop())

    async with anyio.create_task_group() as tg:
        tg.start_soon(lose_the_worker)
        out = await run_sweep(
            _ray(config, ray_capacity_wait_s=6.0),
            SweepOptions(run_dir=run_dir, progress="quiet"),
        )
    rows = read_rows(run_dir / "manifest.jsonl")
    assert len(rows) == 4 == len({r.cell for r in rows})
    assert "ray_capacity_wait_s" in out.stopped and "--resume" in out.stopped  # exit 3
    lost = [r for r in rows if r.status != "ok"]
    assert lost and all(r.status == "infra_error" and r.result is None for r in lost), rows
    # The cells running on the lost worker waited for capacity (the bound passed first),
    # not 3 attempts in 2 s; the cells queued behind them ended at once after it.
    assert all(r.attempts <= 2 for r in lost), [r.attempts for r in lost]
    assert any(r.wall_s >= 6.0 for r in lost), [r.wall_s for r in lost]

    workers.append(add_worker(c))  # the worker is back
    resumed = await run_sweep(
        _ray(config), SweepOptions(run_dir=run_dir, resume=True, progress="quiet")
    )
    assert not resumed.stopped
    latest = {r.cell: r for r in read_rows(run_dir / "manifest.jsonl")}
    assert len(latest) == 4 and {r.status for r in latest.values()} == {"ok"}


async def test_a_key_only_the_driver_holds_reaches_the_node(
    require_chromium: None,
    cluster: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tasks = tmp_path / "tasks"
    config = bench(tmp_path, repeats=2, concurrency=2, turns=2)  # makes the task
    async with FakeProvider(task_dir=tasks / "tiny-shop", api_key=KEY) as fake:
        config = bench(
            tmp_path,
            repeats=2,
            concurrency=2,
            solver="paid-llm",
            kind="llm",
            solver_extra='provider = "paid"',
            extra=(
                '\n[[providers]]\nname = "paid"\nkind = "openai"\n'
                f'base_url = "{fake.base_url}"\nmodel = "gpt-x"\napi_key_env = "{KEY_ENV}"\n'
            ),
            turns=2,
        )
        monkeypatch.delenv(KEY_ENV, raising=False)
        missing = await run_sweep(
            _ray(config), SweepOptions(run_dir=tmp_path / "none", progress="quiet")
        )
        (refused, *_) = [r for r in missing.rows if r.status == "config_error"]
        # Named where it is missing: on the driver (which passes it) and on the worker.
        assert f"${KEY_ENV} is not set on the sweep's driver" in refused.error
        monkeypatch.setenv(KEY_ENV, KEY)  # the driver's environment only
        out = await run_sweep(
            _ray(config), SweepOptions(run_dir=tmp_path / "run", progress="quiet")
        )
        assert not out.stopped, out.stopped
        assert {r.status for r in out.rows} == {"ok"}, [r.error for r in out.rows]
        assert fake.requests  # the calls went out, with the key the fake checks
