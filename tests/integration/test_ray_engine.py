"""The `ray` engine (issue #22) on a real two-node Ray cluster on this machine.

The cluster (`ray.cluster_utils.Cluster`): a head for the driver (no cell capacity) and
two worker nodes, each declaring its own `pwb_cells` / browser contexts / sandbox starts;
each node's `CellNode` actor opens its own backend and Chromium. Cells run on the local
sandbox backend with offline solvers (reference, noop) or the fake LLM provider.
"""

from __future__ import annotations

import os
import socket
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import anyio
import msgspec
import pytest

from orchestrator.config import load_config
from orchestrator.events import Error, read_events
from orchestrator.manifest import read_rows
from orchestrator.records import ManifestRow
from orchestrator.sweep import SweepOptions, run_sweep
from tests.integration.test_sweep import bench

ray = pytest.importorskip("ray") if os.environ.get("CI") != "true" else __import__("ray")
from ray.cluster_utils import Cluster  # noqa: E402

T = TypeVar("T")
NODE = {"pwb_cells": 2, "pwb_browser_contexts": 1, "pwb_sandbox_starts": 2}


def _ports() -> dict[str, int]:
    """Fixed agent ports: with them the raylet does not wait (a hard-coded 15 s) for its
    agents to write their port files, which on this overloaded host they sometimes miss
    (ray-project/ray#65983)."""
    names = (
        "metrics_agent_port",
        "metrics_export_port",
        "dashboard_agent_listen_port",
        "runtime_env_agent_port",
    )
    socks = [socket.socket() for _ in names]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = {n: s.getsockname()[1] for n, s in zip(names, socks, strict=True)}
    for s in socks:
        s.close()
    return ports


def _retried(start: Callable[[], T]) -> T:
    """Ray gives a node a fixed 30 s to register; on this shared, overloaded 2-core host
    that is sometimes not enough, so a node's start is tried again."""
    for attempt in range(4):
        try:
            return start()
        except Exception as exc:
            if "timed out during startup" not in str(exc) or attempt == 3:
                raise
    raise AssertionError("unreachable")


def _add_worker(cluster: Any) -> Any:
    return _retried(
        lambda: cluster.add_node(
            num_cpus=0, resources=dict(NODE), include_dashboard=False, **_ports()
        )
    )


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    c = _retried(
        lambda: Cluster(
            initialize_head=True,
            head_node_args={"num_cpus": 0, "include_dashboard": False, **_ports()},
        )
    )
    workers = [_add_worker(c), _add_worker(c)]
    c.wait_for_nodes()
    ray.init(address=c.address, include_dashboard=False, log_to_driver=False)
    try:
        yield c, workers
    finally:
        ray.shutdown()
        c.shutdown()


def _ray(path: Path) -> Any:
    cfg = load_config(path)
    sweep = msgspec.structs.replace(cfg.sweep, engine="ray")
    return msgspec.structs.replace(cfg, sweep=sweep)


def _same(a: ManifestRow, b: ManifestRow) -> dict[str, Any]:
    """A row without what differs between two runs of the same cell."""
    d = msgspec.to_builtins(a)
    for key in ("sweep", "started_at", "finished_at", "wall_s", "attempts"):
        d.pop(key, None)
    return d


@pytest.mark.browser
@pytest.mark.anyio
async def test_rows_equal_a_single_host_sweep(
    require_chromium: None, cluster: Any, tmp_path: Path
) -> None:
    config = bench(tmp_path, repeats=3, concurrency=4)
    local_cfg = load_config(config)
    _, local = await run_sweep(local_cfg, SweepOptions(run_dir=tmp_path / "a", progress="quiet"))
    run_dir, rows = await run_sweep(
        _ray(config), SweepOptions(run_dir=tmp_path / "b", progress="quiet")
    )
    on_disk = read_rows(run_dir / "manifest.jsonl")
    assert len(rows) == len(on_disk) == 3
    assert Counter(r.cell for r in on_disk) == Counter(
        f"tiny-shop/reference/staged/{i}" for i in range(3)
    )
    assert {r.status for r in on_disk} == {"ok"}
    by_cell = {r.cell: r for r in local}
    for r in on_disk:
        assert r.scores is not None and r.scores.whole_task
        assert _same(r, by_cell[r.cell]) == _same(by_cell[r.cell], by_cell[r.cell])
        # the cell's events came back into the driver's run directory
        events = run_dir / "cells" / r.cell.replace("/", "__") / "events.jsonl"
        assert events.exists() and read_events(events)


