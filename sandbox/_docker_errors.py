"""Where aiodocker errors enter the project: map them onto the SandboxError hierarchy."""

from __future__ import annotations

import aiodocker

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


def is_gone(exc: aiodocker.DockerError) -> bool:
    """404 (already removed) or 409 (removal in progress): the goal is reached."""
    return exc.status in (404, 409)
