"""The `ray` engine: a sweep's cells on a Ray cluster's worker nodes (issue #22).

The driver keeps what must be single: planning, the manifest, the ledger, progress and
SIGINT. Each worker node that declares the custom resource `pwb_cells` runs one
`NodeHost` actor per harness version, pinned to it and long-lived (detached, named):
the first sweep against the cluster starts it, later sweeps reuse its process, so a
sweep does not pay a Ray worker process and the harness's import on every node. On it
each sweep opens a session (`CellNode`) holding that node's cell resources (backend,
browser pool, providers, limiters: `_runner.open_resources`) for the whole sweep, sized
by the node's declared resources (`_ray_cell`).

The driver sends a cell to the least loaded live node with a free cell slot. Task
packages travel by contract hash (`_packages`): the driver puts each into the object
store once per sweep, a node materialises it into its own content-addressed cache and
verifies the hash, so nodes need not see the driver's `tasks_dir`. Nor its run
directory: a node runs the sweep's cells in a staging directory of its own, and each
attempt's files (events, artifacts) travel back in its reply, written into the run
directory by the driver (`_delivery`); no filesystem is shared. What a node is handed to
open a session is a `NodeSession`. The node's own images are built on first use by
content hash (ImageBuilder).

Faults where they enter: a node (or its actor process) lost mid-cell — Ray's
`RayActorError` / `NodeDiedError` / `WorkerCrashedError` / `ObjectLostError` — is a
retryable `infra_error`; the retry goes to another live node. Cancellation (SIGINT, the
sweep stopping) cancels the remote attempt (`ray.cancel`): the node cancels the cell,
whose teardown removes its sandbox there. The node enforces the cell's wall time (with
the credits for its own waits); the driver's deadline is only a backstop.

One job per module: `_ray` (this one) the driver's engine, `_ray_host` the node hosts,
`_ray_cell` a sweep's session on a node and its replies, `_ray_ledger` the cluster's one
ledger (money), `_ray_gc` garbage collection on every node. Only the `_ray*` modules
import Ray (ruff TID251); the engine needs the asyncio backend.
"""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import msgspec
import ray

from .. import events as ev
from ..budget import Ledger, credit_wait, waiting
from ..cell import CellReport
from ..config import BenchConfig
from ..contract import TaskPackage
from ..events import append_event
from ..faults import describe
from ..llm import driver_keys
from ..records import BackendName, InfraError, cell_dir_name
from ._core import CellFailure, Engine, EngineUnavailable, Job, harness_error
from ._delivery import DeliveryRefused, deliver, known_baselines
from ._packages import pack
from ._ray_cell import CELLS, LOST, NodeReply, NodeSession, unwrap
from ._ray_host import code_version, host_on, retire_stale_hosts
from ._ray_ledger import settle, start_ledger_actor, write_history
from ._runner import SweepIds

log = logging.getLogger("orchestrator.sweep.ray")


def _put_packages(tasks: list[TaskPackage]) -> dict[str, Any]:
    """Each task package into the object store, once per sweep: nodes fetch it by ref
    and cache it by contract hash."""
    return {t.contract.id: ray.put(pack(t)) for t in tasks}


@dataclass
class _Node:
    node_id: str
    actor: Any
    slots: int
    busy: int = 0
    alive: bool = True
    opened: Any = None  # the sweep's session opening on the node (an ObjectRef)


