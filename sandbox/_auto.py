"""Pick a backend: Docker when its daemon answers, else the (non-isolating) local one."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Literal

import anyio

from ._docker import DockerBackend
from ._docker_probe import ping
from ._local import LocalBackend
from ._types import Backend, BackendUnavailable

log = logging.getLogger("sandbox")

DOCKER_SOCK = Path("/var/run/docker.sock")
BackendKind = Literal["auto", "docker", "local"]


async def docker_available(sock: Path = DOCKER_SOCK) -> bool:
    """True when the daemon answers `/_ping` on its unix socket within 3 s."""
    if not sock.exists():
        return False
    with anyio.move_on_after(3):
        return await ping()
    return False


async def open_backend(kind: BackendKind = "auto") -> Backend:
    """The backend for `kind`; `docker` without a daemon raises BackendUnavailable."""
    if kind == "local":
        return LocalBackend()
    if await docker_available():
        return DockerBackend()
    if kind == "docker":
        raise BackendUnavailable(f"the Docker daemon does not answer at {DOCKER_SOCK}")
    log.warning("Docker daemon not reachable at %s: falling back to local processes", DOCKER_SOCK)
    return LocalBackend()
