"""Where aiodocker errors enter the project: map them onto the SandboxError hierarchy.

aiodocker raises more than `DockerError`: its HTTP layer (aiohttp) raises
`asyncio.TimeoutError` (= `TimeoutError`) on a slow daemon and `ClientError`/`OSError`
on a lost socket, and `aiodocker.Docker()` *asserts* when no socket exists (a daemon
being restarted). Every one of them is an infrastructure fault, never a budget or a bug:
`entering` and `docker_client` translate them where Docker calls are made.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager

import aiodocker
import aiohttp

from ._types import BackendUnavailable, ContainerError, ImageError, SandboxError

# aiodocker reports "cannot connect to the daemon" as a DockerError with this status.
_NO_DAEMON = 900


def translate(exc: aiodocker.DockerError, what: str, *, image: bool = False) -> SandboxError:
    """The project's exception for a daemon error; the caller does `raise ... from exc`."""
    msg = f"{what}: {exc}"
    if exc.status == _NO_DAEMON:
        return BackendUnavailable(msg)
    if image or isinstance(exc, aiodocker.exceptions.DockerStreamError):
        return ImageError(msg)
    return ContainerError(msg)


@contextmanager
def entering(what: str, *, image: bool = False) -> Iterator[None]:
    """Translate what a block of Docker calls raises (wrap Docker calls only: any
    `TimeoutError` or `OSError` inside is taken to be the daemon's)."""
    try:
        yield
    except aiodocker.DockerError as exc:
        raise translate(exc, what, image=image) from exc
    except TimeoutError as exc:
        raise ContainerError(f"{what}: the Docker daemon did not answer in time") from exc
    except (aiohttp.ClientError, OSError) as exc:
        raise BackendUnavailable(f"{what}: lost the Docker daemon: {exc!r}") from exc


@asynccontextmanager
async def docker_client(what: str) -> AsyncIterator[aiodocker.Docker]:
    """`aiodocker.Docker()`, with a missing daemon socket as `BackendUnavailable`."""
    try:
        docker = aiodocker.Docker()
    except (AssertionError, ValueError, OSError) as exc:
        raise BackendUnavailable(f"{what}: no Docker daemon socket ({exc!r})") from exc
    try:
        yield docker
    finally:
        with entering(f"{what}: close"):
            await docker.close()


def is_gone(exc: aiodocker.DockerError) -> bool:
    """404 (already removed) or 409 (removal in progress): the goal is reached."""
    return exc.status in (404, 409)
