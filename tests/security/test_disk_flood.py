"""A disk flood from inside the sandbox ends the cell with a clear, solver-owned outcome.

The solver clears unit 1 honestly, then, during unit 2, has the container fill the
workspace past the cell's disk limit. The next checkpoint does not verify the flooded
tree: the cell ends there, `ended` names the limit, the remaining units are not
cleared, there are no final gates (so no final pass), and the events say why.
"""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest

from orchestrator.cell import CellContext, run_cell
from orchestrator.contract import TaskPackage, load_task
from orchestrator.events import read_events
from orchestrator.solvers import (
    CellBinding,
    ReferenceSolver,
    SolverTurn,
    UserMessage,
    WorkspaceSolver,
)
from orchestrator.verifier import BrowserPool, BrowserVerifier
from orchestrator.workspace import Workspace
from sandbox import DockerBackend, Labels, Sandbox
from tests.fixtures.tinytask import make_tiny_task
from tests.sweeps import new_sweep

SWEEP = new_sweep("pytest-flood")  # unique; collected at the session end

pytestmark = [pytest.mark.anyio, pytest.mark.docker, pytest.mark.browser]


class Flooder(WorkspaceSolver):
    """Reference for unit 1; then floods the workspace from inside the container."""

    name = "flooder"

    def __init__(self, task: TaskPackage) -> None:
        self._reference = ReferenceSolver(task)
        self._sandbox: Sandbox | None = None
        self.flood_output = ""

    @asynccontextmanager
    async def bind(self, cell: CellBinding) -> AsyncIterator[None]:
        self._sandbox = cell.sandbox
        yield

    async def respond(self, message: UserMessage, workspace: Workspace) -> SolverTurn:
        if message.unit_index == 0:
            return await self._reference.respond(message, workspace)
        assert self._sandbox is not None
        result = await self._sandbox.run("dd if=/dev/urandom of=flood.bin bs=1M count=6")
        self.flood_output = result.output_tail
        return SolverTurn(end="edited")

    async def aclose(self) -> None:
        return None


def _cell(
    pool: BrowserPool, tmp_path: Path, name: str, **limits: int
) -> tuple[TaskPackage, CellContext]:
    """The tiny task (2 units) and a Docker cell of it named `name`."""
    task = load_task(make_tiny_task(tmp_path / "tasks", turns=2))
    ctx = CellContext(
        task=task,
        backend=DockerBackend(),
        verifier=BrowserVerifier(pool),
        browser=pool,
        cell_dir=tmp_path / "cell",
        labels=Labels(sweep=SWEEP, cell=name),
        **limits,  # type: ignore[arg-type]
    )
    return task, ctx


@pytest.fixture
async def pool(require_chromium: None) -> object:
    async with BrowserPool(max_contexts=2) as p:
        yield p


async def test_disk_flood_ends_the_cell_with_the_disk_limit_outcome(
    require_docker: None, pool: BrowserPool, tmp_path: Path
) -> None:
    task, ctx = _cell(pool, tmp_path, "flood", disk_limit_mb=4)
    solver = Flooder(task)
    report = await run_cell(ctx, solver)
    assert "workspace disk limit exceeded" in report.ended, solver.flood_output
    assert "limit 4 MiB" in report.ended
    result = report.result
    assert result.broken == report.ended  # recorded in the manifest row, status ok
    assert result.units[0].cleared
    assert not any(u.cleared for u in result.units[1:])
    # Not verified: every gate fails (an empty gate map would pass every family).
    assert set(result.final_gates.values()) == {"fail"} and not result.scores.final_pass
    assert not result.scores.whole_task and not result.scores.completion_pass
    events = read_events(tmp_path / "cell" / "events.jsonl")
    kinds = [e.kind for e in events]
    assert "disk_limit" in kinds and kinds[-1] == "end"
    # The flooded tree was never verified: one checkpoint (unit 1's), none after it.
    assert result.checkpoints == 1
    # ...and is given back: the work tree is unit 1's checkpoint again, the flood gone.
    assert not (tmp_path / "cell" / "workspace" / "flood.bin").exists()


class EndlessFlooder(Flooder):
    """Unit 1 honestly; then a write that never ends by itself (the turn never returns,
    so no checkpoint comes to look): only a watch while the solver works can stop it."""

    name = "endless-flooder"
    started = 0.0

    async def respond(self, message: UserMessage, workspace: Workspace) -> SolverTurn:
        if message.unit_index == 0:
            return await self._reference.respond(message, workspace)
        assert self._sandbox is not None
        EndlessFlooder.started = time.monotonic()
        await self._sandbox.run(
            "i=0; while :; do i=$((i+1)); "
            "dd if=/dev/zero of=flood-$i.bin bs=1M count=2 2>/dev/null; sleep 0.05; done"
        )
        return SolverTurn(end="edited")


async def test_a_flood_between_checkpoints_ends_the_cell_within_seconds(
    require_docker: None, pool: BrowserPool, tmp_path: Path
) -> None:
    task, ctx = _cell(pool, tmp_path, "endless-flood", disk_limit_mb=4)
    with anyio.fail_after(120):  # without the watch the flood runs for the exec's 600 s
        report = await run_cell(ctx, EndlessFlooder(task))
    took = time.monotonic() - EndlessFlooder.started
    assert "workspace disk limit exceeded" in report.ended
    assert took < 30, took  # the watch fires within seconds; the rest is teardown
    assert report.result.units[0].cleared and report.result.checkpoints == 1
    # The flood is given back once the sandbox is closed.
    assert list((tmp_path / "cell" / "workspace").glob("flood-*")) == []


class BurstFlooder(Flooder):
    """Unit 1 honestly; then 2 GiB in one write, as fast as the disk takes it."""

    name = "burst-flooder"
    started = 0.0

    async def respond(self, message: UserMessage, workspace: Workspace) -> SolverTurn:
        if message.unit_index == 0:
            return await self._reference.respond(message, workspace)
        assert self._sandbox is not None
        BurstFlooder.started = time.monotonic()
        result = await self._sandbox.run("head -c 2G /dev/zero > burst.bin; sync")
        self.flood_output = result.output_tail
        return SolverTurn(end="edited")


def _free_bytes(path: Path) -> int:
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


async def test_a_2_gib_burst_ends_the_cell_within_seconds_and_the_host_keeps_its_disk(
    require_docker: None, pool: BrowserPool, tmp_path: Path
) -> None:
    """#36 item 4's acceptance: the default 1 GiB limit, a 2 GiB write."""
    task, ctx = _cell(pool, tmp_path, "burst")
    assert ctx.disk_limit_mb == 1024
    free = _free_bytes(tmp_path)
    solver = BurstFlooder(task)
    with anyio.fail_after(180):
        report = await run_cell(ctx, solver)
    took = time.monotonic() - BurstFlooder.started
    assert "workspace disk limit exceeded" in report.ended, solver.flood_output
    assert "limit 1024 MiB" in report.ended
    assert took < 30, took
    assert report.result.units[0].cleared and report.result.checkpoints == 1
    assert not (tmp_path / "cell" / "workspace" / "burst.bin").exists()
    # The host has its disk back: the flood wrote past the 1 GiB limit before it was
    # stopped, so a tree (or an open file) that kept it would cost at least that. The
    # margin is half of it, not a few MB: whatever else writes to this disk meanwhile (an
    # admission beside the tests took 330 MB once) is not the flood.
    assert _free_bytes(tmp_path) > free - (ctx.disk_limit_mb << 20) // 2
