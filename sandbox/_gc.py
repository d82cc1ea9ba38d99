"""Remove containers and networks a crashed sweep left behind, found by their labels.

Every pwb container and network carries `pwb.sweep`, `pwb.cell` and `pwb.expires`;
this is what `python -m orchestrator gc` and the start of every sweep call.
"""

from __future__ import annotations

import json
import time

import aiodocker
import anyio
import msgspec

from ._docker_errors import is_gone, translate

_CLEANUP_S = 30.0


class Removed(msgspec.Struct, frozen=True, kw_only=True):
    kind: str  # "container" | "network"
    name: str
    sweep: str
    cell: str


def _filters(sweep: str | None) -> dict[str, list[str]]:
    return {"label": [f"pwb.sweep={sweep}" if sweep else "pwb.sweep"]}


def _wanted(labels: dict[str, str], expired_only: bool, now: float) -> bool:
    if not expired_only:
        return True
    try:
        return float(labels.get("pwb.expires", "0")) <= now
    except ValueError:
        return True  # unreadable expiry: treat as expired rather than leak


async def collect_garbage(*, sweep: str | None = None, expired_only: bool = False) -> list[Removed]:
    """Remove labelled containers, then their networks; return what was removed.

    Shielded and bounded, so a Ctrl-C during gc does not leave it half done forever.
    Networks still in use by a live container are skipped (Docker refuses them).
    """
    now = time.time()
    removed: list[Removed] = []
    with anyio.move_on_after(_CLEANUP_S, shield=True):
        async with aiodocker.Docker() as docker:
            try:
                containers = await docker.containers.list(
                    all=True, filters=json.dumps(_filters(sweep))
                )
                for c in containers:
                    labels = c["Labels"] or {}
                    if not _wanted(labels, expired_only, now):
                        continue
                    try:
                        await c.delete(force=True)
                    except aiodocker.DockerError as exc:
                        if not is_gone(exc):
                            raise
                    name = (c["Names"] or [c.id])[0].lstrip("/")
                    removed.append(_record("container", name, labels))
                networks = await docker.networks.list(filters=_filters(sweep))
                for n in networks:
                    labels = n.get("Labels") or {}
                    if not _wanted(labels, expired_only, now):
                        continue
                    try:
                        await (await docker.networks.get(n["Id"])).delete()
                    except aiodocker.DockerError as exc:
                        if exc.status == 403 or exc.status == 409 or is_gone(exc):
                            continue  # still has endpoints, or already gone
                        raise
                    removed.append(_record("network", n["Name"], labels))
            except aiodocker.DockerError as exc:
                raise translate(exc, "gc") from exc
    return removed


def _record(kind: str, name: str, labels: dict[str, str]) -> Removed:
    return Removed(
        kind=kind, name=name, sweep=labels.get("pwb.sweep", ""), cell=labels.get("pwb.cell", "")
    )
