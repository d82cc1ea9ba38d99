"""Docker-only properties: labels, hardening, no egress, TTL and gc."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import aiodocker
import anyio
import msgspec
import pytest

from sandbox import DockerBackend, Labels, Limits, ServeSpec, collect_garbage

pytestmark = [pytest.mark.anyio, pytest.mark.docker, pytest.mark.timeout(120)]

STATIC = ServeSpec(stack="static", start="exec python3 -m http.server $PORT")
# The server's pid file, once it appears (up to 3 s); exit 1 if it never does.
WAIT_FOR_SERVER_PID = (
    "for _ in $(seq 30); do cat /tmp/pwb-server.pid 2>/dev/null && exit 0; sleep 0.1; done; exit 1"
)


@pytest.fixture
def docker_backend(docker_images: None) -> DockerBackend:
    return DockerBackend()


async def containers_of(sweep: str, cell: str) -> list[dict[str, Any]]:
    labels = [f"pwb.sweep={sweep}", f"pwb.cell={cell}"]
    async with aiodocker.Docker() as docker:
        found = await docker.containers.list(all=True, filters=json.dumps({"label": labels}))
        shown = []
        for c in found:
            try:
                shown.append(await c.show())
            except aiodocker.DockerError as e:
                if e.status != 404:  # removed between the list and the show: gone
                    raise
        return shown


async def test_labels_and_hardening(
    docker_backend: DockerBackend, static_ws: Path, sweep_id: str, cell_id: str
) -> None:
    limits = Limits(memory_mb=256, cpus=0.5, pids=64, ttl_seconds=600)
    ws = static_ws
    async with docker_backend.open(ws, STATIC, Labels(sweep=sweep_id, cell=cell_id), limits):
        (info,) = await containers_of(sweep_id, cell_id)
    labels = info["Config"]["Labels"]
    assert labels["pwb.sweep"] == sweep_id and labels["pwb.cell"] == cell_id
    assert float(labels["pwb.expires"]) > time.time()
    user = info["Config"]["User"]
    assert user and not user.startswith("0") and user != "root"
    host = info["HostConfig"]
    assert host["CapDrop"] == ["ALL"]
    assert any("no-new-privileges" in opt for opt in host["SecurityOpt"])
    assert host["Init"] is True
    assert host["Memory"] == 256 * 1024 * 1024
    assert host["NanoCpus"] == 500_000_000
    assert host["PidsLimit"] == 64
    assert host["LogConfig"]["Config"]["max-size"]
    assert not await containers_of(sweep_id, cell_id)  # removed on exit


async def test_no_egress(
    docker_backend: DockerBackend, static_ws: Path, sweep_id: str, cell_id: str
) -> None:
    # An address, not a name: the internal network's DNS would only add a slow failure.
    probe = "import socket; socket.create_connection(('151.101.2.132', 80), 3)"
    ws = static_ws
    async with docker_backend.open(ws, STATIC, Labels(sweep=sweep_id, cell=cell_id)) as box:
        result = await box.run(f'python3 -c "{probe}"', timeout=10)
    assert result.exit_code != 0


async def test_ttl_ends_container(
    docker_backend: DockerBackend, static_ws: Path, sweep_id: str, cell_id: str
) -> None:
    ws = static_ws
    limits = Limits(ttl_seconds=2)
    async with docker_backend.open(ws, STATIC, Labels(sweep=sweep_id, cell=cell_id), limits):
        assert await containers_of(sweep_id, cell_id)
        with anyio.fail_after(15):
            while await containers_of(sweep_id, cell_id):
                await anyio.sleep(0.5)


async def test_gc_removes_leftovers(docker_images: None, cell_id: str) -> None:
    sweep_id = f"gc-{cell_id}"
    labels = Labels(sweep=sweep_id, cell="orphan").as_dict(time.time() - 1)
    async with aiodocker.Docker() as docker:
        await docker.containers.run(
            {"Image": "pwb-static:latest", "Cmd": ["sleep", "300"], "Labels": labels},
            name=f"pwb-{sweep_id}-orphan",
        )
    assert await collect_garbage(sweep="some-other-sweep") == []
    removed = await collect_garbage(sweep=sweep_id, expired_only=True)
    assert [(r.kind, r.cell) for r in removed] == [("container", "orphan")]
    assert not await containers_of(sweep_id, cell_id)


async def test_prestarted_server_is_running_before_serve_and_adopted_by_it(
    docker_backend: DockerBackend, static_ws: Path, sweep_id: str, cell_id: str
) -> None:
    spec = msgspec.structs.replace(STATIC, prestart=True)
    async with docker_backend.open(static_ws, spec, Labels(sweep=sweep_id, cell=cell_id)) as box:
        before = await box.run(WAIT_FOR_SERVER_PID, timeout=10)  # the exec starts in the background
        assert before.exit_code == 0, "no server started as the sandbox opened"
        first = await box.serve()
        assert first.ready, first.detail
        adopted = await box.run("cat /tmp/pwb-server.pid", timeout=10)
        assert adopted.output_tail == before.output_tail  # the same server, not restarted
        again = await box.serve()  # a later serve() restarts it, as without prestart
        assert again.ready, again.detail
        restarted = await box.run("cat /tmp/pwb-server.pid", timeout=10)
        assert restarted.output_tail != before.output_tail


async def test_without_prestart_no_server_runs_before_serve(
    docker_backend: DockerBackend, static_ws: Path, sweep_id: str, cell_id: str
) -> None:
    async with docker_backend.open(static_ws, STATIC, Labels(sweep=sweep_id, cell=cell_id)) as box:
        # Given as long as a prestarted server gets to write its pid file: none appears.
        assert (await box.run(WAIT_FOR_SERVER_PID, timeout=10)).exit_code != 0
