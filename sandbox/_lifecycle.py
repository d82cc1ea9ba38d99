"""A backend that owns its lifecycle around a run's sandboxes (`ManagedBackend`).

`Backend.open` is one cell's sandbox. Around a run of them a backend may own more:
the sweep's network and its reaping, the wait for a lost daemon, the image a task's
sandbox runs. These are its hooks (inspect_ai's sandbox `task_init` / `sample_init` /
`task_cleanup` are the model), so that no caller asks which backend it holds:

    async with open_session(kind, own=Own(sweep=..., lock=...)) as backend:
        host = await backend.network_gateway(sweep, lock=lock)  # '' = loopback
        image = await backend.task_image(stack, repo)  # '' = the backend's default
        ...
        await backend.await_daemon(90.0)  # after a `BackendUnavailable`

Docker's hooks do the work; the local backend's are no-ops.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Protocol

from ._docker_images import ImageBuilder
from ._gc import Own
from ._types import Backend, Limits


class ManagedBackend(Backend, Protocol):
    def session(self, own: Own) -> AbstractAsyncContextManager[None]:
        """A sweep's run of cells (`own`: its id and the run lock it holds). Entering
        removes what dead sweeps left; leaving removes the sweep's own network."""
        ...

    async def network_gateway(
        self, sweep: str, limits: Limits | None = None, *, lock: str = ""
    ) -> str:
        """The host's address on the sweep's network, created now: where the one service
        sandboxes may reach must listen. '' = loopback (no network of its own)."""
        ...

    async def task_image(self, stack: str, repo: Path, builder: ImageBuilder | None = None) -> str:
        """The image a sandbox of this task runs ('' = none: the sandbox is the host)."""
        ...

    async def await_daemon(self, timeout: float) -> None:
        """After a `BackendUnavailable`: wait, up to `timeout`, for the daemon to answer."""
        ...
