"""A cell's event loop is not blocked by the cluster ledger (#40), on a real Ray actor.

A node runs all its cells on one event loop; each LLM call charges the sweep's one
`LedgerActor` and reads its totals. Here the actor answers slowly (`DELAY_S` a call) and
a heartbeat on the cell's loop measures the longest gap between its ticks while cells
charge and check: awaited, the calls leave the loop free; a blocking `ray.get` (what
`ClusterLedger` did) would stall it for a whole round trip, every call.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from orchestrator.budget import BudgetExceeded
from tests.fixtures.raycluster import start_head
from tests.fixtures.slowledger import DELAY_S, SlowLedgerActor, harness_file

ray = pytest.importorskip("ray") if os.environ.get("CI") != "true" else __import__("ray")

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def head() -> Iterator[Any]:
    c = start_head()
    ray.init(address=c.address, include_dashboard=False, log_to_driver=False)
    try:
        yield c
    finally:
        ray.shutdown()
        c.shutdown()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # Ray's ObjectRefs are awaited on asyncio


@pytest.mark.full  # a Ray head of its own (~30 s): not for the fast tier
@pytest.mark.slow
@pytest.mark.anyio
async def test_charges_and_checks_leave_the_cells_loop_free(head: Any) -> None:
    from orchestrator.sweep._ray_ledger import ClusterLedger

    # Ray's workers import the harness from this tree (the driver's), not an install.
    here = await ray.remote(num_cpus=0)(harness_file).remote()
    assert Path(here).is_relative_to(ROOT), here
    actor = ray.remote(SlowLedgerActor).options(num_cpus=0).remote(1.0, None)
    await actor.totals.remote()  # started
    gaps: list[float] = []

    async def heartbeat() -> None:
        last = time.monotonic()
        while True:
            await anyio.sleep(0.02)
            now = time.monotonic()
            gaps.append(now - last)
            last = now

    async def cell(key: str) -> None:
        ledger = ClusterLedger(max_usd=1.0, cell=key, node="n", actor=actor).child()
        try:
            for _ in range(3):  # what the solver does per LLM call: check, call, charge
                await ledger.acheck()
                ledger.charge(10, 0.3)
        except BudgetExceeded as exc:
            ends.append(exc.kind)

    ends: list[str] = []
    async with anyio.create_task_group() as tg:
        tg.start_soon(heartbeat)
        async with anyio.create_task_group() as cells:
            for key in ("c1", "c2"):
                cells.start_soon(cell, key)
        tg.cancel_scope.cancel()
    # Both cells charge $0.3 a call against a $1 cap: their third check stops them.
    assert ends == ["money", "money"], ends
    spent = [await actor.take.remote(key) for key in ("c1", "c2")]
    assert spent == [(20, pytest.approx(0.6), 0)] * 2, spent  # every charge landed
    # Each call took DELAY_S on the actor; the loop never waited for one.
    assert max(gaps) < DELAY_S * 0.6, sorted(gaps)[-5:]
