"""Is the Docker daemon there? (aiodocker is imported only by `_docker*` modules)."""

from __future__ import annotations

from pathlib import Path

import aiodocker
import anyio

DOCKER_SOCK = Path("/var/run/docker.sock")


async def ping(sock: Path | None = None) -> bool:
    """True when the daemon (at `sock`, else the default/`DOCKER_HOST`) answers."""
    try:
        async with aiodocker.Docker(url=f"unix://{sock}" if sock else None) as docker:
            await docker.version()
    except (aiodocker.DockerError, OSError, AssertionError, ValueError):  # no socket: asserts
        return False
    return True


async def docker_available(sock: Path | None = None) -> bool:
    """True when the daemon answers `/_ping` on its unix socket within 3 s."""
    if not (sock or DOCKER_SOCK).exists():
        return False
    with anyio.move_on_after(3):
        return await ping(sock)
    return False


async def await_daemon(timeout: float) -> None:
    """Wait up to `timeout` seconds for a lost daemon (stopped, restarting) to answer."""
    with anyio.move_on_after(timeout):
        for _ in range(10_000):  # polling: the daemon sends no event when it is back
            if await docker_available():
                return
            await anyio.sleep(2.0)
