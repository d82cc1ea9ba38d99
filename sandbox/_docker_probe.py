"""Is the Docker daemon there? (aiodocker is imported only by `_docker*` modules)."""

from __future__ import annotations

from pathlib import Path

import aiodocker


async def ping(sock: Path | None = None) -> bool:
    """True when the daemon (at `sock`, else the default/`DOCKER_HOST`) answers."""
    try:
        async with aiodocker.Docker(url=f"unix://{sock}" if sock else None) as docker:
            await docker.version()
    except (aiodocker.DockerError, OSError, AssertionError, ValueError):  # no socket: asserts
        return False
    return True