@pytest.mark.browser
@pytest.mark.anyio
async def test_money_cap_holds_cluster_wide(
    require_chromium: None, cluster: Any, tmp_path: Path
) -> None:
    config = bench(
        tmp_path,
        repeats=6,
        concurrency=4,
        solver="fake-llm",
        kind="llm",
        solver_extra='provider = "fake"',
        extra="max_usd = 0.5",
    )
    run_dir, rows = await run_sweep(
        _ray(config), SweepOptions(run_dir=tmp_path / "run", progress="quiet")
    )
    on_disk = read_rows(run_dir / "manifest.jsonl")
    statuses = Counter(r.status for r in on_disk)
    assert sum(statuses.values()) == 6 == len({r.cell for r in on_disk}) == len(rows)
    assert statuses["budget"] >= 4, statuses
    # Spend came back from the nodes into the rows: it reaches the cap, every attempted
    # cell paid for its attempt.
    spent = sum(r.spend.cost_usd for r in on_disk)
    assert spent >= 0.5, [r.spend for r in on_disk]
    assert all(r.spend.cost_usd > 0 for r in on_disk if r.attempts > 0), on_disk
    # Spend past the cap is bounded by one in-flight request per concurrent cell (4),
    # as on one host. NOTE: this bound does not yet tell a cluster-wide ledger from
    # per-node ones (one fake request already costs more than the cap); see #22.
    assert spent <= 0.5 + 4 * max(r.spend.cost_usd for r in on_disk), (spent, statuses)
    stopped = [r for r in on_disk if r.status == "budget" and r.attempts > 0]
    assert stopped and all("budget exceeded" in r.error for r in stopped)


@pytest.mark.browser
@pytest.mark.anyio
async def test_worker_node_lost_mid_sweep_retries_its_cells(
    require_chromium: None, cluster: Any, tmp_path: Path
) -> None:
    c, workers = cluster
    config = bench(tmp_path, repeats=6, concurrency=4, turns=3)
    run_dir = tmp_path / "run"
    cells = run_dir / "cells"

    async def kill_one_node() -> None:
        while not (cells.exists() and len(list(cells.iterdir())) >= 4):
            await anyio.sleep(0.1)
        await anyio.sleep(0.5)  # both nodes are mid-cell
        victim = workers.pop(0)
        await anyio.to_thread.run_sync(c.remove_node, victim)

    async with anyio.create_task_group() as tg:
        tg.start_soon(kill_one_node)
        _, rows = await run_sweep(_ray(config), SweepOptions(run_dir=run_dir, progress="quiet"))
    workers.append(_add_worker(c))  # leave two workers for later tests
    on_disk = read_rows(run_dir / "manifest.jsonl")
    assert len(rows) == len(on_disk) == 6  # one row per cell, no retry wrote a row
    assert Counter(r.cell for r in on_disk) == Counter(
        f"tiny-shop/reference/staged/{i}" for i in range(6)
    )
    assert {r.status for r in on_disk} == {"ok"}, [r.error for r in on_disk]
    retried = [r for r in on_disk if r.attempts > 1]
    assert retried, "no cell was mid-flight on the lost node"
    for r in retried:
        events = read_events(run_dir / "cells" / r.cell.replace("/", "__") / "events.jsonl")
        lost = [e for e in events if isinstance(e, Error) and "lost mid-cell" in e.error]
        assert lost and lost[0].cause == "infra"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
