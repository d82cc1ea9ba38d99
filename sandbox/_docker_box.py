"""One cell's container, once it runs: commands as `docker exec` under `timeout`, the
server as one more exec in its own session (`setsid -w`, so stopping it kills its whole
process group), and what the daemon says when the server is down (OOM kill, a container
gone). The container itself is made and removed by `DockerBackend.open` (`_docker.py`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import aiodocker
import anyio
from anyio.abc import TaskGroup

from ._docker_errors import entering, is_gone
from ._ownership import container_user, grant
from ._steps import SpecSteps
from ._tail import Tail
from ._types import ContainerError, ExecResult, Limits, SandboxError, ServeOutcome, ServeSpec

PORT = 8080  # inside the container; each container has its own network namespace
CLEANUP_S = 10.0
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
        with anyio.move_on_after(CLEANUP_S, shield=True):
            await self._exec(["sh", "-c", _STOP_SH], Tail(1024))
            await done.wait()

    def logs_tail(self) -> str:
        return self._server_tail.text()
