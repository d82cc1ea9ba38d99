"""Docker backend: one hardened container per cell, serving the bind-mounted workspace.

Shape of a cell's container:
- main process `sleep <ttl>` under docker-init: it is the time-to-live, so the
  container ends itself (and AutoRemove deletes it) even if the orchestrator died;
- install/build run as `docker exec` under `timeout`; the server runs as one more exec
  in its own session (`setsid -w`) so stopping it kills its whole process group;
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
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Literal

import aiodocker
import anyio
from anyio.abc import TaskGroup

from . import _firewall
from ._docker_errors import docker_client, entering, is_gone, translate
from ._docker_images import ImageBuilder
from ._docker_probe import await_daemon
from ._firewall import Allow, bridge_name
from ._gc import Own, collect_garbage
from ._ownership import container_user, grant, reclaim
from ._steps import SpecSteps
from ._tail import Tail
from ._types import (
    ContainerError,
    ExecResult,
    Labels,
    Limits,
    Sandbox,
    SandboxError,
    ServeOutcome,
    ServeSpec,
)

log = logging.getLogger("sandbox")

PORT = 8080  # inside the container; each container has its own network namespace
TMPFS_MB = 256
# The root filesystem is read-only: HOME and npm's cache live on the /tmp tmpfs. The npm
# stack images keep the task's dependency tarballs in /opt/pwb/npm-cache; npm needs to
# write its cache, so it is copied to /tmp (≈20 MB) before anything installs.
_RO_ENV = {"HOME": "/tmp", "npm_config_cache": "/tmp/npm-cache"}
_SEED_SH = "if [ -d /opt/pwb/npm-cache ]; then cp -a /opt/pwb/npm-cache /tmp/npm-cache; fi"
_CLEANUP_S = 10.0
_RECLAIM_S = 60.0
_PIDFILE = "/tmp/pwb-server.pid"
# `timeout` exits 124 when the command ran out of time.
_TIMED_OUT = 124
_KILLED = 137  # 128 + SIGKILL: what the memory cgroup's OOM killer leaves
# The memory cgroup's count of OOM kills, seen from inside (cgroup v2, else v1).
_OOM_KILLS_SH = (
    "cat /sys/fs/cgroup/memory.events 2>/dev/null"
    " || cat /sys/fs/cgroup/memory/memory.oom_control 2>/dev/null"
)

# Started via `setsid -w`: records its process group, then becomes the start command.
_SERVE_SH = f'echo $$ > {_PIDFILE}; exec sh -c "$1" 2>&1'
# dash's `kill` needs `-s SIG --` before a negative (process-group) id.
_STOP_SH = f"""p=$(cat {_PIDFILE} 2>/dev/null) || exit 0
kill -s TERM -- -"$p" 2>/dev/null || exit 0
for _ in $(seq 30); do kill -s 0 -- -"$p" 2>/dev/null || exit 0; sleep 0.1; done
kill -s KILL -- -"$p" 2>/dev/null; exit 0"""


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


class DockerSandbox(SpecSteps):
    def __init__(
        self,
        container: aiodocker.containers.DockerContainer,
        ip: str,
        workspace: Path,
        spec: ServeSpec,
        limits: Limits,
        tg: TaskGroup,
        isolated: bool = True,
    ) -> None:
        super().__init__(workspace, spec)
        self.isolated = isolated
        self._c = container
        self._ip = ip
        self._limits = limits
        self._tg = tg
        self._server_tail = Tail(limits.log_tail_kb * 1024)
        self._server_done: anyio.Event | None = None
        self._server_exit: int | None = None
        self._oom_before = 0  # the cgroup's OOM kills when the server was started
        self._prestarted = False  # started by `prestart`, not yet adopted by `serve`

    async def _exec(
        self, argv: list[str], tail: Tail, extra_env: Mapping[str, str] | None = None
    ) -> int:
        """Run argv in the container, streaming its output into `tail`; exit code."""
        env = {**self._spec.env, **(extra_env or {}), "PORT": str(PORT)}
        with entering(f"exec in {self._c.id[:12]}"):
            ex = await self._c.exec(argv, workdir="/workspace", environment=env)
            async with ex.start(detach=False) as stream:
                while (msg := await stream.read_out()) is not None:
                    tail.feed(msg.data)
            info = await ex.inspect()
        code = info.get("ExitCode")
        return int(code) if code is not None else -1

    async def _grant(self) -> None:
        uid, gid = container_user()
        await anyio.to_thread.run_sync(grant, self._workspace, uid, gid)

    async def run(
        self, command: str, *, timeout: float = 600.0, env: Mapping[str, str] | None = None
    ) -> ExecResult:
        await self._grant()
        tail = Tail(self._limits.log_tail_kb * 1024)
        t0 = time.monotonic()
        # The bound lives inside the container (timeout kills the whole group there);
        # the host-side bound is a backstop in case the exec stream itself hangs.
        argv = ["timeout", "-k", "5", str(max(timeout, 1.0)), "sh", "-c", command]
        code = -1
        with anyio.move_on_after(timeout + 15):
            code = await self._exec(argv, tail, env)
        return ExecResult(
            command=command,
            exit_code=code,
            output_tail=tail.text(),
            duration_s=time.monotonic() - t0,
            timed_out=code in (-1, _TIMED_OUT),
        )

    async def _run_server(self, done: anyio.Event) -> None:
        try:
            argv = ["setsid", "-w", "sh", "-c", _SERVE_SH, "pwb-serve", self._spec.start]
            self._server_exit = await self._exec(argv, self._server_tail)
        finally:
            done.set()

    async def _oom_kills(self) -> int:
        """How many processes the container's memory cgroup has OOM-killed so far."""
        tail = Tail(4096)
        try:
            await self._exec(["sh", "-c", _OOM_KILLS_SH], tail)
        except SandboxError:
            return 0  # the container is gone: `_why_down` says so from its state
        for line in tail.text().splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill" and value.strip().isdigit():
                return int(value)
        return 0

    async def _why_down(self, why: str) -> str:
        """Why the server is not serving, in the sandbox's terms: the memory cgroup's
        OOM killer (State.OOMKilled, its oom_kill count, exit 137) or a dead container
        read as that, not as a timeout."""
        limit = f"the sandbox memory limit of {self._limits.memory_mb} MB"
        state = await self._state()
        if state is None:
            return f"the container is gone ({why})"
        if not state.get("Running"):
            code = state.get("ExitCode")
            if state.get("OOMKilled") or code == _KILLED:
                return f"OOM-killed: the container exceeded {limit} (exit {code})"
            return f"the container exited (exit {code})"
        if await self._oom_kills() > self._oom_before:
            return f"OOM-killed: the server exceeded {limit} (exit {self._server_exit})"
        if self._server_exit == _KILLED:
            return f"killed (exit {_KILLED})"
        return why

    async def _start_server(self) -> anyio.Event:
        await self._grant()
        self._server_tail.clear()
        self._server_exit = None
        self._oom_before = await self._oom_kills()
        done = self._server_done = anyio.Event()
        self._tg.start_soon(self._run_server, done)
        return done

    async def prestart(self) -> None:
        """Start the server now without waiting for it (see `ServeSpec.prestart`)."""
        await self._start_server()
        self._prestarted = True

    async def serve(self) -> ServeOutcome:
        t0 = time.monotonic()
        done = self._server_done if self._prestarted else None
        self._prestarted = False
        if done is None or done.is_set():  # not prestarted, or it died: (re)start
            await self.stop_server()
            t0 = time.monotonic()
            done = await self._start_server()
        running = done

        async def alive() -> bool:
            if running.is_set():
                return False
            # A container killed under the server (its init OOM-killed) may leave the
            # exec stream open: ask the daemon too.
            state = await self._state()
            return bool(state and state.get("Running"))

        return await self._await_ready(f"http://{self._ip}:{PORT}", t0, alive, self._why_down)

    async def _state(self) -> dict[str, Any] | None:
        """The container's `State` as the daemon has it; None when the container is gone."""
        with entering(f"inspect {self._c.id[:12]}"):
            try:
                info = await self._c.show()
            except aiodocker.DockerError as exc:
                if is_gone(exc):
                    return None
                raise
        return dict(info.get("State") or {})

    async def ensure_alive(self) -> None:
        state = await self._state()
        if state is None:
            raise ContainerError(f"container {self._c.id[:12]} is gone")
        if not state.get("Running"):
            raise ContainerError(f"container {self._c.id[:12]} is not running")

    async def stop_server(self) -> None:
        done, self._server_done = self._server_done, None
        if done is None or done.is_set():
            return
        with anyio.move_on_after(_CLEANUP_S, shield=True):
            await self._exec(["sh", "-c", _STOP_SH], Tail(1024))
            await done.wait()

    def logs_tail(self) -> str:
        return self._server_tail.text()


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
            with anyio.move_on_after(_CLEANUP_S, shield=True):
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
    with anyio.move_on_after(_CLEANUP_S, shield=True), entering(f"remove {container.id[:12]}"):
        try:
            await container.delete(force=True)
        except aiodocker.DockerError as exc:
            if not is_gone(exc):
                raise
