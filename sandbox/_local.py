"""Local-process backend: runs install/build/start as host subprocesses.

It does NOT isolate anything (no container, full network, the solver's code runs as
this user); it exists so the harness works on machines without Docker, and says so.
What it can do it does: processes get a minimal environment (`PATH`, locale, a private
`HOME`/`TMPDIR`), plus the stack's env and the variables a caller passes by name
(`pass_env`), never the harness's whole environment (API keys).
"""

from __future__ import annotations

import itertools
import logging
import os
import secrets
import shutil
import signal
import socket
import tempfile
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import anyio
from anyio.abc import Process, TaskGroup

from ._reap import MARKER_VAR, kill_marked
from ._steps import SpecSteps
from ._tail import Tail
from ._types import ExecResult, Labels, Limits, Sandbox, ServeOutcome, ServeSpec

if TYPE_CHECKING:
    from ._docker_images import ImageBuilder
    from ._gc import Own

log = logging.getLogger("sandbox.local")

_CLEANUP_S = 10.0
_TERM_GRACE_S = 3.0
# Taken from the host environment; everything else must be passed by name.
_HOST_VARS = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ")


def base_env(home: Path) -> dict[str, str]:
    """The environment every local sandbox process starts from."""
    env = {k: os.environ[k] for k in _HOST_VARS if k in os.environ}
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    return env | {"HOME": str(home), "TMPDIR": str(home)}


def _free_port() -> int:
    # Small race (the port is released before the server binds); acceptable on loopback.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


async def _kill_group(proc: Process) -> None:
    """TERM the process group, then KILL it if it lingers; always reap the leader."""
    for sig, grace in ((signal.SIGTERM, _TERM_GRACE_S), (signal.SIGKILL, _TERM_GRACE_S)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            pass
        with anyio.move_on_after(grace):
            await proc.wait()
            return


async def _pump(proc: Process, tail: Tail) -> None:
    assert proc.stdout is not None
    try:
        async for chunk in proc.stdout:
            tail.feed(chunk)
    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
        pass  # the process was reaped and its pipe closed by stop_server


class LocalSandbox(SpecSteps):
    isolated = False

    def __init__(
        self, workspace: Path, spec: ServeSpec, limits: Limits, tg: TaskGroup, home: Path
    ) -> None:
        super().__init__(workspace, spec)
        self._home = home
        self._limits = limits
        self._tg = tg
        self._server: Process | None = None
        self._server_tail = Tail(limits.log_tail_kb * 1024)
        # Every process started here carries PWB_SANDBOX=<marker>.<n>. (sandbox/_reap.py):
        # what a command detached with setsid is killed when the command ends.
        self.marker = secrets.token_hex(8)
        self._runs = itertools.count()

    def _neutral(self, text: str) -> str:
        """Output as the solver may see it: the host path of the workspace and of the
        private HOME read as they would in a container."""
        return text.replace(str(self._workspace), "/workspace").replace(str(self._home), "/tmp")

    def _env(self, port: int | None = None) -> Mapping[str, str]:
        env = {**base_env(self._home), **self._spec.env}
        if port is not None:
            env["PORT"] = str(port)
        return env

    async def _spawn(self, command: str, env: Mapping[str, str], tag: str) -> Process:
        # A new session makes the command a process-group leader, so teardown reaches
        # every grandchild (npm -> node -> esbuild) with one killpg.
        return await anyio.open_process(
            ["/bin/sh", "-c", command],
            cwd=self._workspace,
            env={**env, MARKER_VAR: f"{self.marker}.{tag}."},
            stdin=None,
            stdout=-1,
            stderr=-2,  # subprocess.STDOUT: one interleaved stream
            start_new_session=True,
        )

    async def run(
        self, command: str, *, timeout: float = 600.0, env: Mapping[str, str] | None = None
    ) -> ExecResult:
        tail = Tail(self._limits.log_tail_kb * 1024)
        t0 = time.monotonic()
        tag = str(next(self._runs))
        proc = await self._spawn(command, {**self._env(), **(env or {})}, tag)
        timed_out = True
        try:
            with anyio.move_on_after(timeout):
                await _pump(proc, tail)
                await proc.wait()
                timed_out = False
        finally:
            await self._end(proc, tag)
        code = proc.returncode if proc.returncode is not None else -1
        return ExecResult(
            command=command,
            exit_code=code,
            output_tail=self._neutral(tail.text()),
            duration_s=time.monotonic() - t0,
            timed_out=timed_out,
        )

    async def _end(self, proc: Process, tag: str) -> None:
        """Kill the process started as `tag` and its group, shielded and bounded; then
        whatever of it left the group (detached with setsid)."""
        with anyio.move_on_after(_CLEANUP_S, shield=True):
            if proc.returncode is None:
                await _kill_group(proc)
            await proc.aclose()
        kill_marked(f"{self.marker}.{tag}.")

    async def ensure_alive(self) -> None:
        return None  # no container to lose: the host itself runs the server

    async def serve(self) -> ServeOutcome:
        await self.stop_server()
        t0 = time.monotonic()
        port = _free_port()
        self._server_tail.clear()
        proc = await self._spawn(self._spec.start, self._env(port), "server")
        self._server = proc
        self._tg.start_soon(_pump, proc, self._server_tail)

        async def alive() -> bool:
            return proc.returncode is None

        async def why_down(why: str) -> str:
            return f"{why}, exit={proc.returncode}"

        return await self._await_ready(f"http://127.0.0.1:{port}", t0, alive, why_down)

    async def stop_server(self) -> None:
        proc, self._server = self._server, None
        if proc is not None:
            await self._end(proc, "server")

    def logs_tail(self) -> str:
        return self._neutral(self._server_tail.text())


class LocalBackend:
    """Runs cells as host processes. Not isolated: logs a warning when created."""

    name: Literal["docker", "local"] = "local"

    def __init__(self) -> None:
        log.warning(
            "sandbox backend 'local' does NOT isolate: solver code runs as host processes "
            "with this user's rights and full network access; use Docker for real sweeps"
        )

    # Its lifecycle hooks (`ManagedBackend`) are no-ops: no daemon, network or image.
    @asynccontextmanager
    async def session(self, own: Own) -> AsyncIterator[None]:
        yield  # nothing of a sweep outlives its sandboxes

    async def network_gateway(
        self, sweep: str, limits: Limits | None = None, *, lock: str = ""
    ) -> str:
        return ""  # sandboxes are host processes: they reach the host on loopback

    async def task_image(self, stack: str, repo: Path, builder: ImageBuilder | None = None) -> str:
        return ""  # the host's own tools build and serve the workspace

    async def await_daemon(self, timeout: float) -> None:
        return None  # no daemon to lose

    @asynccontextmanager
    async def open(
        self, workspace: Path, spec: ServeSpec, labels: Labels, limits: Limits | None = None
    ) -> AsyncIterator[Sandbox]:
        del labels  # nothing to label: processes die with their sandbox
        home = Path(tempfile.mkdtemp(prefix="pwb-local-home-"))
        try:
            async with anyio.create_task_group() as tg:
                box = LocalSandbox(workspace, spec, limits or Limits(), tg, home)
                try:
                    yield box
                finally:
                    await box.stop_server()  # shielded + bounded inside
                    kill_marked(f"{box.marker}.")  # anything of this sandbox still alive
                    tg.cancel_scope.cancel()
        finally:
            shutil.rmtree(home, ignore_errors=True)
