"""The node host: one long-lived actor per worker node and harness version (`NodeHost`),
serving every sweep run against the cluster, one `CellNode` session per sweep; the
harness's code version that names it; retiring the hosts of other versions.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
from pathlib import Path
from typing import Any

import anyio
import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from ..faults import describe
from ..records import BackendName, InfraError
from ._core import Job
from ._ray_cell import LOST, CellNode, NodeReply, NodeSession, ReplyFailed

log = logging.getLogger("orchestrator.sweep.ray")

HOST_NAMESPACE = "pwb"  # the node hosts' actors are named in it


class VersionMismatch(Exception):
    """A node's harness code is not the driver's: it takes no cell of the sweep."""


def check_version(mine: str, drivers: str, node_id: str) -> None:
    """Refuse a session whose driver runs other harness code than this node
    (`code_version`): its cells would not be the sweep's."""
    if drivers and drivers != mine:
        raise VersionMismatch(
            f"node {node_id[:12]} runs harness code {mine}, the driver {drivers}: install "
            "the driver's code on it (the same checkout or wheel) and restart its Ray worker"
        )


class NodeHost:
    """One per worker node and harness version, long-lived (a detached named actor):
    its process, with the harness imported, serves every sweep run against the cluster,
    so a sweep does not pay a new Ray worker process and the harness's import on each
    node. Each sweep opens a session on it (`CellNode`: that sweep's resources, its
    Chromium included) and closes it at the end.

    A session whose driver dies (its ledger actor, owned by the driver, dies with it)
    is abandoned here: its running cells are cancelled, their sandboxes removed and its
    resources closed, as when the driver's own actors died with it."""

    WATCH_S = 2.0

    def __init__(self) -> None:
        self.sessions: dict[str, CellNode] = {}
        self.watchers: set[asyncio.Task[None]] = set()

    async def open(self, session: NodeSession) -> BackendName:
        mine = await asyncio.to_thread(code_version)
        check_version(mine, session.version, ray.get_runtime_context().get_node_id())
        node = await asyncio.to_thread(CellNode, session)
        self.sessions[session.sweep] = node
        watcher = asyncio.get_running_loop().create_task(self._watch(session.sweep, node.ledger))
        self.watchers.add(watcher)
        watcher.add_done_callback(self.watchers.discard)
        return node.ready()

    async def attempt(self, session: str, job: Job, n: int) -> NodeReply:
        node = self.sessions.get(session)
        if node is None:
            why = f"node {ray.get_runtime_context().get_node_id()[:12]}: no session {session}"
            return ReplyFailed(outcome=InfraError(error=why), retryable=True)
        return await node.attempt(job, n)

    async def close(self, session: str, abandon: bool = False) -> dict[str, bytes]:
        """Close a sweep's session: the files of its cancelled attempts, by cell."""
        node = self.sessions.pop(session, None)
        if node is None:
            return {}
        return await asyncio.to_thread(node.close, abandon)

    def open_sessions(self) -> list[str]:
        return sorted(self.sessions)

    def pid(self) -> int:
        return os.getpid()

    async def _watch(self, session: str, ledger: Any) -> None:
        while session in self.sessions:
            await asyncio.sleep(self.WATCH_S)
            try:
                await ledger.totals.remote()
            except LOST:
                log.warning("sweep %s: its driver is gone; closing its session", session)
                await self.close(session, abandon=True)
                return
            except Exception as exc:  # not a verdict on the driver: look again later
                log.warning("sweep %s: ledger unreachable: %s", session, describe(exc))


async def retire_stale_hosts(version: str) -> None:
    """Kill the idle node hosts of other harness versions (the code was updated since
    they started); a host still serving a sweep of its version is left alone."""
    for name, host in await anyio.to_thread.run_sync(_stale_hosts, version):
        try:
            if not await host.open_sessions.remote():
                ray.kill(host)
        except Exception as exc:  # gone meanwhile, or its node is
            log.info("node host %s: %s", name, describe(exc))


def _stale_hosts(version: str) -> list[tuple[str, Any]]:
    """Blocking (GCS lookups): the node hosts of other harness versions, by name."""
    hosts = []
    for entry in ray.util.list_named_actors(all_namespaces=True):
        name = entry["name"] if isinstance(entry, dict) else entry
        if not name.startswith("pwb-node-") or name.startswith(f"pwb-node-{version}-"):
            continue
        try:
            hosts.append((name, ray.get_actor(name, namespace=HOST_NAMESPACE)))
        except Exception as exc:  # gone meanwhile, or its node is
            log.info("node host %s: %s", name, describe(exc))
    return hosts


def code_version() -> str:
    """The harness's source (`orchestrator`, `sandbox`) as a short hash: a node host
    serves only drivers of the code it imported."""
    import orchestrator
    import sandbox

    h = hashlib.sha256()
    for pkg in (orchestrator, sandbox):
        root = Path(pkg.__file__ or "").parent
        for path in sorted(root.rglob("*.py")):
            h.update(str(path.relative_to(root.parent)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


def host_on(node_id: str, version: str) -> Any:
    """The node host of `version` on `node_id`: the one already running (a previous
    sweep's), or a new one."""
    return (
        ray.remote(NodeHost)
        .options(
            name=f"pwb-node-{version}-{node_id}",
            namespace=HOST_NAMESPACE,
            lifetime="detached",
            get_if_exists=True,
            num_cpus=0,
            max_concurrency=1000,  # sessions x their cells; the node caps its cells
            max_restarts=0,
            scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False),
        )
        .remote()
    )