@dataclass
class RayEngine:
    cfg: BenchConfig
    run_dir: Path
    ids: SweepIds
    tasks: list[TaskPackage]
    ledger_actor: Any
    version: str
    packages: dict[str, Any]  # task id -> its package (`_packages.pack`) in the object store
    keys: Any = None  # the driver's provider keys (`llm.driver_keys`) in the object store
    nodes: dict[str, _Node] = field(default_factory=dict)
    changed: anyio.Event = field(default_factory=anyio.Event)
    cancelled: set[str] = field(default_factory=set)  # cells whose attempt was cancelled
    refreshing: anyio.Lock = field(default_factory=anyio.Lock)
    no_node_since: float | None = None  # when the last live node was lost (anyio time)
    capacity_lost: str = ""  # no live node for longer than the bound: no more cells

    def _spawn(self, node_id: str, resources: dict[str, float]) -> _Node:
        host = host_on(node_id, self.version)
        slots = max(1, int(resources.get(CELLS, 1)))
        node = _Node(node_id=node_id, actor=host, slots=slots)
        node.opened = host.open.remote(self.session(resources))
        return node

    def session(self, resources: dict[str, float]) -> NodeSession:
        """What a node with `resources` is handed to open this sweep's session."""
        return NodeSession(
            sweep=self.ids.sweep,
            cfg=self.cfg,
            packages=self.packages,
            hashes={t.contract.id: t.contract_hash for t in self.tasks},
            ledger=self.ledger_actor,
            resources=resources,
            baselines=known_baselines(self.run_dir),
            keys=self.keys,
            version=self.version,
        )

    async def refresh(self) -> list[_Node]:
        """Start a `CellNode` on every live node declaring `pwb_cells` not yet seen. Its
        Ray calls are GCS round trips: a worker thread makes them, one refresh at a time."""
        async with self.refreshing:
            new = await anyio.to_thread.run_sync(self._spawn_new, set(self.nodes))
            for node in new:
                self.nodes[node.node_id] = node
        return new

    def _spawn_new(self, seen: set[str]) -> list[_Node]:
        """Blocking: a node for every live one declaring `pwb_cells` and not in `seen`."""
        return [
            self._spawn(info["NodeID"], dict(info["Resources"]))
            for info in ray.nodes()  # type: ignore[no-untyped-call]
            if info.get("Alive") and info["NodeID"] not in seen and CELLS in info["Resources"]
        ]

    def _lost(self, node: _Node) -> None:
        node.alive = False
        ray.kill(node.actor)  # its host is dead, or as good as: the next sweep starts anew

    def _notify(self) -> None:
        self.changed.set()
        self.changed = anyio.Event()

    async def _acquire(self) -> _Node:
        """A live node with a free cell slot. With none alive (the only worker lost) the
        cell waits for one to (re)join, up to `ray_capacity_wait_s` from the loss; past
        it, this cell and every later one end `infra_error` without a result (resumable)
        and the engine says why the sweep stopped, instead of each cell burning its
        retries in a few seconds."""
        bound = self.cfg.sweep.ray_capacity_wait_s
        while True:
            free = [n for n in self.nodes.values() if n.alive and n.busy < n.slots]
            if free:
                node = min(free, key=lambda n: n.busy / n.slots)
                node.busy += 1
                return node
            if any(n.alive for n in self.nodes.values()):
                self.no_node_since = None
            elif not await self.refresh():
                now = anyio.current_time()
                if self.no_node_since is None:
                    self.no_node_since = now
                    log.warning(
                        "engine 'ray': no live worker node declares %s; waiting up to %g s "
                        "for one to join",
                        CELLS,
                        bound,
                    )
                if self.capacity_lost or now - self.no_node_since >= bound:
                    self.capacity_lost = self.capacity_lost or (
                        f"sweep stopped: no live Ray worker node declared {CELLS} for "
                        f"{bound:g} s (ray_capacity_wait_s); the cells not run are "
                        "resumable: restart a worker node and --resume"
                    )
                    raise CellFailure(
                        InfraError(error=f"no live Ray worker node for {bound:g} s"),
                        retryable=False,
                    )
            with anyio.move_on_after(2.0):  # or a node joins
                await self.changed.wait()
            await self.refresh()

    async def attempt(self, job: Job, n: int, ledger: Ledger) -> CellReport:
        # The node enforces the cell's wall time; the driver's deadline is a backstop.
        sweep = self.cfg.sweep
        credit_wait(sweep.cell_timeout_s + sweep.final_grace_s + 60.0)
        with waiting():
            node = await self._acquire()
        ref = None
        try:
            await self._opened(node)
            ref = node.actor.attempt.remote(self.ids.sweep, job, n)
            reply: NodeReply = await ref
        except anyio.get_cancelled_exc_class():
            if ref is not None:
                ray.cancel(ref)
                self.cancelled.add(job.key)  # its files come when the session closes
            raise
        except LOST as exc:
            self._lost(node)
            raise self._node_lost(job, n, node, exc) from exc
        finally:
            node.busy -= 1
            self._notify()
            await settle(self.ledger_actor, job.key, ledger)
        ledger.overshoot(reply.overshoot_usd)  # the row flags it, as on one host
        await self._deliver(job, reply)
        return unwrap(reply)

    async def _deliver(self, job: Job, reply: NodeReply) -> None:
        """The attempt's files into the run directory (`_delivery.deliver`)."""
        try:  # a worker thread's work is not cancelled: the delivery is whole or refused
            await anyio.to_thread.run_sync(deliver, reply.files, self.run_dir, job.key)
        except DeliveryRefused as exc:  # a bug of ours on the node, or a node not ours
            log.error("engine 'ray': %s", exc)
            raise CellFailure(harness_error(exc)) from exc

    async def _opened(self, node: _Node) -> None:
        """Wait until the sweep's session on `node` is open (at once, after its first
        cell); a node whose session did not open takes no more cells."""
        try:
            await node.opened
        except LOST:
            raise
        except Exception as exc:
            node.alive = False
            why = f"node {node.node_id[:12]}: the sweep's session did not open: {describe(exc)}"
            raise CellFailure(InfraError(error=why), retryable=True) from exc

    def _node_lost(self, job: Job, n: int, node: _Node, exc: BaseException) -> CellFailure:
        why = f"worker node {node.node_id[:12]} lost mid-cell: {describe(exc)}"
        cell_dir = self.run_dir / "cells" / cell_dir_name(job.key)
        cell_dir.mkdir(parents=True, exist_ok=True)
        append_event(cell_dir / "events.jsonl", ev.Error(cause="infra", error=why, attempt=n))
        return CellFailure(InfraError(error=why), retryable=True)

    async def start(self) -> BackendName:
        await self.refresh()
        if not self.nodes:
            raise EngineUnavailable(
                f"engine 'ray': no node of the cluster declares the resource {CELLS}"
                f" (ray start ... --resources '{{\"{CELLS}\": N}}')"
            )
        backends: list[BackendName] = []
        errors: list[str] = []

        async def ready(node: _Node) -> None:
            try:
                backends.append(await node.opened)
            except Exception as exc:
                node.alive = False
                if isinstance(exc, LOST):
                    self._lost(node)
                errors.append(f"node {node.node_id[:12]}: {describe(exc)}")

        # Every node's actor was created at once (`refresh`); they start side by side.
        async with anyio.create_task_group() as tg:
            for node in list(self.nodes.values()):
                tg.start_soon(ready, node)
        for error in errors:
            log.warning("engine 'ray': %s", error)
        if not backends:
            raise EngineUnavailable(f"engine 'ray': no worker node started: {'; '.join(errors)}")
        return backends[0]

    async def close(self) -> None:
        # Every node at once: each waits for its cancelled cells' teardown, then closes
        # its browser and backend.
        with anyio.CancelScope(shield=True), anyio.move_on_after(180.0):
            async with anyio.create_task_group() as tg:
                for node in self.nodes.values():
                    if node.alive:
                        tg.start_soon(self._close, node)
        with anyio.CancelScope(shield=True), anyio.move_on_after(30.0):
            await write_history(self.ledger_actor, self.run_dir)
        ray.kill(self.ledger_actor)
        with anyio.CancelScope(shield=True), anyio.move_on_after(10.0):
            await retire_stale_hosts(self.version)

    async def _close(self, node: _Node) -> None:
        """Close the sweep's session on `node`; the files of the attempts cancelled there
        come back then, delivered as a reply's (only cells this driver cancelled)."""
        try:
            leftovers: dict[str, bytes] = await node.actor.close.remote(self.ids.sweep)
        except Exception as exc:
            log.warning("node %s did not close: %s", node.node_id[:12], exc)
            return
        for key, files in leftovers.items():
            if key not in self.cancelled:
                log.error("engine 'ray': node %s sent files of cell %r", node.node_id[:12], key)
                continue
            try:
                await anyio.to_thread.run_sync(deliver, files, self.run_dir, key)
            except DeliveryRefused as exc:
                log.error("engine 'ray': %s", exc)


