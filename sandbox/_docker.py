"""Docker backend: one hardened container per cell, serving the bind-mounted workspace.

Shape of a cell's container:
- main process `sleep <ttl>` under docker-init: it is the time-to-live, so the
  container ends itself (and AutoRemove deletes it) even if the orchestrator died;
- install/build run as `docker exec` under `timeout`; the server runs as one more exec
  in its own session (`setsid -w`) so stopping it kills its whole process group
  (`DockerSandbox`, `_docker_box.py`);
- no egress: containers sit on an `internal` network per sweep with inter-container
  traffic disabled. Docker does not publish ports of internal networks (checked on
  20.10), so the harness reaches the server at the container's address on that
  bridge, which the host can route to; other cells' containers cannot.
- no way to the host: the bridge still carries the host's addresses, so the network
  gets firewall rules as it is created (`_firewall.py`; refused without them unless
  `firewall=False`, and then sandboxes say `isolated = False`).
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Literal

import aiodocker
import anyio

from . import _firewall
from ._docker_box import CLEANUP_S, PORT, DockerSandbox
from ._docker_errors import docker_client, entering, is_gone, translate
from ._docker_images import ImageBuilder
from ._docker_probe import await_daemon
from ._firewall import Allow, bridge_name
from ._gc import Own, collect_garbage
from ._ownership import container_user, reclaim
from ._tail import Tail
from ._types import (
    ContainerError,
    Labels,
    Limits,
    Sandbox,
    SandboxError,
    ServeSpec,
)

log = logging.getLogger("sandbox")

TMPFS_MB = 256
# The root filesystem is read-only: HOME and npm's cache live on the /tmp tmpfs. The npm
# stack images keep the task's dependency tarballs in /opt/pwb/npm-cache; npm needs to
# write its cache, so it is copied to /tmp (≈20 MB) before anything installs.
_RO_ENV = {"HOME": "/tmp", "npm_config_cache": "/tmp/npm-cache"}
_SEED_SH = "if [ -d /opt/pwb/npm-cache ]; then cp -a /opt/pwb/npm-cache /tmp/npm-cache; fi"
_RECLAIM_S = 60.0


def _slug(text: str) -> str:
    return re.sub(r"[^a-zA-Z0-9_.-]+", "-", text).strip("-")[:60] or "x"


def network_name(sweep: str) -> str:
    return f"pwb-{_slug(sweep)}"


def host_config(workspace: Path, network: str, limits: Limits) -> dict[str, Any]:
    mem = limits.memory_mb * 1024 * 1024
    return {
        "Binds": [f"{workspace}:/workspace:rw"],
        "NetworkMode": network,
        "CapDrop": ["ALL"],
        "SecurityOpt": ["no-new-privileges:true"],
        "Init": True,
        "AutoRemove": True,  # when the TTL ends the container, nothing is left behind
        "Memory": mem,
        "MemorySwap": mem,  # no swap on top
        "NanoCpus": int(limits.cpus * 1e9),
        "PidsLimit": limits.pids,
        "LogConfig": {"Type": "json-file", "Config": {"max-size": "1m", "max-file": "1"}},
        # Disk is bounded: the root filesystem is read-only (no writable layer to fill),
        # scratch space is RAM-backed and bounded (counts against Memory), and the
        # workspace mount is measured at every checkpoint by the cell.
        "ReadonlyRootfs": True,
        "Tmpfs": {"/tmp": f"rw,nosuid,nodev,size={TMPFS_MB}m"},
    }


class DockerBackend:
    """Opens one container per cell. Holds no connection: each sandbox has its own.

    `firewall`: install the host firewall on each sweep network (default); without it
    sandboxes can reach the host and say so (`isolated = False`). `allow`: the one
    service sandboxes may reach (an LLM gateway; `Allow.address` "" = the network's
    own gateway address on the host).
    """

    name: Literal["docker", "local"] = "docker"

    def __init__(
        self, *, default_image: str = "", firewall: bool = True, allow: Allow | None = None
    ) -> None:
        self._default_image = default_image
        self._firewall = firewall
        self._allow = allow
        self._net_locks: dict[str, anyio.Lock] = {}
        # Networks known to exist: skips a lock and a daemon round trip per cell (the
        # benchmark showed 32 concurrent checks costing ~2 s each). Forgotten on failure.
        self._known_nets: set[str] = set()

    @property
    def allow(self) -> Allow | None:
        return self._allow

    @asynccontextmanager
    async def session(self, own: Own) -> AsyncIterator[None]:
        """A sweep's run of cells. Entering removes what dead sweeps left (their run lock
        is free), what this run's earlier, killed processes left (this run's lock, which
        `own` holds, under another sweep id), and anything past its time-to-live; live
        sweeps' are never touched. Leaving removes the sweep's network: Docker has ~30
        address pools, so networks must not linger."""
        await collect_garbage(own=own)
        try:
            yield
        finally:
            try:
                await collect_garbage(sweep=own.sweep, force=True)
            except SandboxError as exc:  # never hide the error that ended the sweep
                log.warning("could not remove sweep %s's network: %s", own.sweep, exc)

    async def task_image(self, stack: str, repo: Path, builder: ImageBuilder | None = None) -> str:
        """The task image: its dependencies are installed there, and the sandbox has no
        registry to install them from."""
        return await (builder or ImageBuilder()).ensure_task_image(stack, repo, lambda _: None)

    async def await_daemon(self, timeout: float) -> None:
        await await_daemon(timeout)

    async def network_gateway(
        self, sweep: str, limits: Limits | None = None, *, lock: str = ""
    ) -> str:
        """The host's address on the sweep's network (created now, firewall included):
        where the one allowed service (`allow`, e.g. the LLM gateway) must listen.
        `lock`: the sweep's run lock, labelled on the network so `gc` reaps it (and its
        firewall chain) once that sweep is dead rather than at the end of its TTL."""
        async with aiodocker.Docker() as docker:
            name = await self._ensure_network(
                docker, Labels(sweep=sweep, cell="", lock=lock), limits or Limits()
            )
            try:
                info = await (await docker.networks.get(name)).show()
            except aiodocker.DockerError as exc:
                raise translate(exc, f"network {name}") from exc
        gateway = str((info.get("IPAM", {}).get("Config") or [{}])[0].get("Gateway", ""))
        if not gateway:
            raise ContainerError(f"network {name} has no gateway address")
        return gateway

    async def _ensure_network(
        self, docker: aiodocker.Docker, labels: Labels, limits: Limits
    ) -> str:
        name = network_name(labels.sweep)
        if name in self._known_nets:
            return name
        lock = self._net_locks.setdefault(name, anyio.Lock())
        async with lock:  # cells of one sweep race to create it
            try:
                info = await (await docker.networks.get(name)).show()
            except aiodocker.DockerError as exc:
                if exc.status != 404:
                    raise translate(exc, f"network {name}") from exc
                info = await self._create_network(docker, name, labels, limits)
            if self._firewall:
                await self._install_firewall(docker, info)
            self._known_nets.add(name)
        return name

    async def _create_network(
        self, docker: aiodocker.Docker, name: str, labels: Labels, limits: Limits
    ) -> dict[str, Any]:
        net_labels = Labels(sweep=labels.sweep, cell="", lock=labels.lock)
        config = {
            "Name": name,
            "CheckDuplicate": True,
            "Driver": "bridge",
            "Internal": True,  # no route out: no egress
            "Options": {"com.docker.network.bridge.enable_icc": "false"},
            "Labels": net_labels.as_dict(time.time() + limits.ttl_seconds),
        }
        try:
            await docker.networks.create(config)
        except aiodocker.DockerError as exc:
            if exc.status != 409:  # created by another process meanwhile
                raise translate(exc, f"network {name}") from exc
        try:
            return dict(await (await docker.networks.get(name)).show())
        except aiodocker.DockerError as exc:
            raise translate(exc, f"network {name}") from exc

    async def _install_firewall(self, docker: aiodocker.Docker, info: dict[str, Any]) -> None:
        """Before any container joins; on failure the network goes too (none runs open)."""
        net_id = str(info["Id"])
        allow = self._allow
        if allow is not None and not allow.address:
            gateway = (info.get("IPAM", {}).get("Config") or [{}])[0].get("Gateway", "")
            allow = Allow(address=gateway, port=allow.port)
        try:
            await _firewall.install(net_id, bridge_name(net_id, info.get("Options")), allow)
        except BaseException:
            with anyio.move_on_after(CLEANUP_S, shield=True):
                try:
                    await (await docker.networks.get(net_id)).delete()
                except aiodocker.DockerError:
                    pass  # in use by another process's cells, or gone: gc's business
            raise

    def _config(
        self, workspace: Path, spec: ServeSpec, labels: Labels, limits: Limits, net: str
    ) -> dict[str, Any]:
        uid, gid = container_user()
        image = spec.image or self._default_image or f"pwb-{spec.stack}:latest"
        return {
            "Image": image,
            "Cmd": ["sleep", str(limits.ttl_seconds)],
            "User": f"{uid}:{gid}",
            "WorkingDir": "/workspace",
            "Env": [
                f"PORT={PORT}",
                *(f"{k}={v}" for k, v in (_RO_ENV | dict(spec.env)).items()),
            ],
            "Labels": labels.as_dict(time.time() + limits.ttl_seconds),
            "ExposedPorts": {f"{PORT}/tcp": {}},
            "HostConfig": host_config(workspace, net, limits),
        }

    @asynccontextmanager
    async def open(
        self, workspace: Path, spec: ServeSpec, labels: Labels, limits: Limits | None = None
    ) -> AsyncIterator[Sandbox]:
        limits = limits or Limits()
        workspace = workspace.resolve()
        name = f"pwb-{_slug(labels.sweep)}-{_slug(labels.cell)}-{uuid.uuid4().hex[:6]}"
        async with docker_client(f"container {name}") as docker:
            with entering(f"network for {name}"):
                net = await self._ensure_network(docker, labels, limits)
            config = self._config(workspace, spec, labels, limits, net)
            container: aiodocker.containers.DockerContainer | None = None
            try:
                try:
                    with entering(f"container {name}"):
                        container = await docker.containers.create(config, name=name)
                        await container.start()
                        info = await container.show()
                except SandboxError:
                    self._known_nets.discard(net)  # e.g. gc removed it: check again next time
                    raise
                ip = info["NetworkSettings"]["Networks"].get(net, {}).get("IPAddress", "")
                if not ip:
                    raise ContainerError(f"container {name} has no address on {net}")
                async with anyio.create_task_group() as tg:
                    box = DockerSandbox(
                        container, ip, workspace, spec, limits, tg, isolated=self._firewall
                    )
                    if spec.install or spec.build:
                        await box._exec(["sh", "-c", _SEED_SH], Tail(1024))
                    if spec.prestart:
                        await box.prestart()
                    try:
                        yield box
                    finally:
                        tg.cancel_scope.cancel()  # the server pump; the delete kills it
            finally:
                if container is not None:
                    await _remove(container)
                    with anyio.move_on_after(_RECLAIM_S, shield=True):
                        await anyio.to_thread.run_sync(reclaim, workspace)


async def _remove(container: aiodocker.containers.DockerContainer) -> None:
    """Force-remove, shielded and bounded: runs even when the cell is cancelled."""
    with anyio.move_on_after(CLEANUP_S, shield=True), entering(f"remove {container.id[:12]}"):
        try:
            await container.delete(force=True)
        except aiodocker.DockerError as exc:
            if not is_gone(exc):
                raise
