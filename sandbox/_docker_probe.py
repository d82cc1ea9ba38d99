"""Is the Docker daemon there? (aiodocker is imported only by `_docker*` modules)."""

from __future__ import annotations

import aiodocker


async def ping() -> bool:
    try:
        async with aiodocker.Docker() as docker:
            await docker.version()
    except (aiodocker.DockerError, OSError):
        return False
    return True
