"""Remove containers and networks a crashed sweep left behind, found by their labels.

Every pwb container and network carries `pwb.sweep`, `pwb.cell` and `pwb.expires`, and
a sweep's also `pwb.lock`, the path of the run lock it holds (`flock`) while alive;
this is what `python -m orchestrator gc` and the start of every sweep call. A removed
network's host firewall chain goes with it, and so does any chain whose network is
gone (a crash between the two, or a network removed by hand).

Liveness: a resource whose `pwb.lock` is held belongs to a live sweep and is never
removed (unless `force`) -- except by the holder itself: a resumed sweep holds its run's
lock, and what an earlier, killed process of the same run left carries that lock with
another sweep id (`own=`), so the resume removes it. Ad-hoc runs (`cell`, `verify`,
`admit`) hold a lock of their own under the temp directory (`adhoc_sweep`). Without a
lock label a resource is removed only when its sweep is named or its time-to-live has
passed.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import secrets
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path

import aiodocker
import anyio
import msgspec

from . import _firewall
from ._docker_errors import docker_client, entering, is_gone
from ._types import Labels, SandboxError

log = logging.getLogger("sandbox")

_CLEANUP_S = 30.0


class Removed(msgspec.Struct, frozen=True, kw_only=True):
    kind: str  # "container" | "network" | "firewall" (an orphaned chain)
    name: str
    sweep: str
    cell: str


def _filters(sweep: str | None) -> dict[str, list[str]]:
    return {"label": [f"pwb.sweep={sweep}" if sweep else "pwb.sweep"]}


def lock_held(path: str) -> bool:
    """Does a live process hold the `flock` on `path` (a sweep's run lock)?"""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False  # the run directory is gone: nobody can hold it
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # also releases the shared lock taken just now
    return False


def _expired(labels: dict[str, str], now: float) -> bool:
    try:
        return float(labels.get("pwb.expires", "0")) <= now
    except ValueError:
        return True  # unreadable expiry: treat as expired rather than leak


class Own(msgspec.Struct, frozen=True, kw_only=True):
    """The caller's own sweep: it holds `lock` (exclusively), and is `sweep`."""

    sweep: str
    lock: str


def _wanted(
    labels: dict[str, str],
    *,
    named: bool,
    expired_only: bool,
    force: bool,
    now: float,
    own: Own | None = None,
) -> bool:
    if force:
        return not expired_only or _expired(labels, now)
    lock = labels.get("pwb.lock", "")
    if own is not None and own.lock and lock == own.lock and labels.get("pwb.sweep") != own.sweep:
        return True  # our run's lock, held by us: its other sweep ids are dead processes
    if lock and lock_held(lock):
        return False  # a live sweep's
    if expired_only or not (lock or named):
        return _expired(labels, now)
    return True


async def collect_garbage(
    *,
    sweep: str | None = None,
    expired_only: bool = False,
    force: bool = False,
    own: Own | None = None,
) -> list[Removed]:
    """Remove labelled containers, then their networks, of sweeps that are not alive
    (all of `sweep`'s with `force`); return what was removed. `own`: the calling sweep,
    whose run lock is held by the caller, so resources under that lock with another
    sweep id are an earlier process's of the run (dead: the lock is exclusive).

    Shielded and bounded, so a Ctrl-C during gc does not leave it half done forever.
    Networks still in use by a live container are skipped (Docker refuses them).
    """
    now = time.time()
    removed: list[Removed] = []
    wanted = partial(
        _wanted, named=sweep is not None, expired_only=expired_only, force=force, now=now, own=own
    )
    with anyio.move_on_after(_CLEANUP_S, shield=True):
        # Chains first, networks after: a chain listed here whose network is not listed
        # below is an orphan (a network created meanwhile is listed, with its chain).
        chains = await _firewall_chains()
        async with docker_client("gc") as docker:
            with entering("gc"):
                containers = await docker.containers.list(
                    all=True, filters=json.dumps(_filters(sweep))
                )
                for c in containers:
                    labels = c["Labels"] or {}
                    if not wanted(labels):
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
                    if not wanted(labels):
                        continue
                    try:
                        await (await docker.networks.get(n["Id"])).delete()
                    except aiodocker.DockerError as exc:
                        if exc.status == 403 or exc.status == 409 or is_gone(exc):
                            continue  # still has endpoints, or already gone
                        raise
                    removed.append(_record("network", n["Name"], labels))
                live = {str(n["Id"])[:12] for n in await docker.networks.list()}
        for short in sorted(chains - live):
            if await _firewall.remove(short):
                name = _firewall.chain_name(short)
                removed.append(Removed(kind="firewall", name=name, sweep="", cell=""))
    if sweep is None and not expired_only:
        _drop_stale_locks(now)
    return removed


async def _firewall_chains() -> set[str]:
    """Installed chains, or none when this process could not have installed any."""
    try:
        return await _firewall.installed()
    except _firewall.FirewallUnavailable as exc:
        log.debug("gc: not looking at firewall chains: %s", exc)
        return set()


def _record(kind: str, name: str, labels: dict[str, str]) -> Removed:
    return Removed(
        kind=kind, name=name, sweep=labels.get("pwb.sweep", ""), cell=labels.get("pwb.cell", "")
    )


def unique_sweep(prefix: str) -> str:
    """A sweep id no other process uses: `<prefix>-<8 hex>`."""
    return f"{prefix}-{secrets.token_hex(4)}"


class AdhocSweep(msgspec.Struct, frozen=True, kw_only=True):
    """A run outside a sweep: its unique id and the run lock it holds while alive."""

    sweep: str
    lock: str

    def labels(self, cell: str) -> Labels:
        return Labels(sweep=self.sweep, cell=cell, lock=self.lock)


def _lock_dir() -> Path:
    return Path(tempfile.gettempdir()) / "pwb-locks"


_STALE_LOCK_S = 3600.0  # far longer than between creating a lock and taking it


def _drop_stale_locks(now: float) -> None:
    """Remove the lock files of ad-hoc runs that were killed (nobody holds them). Only
    old ones: a run creates its lock and takes it a moment later, and a lock removed in
    between would make that live run look dead."""
    for path in _lock_dir().glob("*.lock"):
        try:
            if now - path.stat().st_mtime > _STALE_LOCK_S and not lock_held(str(path)):
                path.unlink(missing_ok=True)
        except OSError:
            continue  # gone meanwhile


@asynccontextmanager
async def adhoc_sweep(prefix: str) -> AsyncIterator[AdhocSweep]:
    """A unique sweep id and run lock for a run outside a sweep (`cell`, `verify`,
    `admit`, tests). On exit, however it ends, its containers and network are removed;
    if the process is killed first, the lock is free and the next `gc` removes them (not
    only once their time-to-live has passed). Without a Docker daemon there is nothing
    to remove."""
    sweep = unique_sweep(prefix)
    _lock_dir().mkdir(mode=0o755, exist_ok=True)
    lock = _lock_dir() / f"{sweep}.lock"
    fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # new and unique: nobody else can hold it
        yield AdhocSweep(sweep=sweep, lock=str(lock))
    finally:
        try:
            # Bounded: what a hung pass leaves, the next `gc` removes (the lock is gone).
            with anyio.move_on_after(4 * _CLEANUP_S, shield=True):
                try:
                    await collect_garbage(sweep=sweep, force=True)
                except SandboxError as exc:  # no daemon: nothing of ours can be running
                    log.debug("sweep %s: nothing collected (%s)", sweep, exc)
        finally:
            lock.unlink(missing_ok=True)
            os.close(fd)
