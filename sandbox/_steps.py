"""What the backends' sandboxes do the same way, written once (`SpecSteps`): install and
build are `run`s of the spec's commands (an empty one succeeds without running), and a
started server is ready when its `ready_path` answers."""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path

from ._ready import wait_ready
from ._types import ExecResult, ServeOutcome, ServeSpec


class SpecSteps(ABC):
    """A sandbox's steps of its `ServeSpec`; the backend supplies `run` and `logs_tail`."""

    def __init__(self, workspace: Path, spec: ServeSpec) -> None:
        self._workspace = workspace
        self._spec = spec

    @property
    def workspace(self) -> Path:
        return self._workspace

    @abstractmethod
    async def run(
        self, command: str, *, timeout: float = 600.0, env: Mapping[str, str] | None = None
    ) -> ExecResult: ...

    @abstractmethod
    def logs_tail(self) -> str: ...

    async def install(self) -> ExecResult:
        return await self._maybe_run(self._spec.install)

    async def build(self) -> ExecResult:
        return await self._maybe_run(self._spec.build)

    async def _maybe_run(self, command: str) -> ExecResult:
        if not command:
            return ExecResult(command="", exit_code=0, output_tail="", duration_s=0.0)
        return await self.run(command)

    async def _await_ready(
        self,
        url: str,
        t0: float,
        alive: Callable[[], Awaitable[bool]],
        why_down: Callable[[str], Awaitable[str]],
    ) -> ServeOutcome:
        """The server started at `t0` and serving at `url`, once it answers `ready_path`
        (bounded by `ready_timeout`); else why not (`why_down`) and its log tail."""
        why = await wait_ready(url + self._spec.ready_path, self._spec.ready_timeout, alive)
        took = time.monotonic() - t0
        if not why:
            return ServeOutcome(ready=True, base_url=url, duration_s=took)
        detail = f"server not ready ({await why_down(why)}):\n{self.logs_tail()}"
        return ServeOutcome(ready=False, detail=detail, duration_s=took)