def auth_warning(address: str, environ: dict[str, str]) -> str:
    """Why the driver is joining a cluster others may reach without Ray's token
    authentication ('' when it is authenticated, or local): its nodes hold the keys."""
    address = address or environ.get("RAY_ADDRESS", "")
    host = address.removeprefix("ray://").rsplit(":", 1)[0].strip("[]")
    if environ.get("RAY_AUTH_MODE") == "token" or host in ("", "auto", "local"):
        return ""
    if host in ("127.0.0.1", "localhost", "::1"):
        return ""
    return (
        f"engine 'ray': joining {address} without Ray's token authentication "
        "(RAY_AUTH_MODE=token on every node and the driver; README 'Running on a "
        "cluster'): whoever reaches the cluster can run code where the provider keys are"
    )


@asynccontextmanager
async def open_ray_engine(
    cfg: BenchConfig, run_dir: Path, ids: SweepIds, tasks: list[TaskPackage], ledger: Ledger
) -> AsyncIterator[Engine]:
    owned = not ray.is_initialized()
    if warning := auth_warning(cfg.sweep.ray_address, dict(os.environ)):
        log.warning("%s", warning)
    if owned:
        try:
            ray.init(
                address=cfg.sweep.ray_address or "auto",
                include_dashboard=False,
                logging_level=logging.WARNING,
                log_to_driver=False,
            )
        except ConnectionError as exc:
            raise EngineUnavailable(f"engine 'ray': cannot reach the cluster: {exc}") from exc
    engine = RayEngine(
        cfg=cfg,
        run_dir=run_dir,
        ids=ids,
        tasks=tasks,
        ledger_actor=await anyio.to_thread.run_sync(start_ledger_actor, ledger),
        version=code_version(),
        packages=await anyio.to_thread.run_sync(_put_packages, tasks),
        # Per sweep, in memory: the nodes need no key in the environment they started from.
        keys=await anyio.to_thread.run_sync(
            ray.put, msgspec.json.encode(driver_keys(cfg.providers))
        ),
    )
    try:
        backend = await engine.start()
        yield Engine(backend=backend, attempt=engine.attempt, stopped=lambda: engine.capacity_lost)
    finally:
        await engine.close()
        if owned:
            ray.shutdown()
