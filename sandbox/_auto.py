"""Pick a backend: Docker when its daemon answers, else the (non-isolating) local one."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Literal

import anyio

from ._docker import DockerBackend
from ._docker_probe import ping
from ._firewall import FirewallUnavailable, preflight
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


async def open_backend(kind: BackendKind = "auto", *, firewall: bool = True) -> Backend:
    """The backend for `kind`; `docker` without a daemon raises BackendUnavailable.

    Docker with `firewall` (the default) raises FirewallUnavailable when the host
    firewall cannot be installed: isolation is never claimed without it.
    """
    if kind == "local":
        return LocalBackend()
    if await docker_available():
        if not firewall:
            log.warning("docker_firewall = false: sandboxes can reach the host's services")
            return DockerBackend(firewall=False)
        try:
            await preflight()
        except FirewallUnavailable as exc:
            hint = "; or set [sweep] docker_firewall = false to let sandboxes reach the host"
            raise FirewallUnavailable(f"{exc}{hint}") from exc
        return DockerBackend()
    if kind == "docker":
        raise BackendUnavailable(f"the Docker daemon does not answer at {DOCKER_SOCK}")
    log.warning("Docker daemon not reachable at %s: falling back to local processes", DOCKER_SOCK)
    return LocalBackend()
