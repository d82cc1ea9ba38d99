"""`gc` liveness with real Docker (#16): a live sweep's container and network survive
`gc`; a dead sweep's (its process killed -9, so its run lock is free) are removed.

Each sweep's resources are real: a container opened by the Docker backend with the
sweep's labels, on the sweep's own network. Liveness is the run lock's `flock`, held by
this test process for the live sweep and by a child killed -9 for the dead one. `gc` runs
as the CLI, in another process. Only this test's sweeps are named, so nobody else's
resources are touched.
"""

from __future__ import annotations

import json
import subprocess
import sys
from contextlib import AsyncExitStack
from pathlib import Path

import pytest

from orchestrator.records import Manifest
from sandbox import DockerBackend, ImageBuilder, Labels, ServeSpec, unique_sweep
from tests.fixtures.dockergc import docker_resources, run_gc

SPEC = ServeSpec(stack="static", start="python3 -m http.server $PORT --bind 0.0.0.0")
pytestmark = [pytest.mark.anyio, pytest.mark.docker]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _hold(lock: Path) -> subprocess.Popen[bytes]:
    """A sweep process holding `lock`. Held from before its resources exist: a sweep that
    another test starts meanwhile reaps every network whose lock is free (`gc` at the
    start of each sweep), and would take this one's before the test has looked at it."""
    hold = (
        "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT); "
        "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); time.sleep(300)"
    )
    proc = subprocess.Popen([sys.executable, "-c", hold, str(lock)], stdout=subprocess.PIPE)
    assert proc.stdout is not None and proc.stdout.readline() == b"held\n"
    return proc


def _die(proc: subprocess.Popen[bytes]) -> None:
    """The sweep process killed -9: its lock is free, its resources dead."""
    proc.kill()
    proc.wait()


async def test_gc_keeps_a_live_sweeps_resources_and_removes_a_dead_ones(
    require_docker: None, tmp_path: Path
) -> None:
    await ImageBuilder().ensure_stack("static", lambda _line: None)
    live, dead = unique_sweep("pytest-gc-live"), unique_sweep("pytest-gc-dead")
    (tmp_path / "dead").mkdir()
    dead_lock = tmp_path / "dead" / ".lock"
    backend = DockerBackend()
    holder = _hold(dead_lock)
    try:
        with Manifest(tmp_path / "live", sweep_id=live) as manifest:
            async with AsyncExitStack() as stack:
                for sweep, lock in ((live, manifest.lock_path), (dead, dead_lock)):
                    ws = tmp_path / f"ws-{sweep}"
                    ws.mkdir()
                    labels = Labels(sweep=sweep, cell="c", lock=str(lock))
                    await stack.enter_async_context(backend.open(ws, SPEC, labels))
                _die(holder)
                before = {s: docker_resources(s) for s in (live, dead)}
                assert all(len(r) == 2 for r in before.values()), before  # container + net

                out = run_gc("--sweep", live) + run_gc("--sweep", dead) + run_gc("--expired")
                assert docker_resources(live) == before[live], out  # alive: its lock is held
                assert docker_resources(dead) == [], out  # dead: gone, container and network
                # Removed by these gc runs, or by another process's: every sweep's start
                # runs gc, which reaps any sweep whose lock is free (seen in a ci tier
                # run beside an admission). A live sweep is in nobody's output.
                assert "sweep=" + live not in out

                run_gc("--sweep", live, "--force")  # --force removes even a live sweep's
                assert docker_resources(live) == []
    finally:
        _die(holder)
        for sweep in (live, dead):  # whatever failed above, leave nothing behind
            run_gc("--sweep", sweep, "--force")
    assert json.dumps(docker_resources(live) + docker_resources(dead)) == "[]"


async def test_a_dead_sweeps_gateway_network_and_firewall_chain_are_reaped(
    require_docker: None, tmp_path: Path
) -> None:
    """With scaffold solvers the sweep network is made before any cell, for the LLM
    gateway (`expose`): it carries the sweep's run lock, so once that sweep is dead
    `gc` removes the network and its firewall chain (not 4 h later, at its TTL)."""
    from orchestrator.gateway import Gateway
    from orchestrator.sweep import expose
    from sandbox import Allow
    from sandbox import firewall_chains as installed

    sweep = unique_sweep("pytest-gc-gateway")
    lock = tmp_path / ".lock"
    holder = _hold(lock)
    try:
        async with Gateway({}) as gateway:
            backend = DockerBackend(allow=Allow(address="", port=gateway.port))
            assert await expose(gateway, backend, sweep, str(lock))
            _die(holder)
            nets = subprocess.run(
                [
                    "docker",
                    "network",
                    "ls",
                    "--filter",
                    f"label=pwb.sweep={sweep}",
                    "--format",
                    '{{.ID}} {{.Label "pwb.lock"}}',
                ],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.split()
            assert len(nets) == 2 and nets[1] == str(lock), nets
            assert nets[0][:12] in await installed()
            out = run_gc("--sweep", sweep)
            assert docker_resources(sweep) == [], out
            assert nets[0][:12] not in await installed(), out
    finally:
        _die(holder)
        run_gc("--sweep", sweep, "--force")
