"""Pick a backend: Docker when its daemon answers, else the (non-isolating) local one;
`open_session` holds it for a sweep's run of cells (`_lifecycle.ManagedBackend`)."""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Literal

from ._docker import DockerBackend
from ._docker_probe import DOCKER_SOCK, docker_available
from ._firewall import Allow, FirewallUnavailable, preflight
from ._gc import Own
from ._lifecycle import ManagedBackend
from ._local import LocalBackend
from ._types import BackendUnavailable

log = logging.getLogger("sandbox")

BackendKind = Literal["auto", "docker", "local"]


def docker_configured(sock: Path | None = None) -> bool:
    """Docker is meant to be used here: its socket exists, `DOCKER_HOST` names one, or
    its daemon is installed."""
    if os.environ.get("DOCKER_HOST") or (sock or DOCKER_SOCK).exists():
        return True
    return shutil.which("dockerd") is not None


async def open_backend(
    kind: BackendKind = "auto",
    *,
    firewall: bool = True,
    allow_unisolated: bool = False,
    sock: Path | None = None,
    allow: Allow | None = None,
) -> ManagedBackend:
    """The backend for `kind`; never falls back to no isolation silently.

    `docker` without a daemon raises BackendUnavailable. `auto` is Docker when its
    daemon answers; when Docker is installed or configured but does not answer it is
    still required (BackendUnavailable); with no Docker at all, the local backend needs
    `allow_unisolated` (`[sweep] allow_unisolated = true`; `--backend local` asks for it
    by name). Docker with `firewall` (the default) raises FirewallUnavailable when the
    host firewall cannot be installed: isolation is never claimed without it. `allow`:
    the one host service Docker sandboxes may reach (the LLM gateway's port on each sweep
    network's gateway address).
    """
    if kind == "local":
        return LocalBackend()
    if await docker_available(sock):
        if not firewall:
            log.warning("docker_firewall = false: sandboxes can reach the host's services")
            return DockerBackend(firewall=False, allow=allow)
        try:
            await preflight()
        except FirewallUnavailable as exc:
            hint = "; or set [sweep] docker_firewall = false to let sandboxes reach the host"
            raise FirewallUnavailable(f"{exc}{hint}") from exc
        return DockerBackend(allow=allow)
    if kind == "docker":
        raise BackendUnavailable(f"the Docker daemon does not answer at {sock or DOCKER_SOCK}")
    if docker_configured(sock):
        raise BackendUnavailable(
            f"Docker is installed but its daemon does not answer at {sock or DOCKER_SOCK}: "
            "start it, or pass --backend local to run without isolation"
        )
    if not allow_unisolated:
        raise BackendUnavailable(
            "no Docker found and backend = 'auto': pass --backend local or set "
            "[sweep] allow_unisolated = true to run cells without isolation"
        )
    log.warning("no Docker found: running cells as local processes (allow_unisolated = true)")
    return LocalBackend()


@asynccontextmanager
async def open_session(
    kind: BackendKind = "auto",
    *,
    own: Own,
    firewall: bool = True,
    allow_unisolated: bool = False,
    sock: Path | None = None,
    allow: Allow | None = None,
) -> AsyncIterator[ManagedBackend]:
    """The backend for `kind` (`open_backend`), held for the run of cells of the sweep
    `own` (`ManagedBackend.session`: its leftovers reaped, its network removed after)."""
    backend = await open_backend(
        kind, firewall=firewall, allow_unisolated=allow_unisolated, sock=sock, allow=allow
    )
    async with backend.session(own):
        yield backend
