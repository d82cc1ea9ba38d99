"""The sandbox interface: where a workspace is built and served.

Exception hierarchy (library errors are translated where they enter):

    SandboxError                 infrastructure fault: retryable by the sweep
    ├── BackendUnavailable       no daemon / backend cannot be used
    ├── ImageError               a stack or task image could not be built
    │   └── UnknownStack         no image definition for the task's stack (permanent)
    └── ContainerError           a container died, OOMed, or the daemon refused it

A failing install/build/start command is *data* (`ExecResult`, `ServeOutcome`), not
an exception: it is the solver's fault and is graded by the build/serve gates.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Literal, Protocol

import msgspec


class SandboxError(Exception):
    """An infrastructure fault (daemon, image, container); never the solver's fault."""


class BackendUnavailable(SandboxError):
    pass


class ImageError(SandboxError):
    pass


class UnknownStack(ImageError):
    """A task names a stack no image exists for: the task's problem, and permanent (a
    retry cannot fix it), unlike every other `SandboxError`."""


class ContainerError(SandboxError):
    pass


class ServeSpec(msgspec.Struct, frozen=True, kw_only=True):
    """How a stack installs, builds and serves a workspace (from task.toml [serve])."""

    stack: str
    install: str = ""
    build: str = ""
    start: str
    ready_path: str = "/"
    ready_timeout: float = 60.0
    env: Mapping[str, str] = {}
    # Docker only: the task image to run (`ensure_task_image`); "" = `pwb-<stack>:latest`.
    image: str = ""
    # Start the server as the sandbox opens, so it boots while the solver works; the
    # first `serve()` then adopts it. Only for servers that need no install or build and
    # serve edits live (a static file server, `php -S`). Docker only; a hint elsewhere.
    prestart: bool = False


class Limits(msgspec.Struct, frozen=True, kw_only=True):
    memory_mb: int = 1024
    cpus: float = 1.0
    pids: int = 256
    log_tail_kb: int = 16
    ttl_seconds: int = 4 * 3600


class Labels(msgspec.Struct, frozen=True, kw_only=True):
    """Every container and network carries these; `gc` finds leftovers by them.

    `lock` is the path of the owning sweep's run lock (a file it holds `flock`ed while
    alive): `gc` removes a sweep's resources only once nobody holds that lock.
    """

    sweep: str
    cell: str
    lock: str = ""

    def as_dict(self, expires: float) -> dict[str, str]:
        """Docker label form; `expires` is the unix time after which `gc` may remove it."""
        out = {"pwb.sweep": self.sweep, "pwb.cell": self.cell, "pwb.expires": str(int(expires))}
        if self.lock:
            out["pwb.lock"] = self.lock
        return out


class ExecResult(msgspec.Struct, frozen=True, kw_only=True):
    command: str
    exit_code: int
    output_tail: str
    duration_s: float
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out


class ServeOutcome(msgspec.Struct, frozen=True, kw_only=True):
    """Result of starting the server: ready with a base URL, or not with the log tail."""

    ready: bool
    base_url: str = ""
    detail: str = ""
    duration_s: float = 0.0


class Sandbox(Protocol):
    """One cell's workspace being built and served. Owned by `Backend.open`."""

    @property
    def workspace(self) -> Path: ...

    @property
    def isolated(self) -> bool: ...

    async def run(
        self, command: str, *, timeout: float = 600.0, env: Mapping[str, str] | None = None
    ) -> ExecResult:
        """Run a shell command in the workspace; non-zero exit is data.

        `timeout` is the command's own budget and its expiry is data (`timed_out`),
        not the caller's deadline, hence a parameter rather than `fail_after`.
        """
        ...

    async def install(self) -> ExecResult: ...

    async def build(self) -> ExecResult: ...

    async def serve(self) -> ServeOutcome:
        """(Re)start the server and wait for `ready_path`, bounded by `ready_timeout`."""
        ...

    async def stop_server(self) -> None: ...

    async def ensure_alive(self) -> None:
        """Raise `ContainerError` if the sandbox itself is gone (e.g. its container was
        removed): checked before every checkpoint, so a lost sandbox is never graded."""
        ...

    def logs_tail(self) -> str: ...


class Backend(Protocol):
    name: Literal["docker", "local"]

    def open(
        self, workspace: Path, spec: ServeSpec, labels: Labels, limits: Limits | None = None
    ) -> AbstractAsyncContextManager[Sandbox]:
        """Create the sandbox; leaving the context tears it down, even on cancellation."""
        ...
