"""The `ray` engine: a sweep's cells on a Ray cluster's worker nodes (issue #22).

The driver keeps what must be single: planning, the manifest, the ledger, progress and
SIGINT. Each worker node that declares the custom resource `pwb_cells` runs one
`NodeHost` actor per harness version, pinned to it and long-lived (detached, named):
the first sweep against the cluster starts it, later sweeps reuse its process, so a
sweep does not pay a Ray worker process and the harness's import on every node. On it
each sweep opens a session (`CellNode`) holding that node's cell resources (backend,
browser pool, providers, limiters: `_runner.open_resources`) for the whole sweep; the
node's capacity comes from its declared resources:

    pwb_cells             cells in flight on the node
    pwb_browser_contexts  its browser contexts (default: bench.toml's)
    pwb_sandbox_starts    its concurrent sandbox starts (default: bench.toml's)

The driver sends a cell to the least loaded live node with a free cell slot. Task
packages travel by contract hash (`_packages`): the driver puts each into the object
store once per sweep, a node materialises it into its own content-addressed cache and
verifies the hash, so nodes need not see the driver's `tasks_dir`. Nor its run
directory: a node runs the sweep's cells in a staging directory of its own, and each
attempt's files (events, artifacts) travel back in its reply, written into the run
directory by the driver (`_delivery`); no filesystem is shared. What a node is handed to
open a session is a `NodeSession`. The node's own images are built on first use by
content hash (ImageBuilder).

Money: one `LedgerActor`, on the head node, is charged by every node as spend
happens; a node's cell ledger reads its totals before each LLM call, so a cap reached
stops new calls everywhere. After each attempt the driver takes the cell's spend from it
into the cell's own ledger, so the row and the sweep ledger are what they are on one host.

Faults where they enter: a node (or its actor process) lost mid-cell — Ray's
`RayActorError` / `NodeDiedError` / `WorkerCrashedError` / `ObjectLostError` — is a
retryable `infra_error`; the retry goes to another live node. Cancellation (SIGINT, the
sweep stopping) cancels the remote attempt (`ray.cancel`): the node cancels the cell,
whose teardown removes its sandbox there. The node enforces the cell's wall time (with
the credits for its own waits); the driver's deadline is only a backstop.

Only this module imports Ray (ruff TID251); it needs the asyncio backend.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import threading
from collections.abc import AsyncIterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack, asynccontextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import anyio.from_thread
import msgspec
import ray
from ray.exceptions import NodeDiedError, ObjectLostError, RayActorError, WorkerCrashedError
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from sandbox import Removed, SandboxError, collect_garbage

from .. import events as ev
from ..budget import BudgetExceeded, BudgetKind, Ledger, cell_deadline, credit_wait, waiting
from ..cluster_ledger import Charge, LedgerActor
from ..config import BenchConfig
from ..contract import TaskPackage
from ..events import append_event
from ..faults import describe
from ..records import BackendName, InfraError, Outcome, cell_dir_name
from ._core import (
    CellFailure,
    Delivered,
    Engine,
    EngineUnavailable,
    Job,
    StopSweep,
    harness_error,
)
from ._delivery import (
    DeliveryRefused,
    deliver,
    known_baselines,
    open_staging,
    pack_cell,
    remove_retired,
    seed_baselines,
    take_cell,
    write_patch_now,
)
from ._packages import default_cache, materialise, pack
from ._runner import SweepIds, SweepResources, open_resources

log = logging.getLogger("orchestrator.sweep.ray")

CELLS = "pwb_cells"
BROWSER_CONTEXTS = "pwb_browser_contexts"
SANDBOX_STARTS = "pwb_sandbox_starts"
# How a lost node or actor shows itself to the driver.
LOST = (RayActorError, NodeDiedError, WorkerCrashedError, ObjectLostError)


class Reply(msgspec.Struct, frozen=True, kw_only=True):
    """How a remote attempt ended; exceptions do not cross Ray intact, this does."""

    delivered: Delivered | None = None
    failure: Outcome | None = None
    retryable: bool = False
    budget: BudgetKind | None = None
    stop: bool = False
    error: str = ""
    files: bytes = b""  # what the attempt wrote, for the driver's run directory (`_delivery`)


@dataclass
class ClusterLedger(Ledger):
    """A node's view of the sweep ledger: charges go to the `LedgerActor` as they happen,
    and `acheck` reads the cluster-wide totals first (one round trip per LLM call).

    Nothing here blocks the cell's event loop (hundreds of cells share a node's): a
    charge is sent, not waited on (the actor takes one process's calls in the order they
    were sent), and `acheck` awaits the charges sent so far and then the totals. There is
    no synchronous `check`."""

    cell: str = ""
    node: str = ""
    actor: Any = None
    sent: list[Any] = field(default_factory=list)  # charges not yet acknowledged (ObjectRefs)

    def _sync(self, totals: tuple[int, float]) -> None:
        self.spent_tokens, self.spent_usd = totals
        if self.exhausted:
            self.stopped = True

    def charge(self, tokens: int, usd: float, *, estimated: bool = False) -> None:
        self.sent.append(self.actor.charge.remote(self.cell, self.node, tokens, usd, estimated))

    async def flush(self) -> None:
        """Wait until the actor has taken every charge sent so far (a cell's concurrent
        calls, through its gateway, may flush at once: each keeps its refs until done)."""
        sent = list(self.sent)
        for ref in sent:
            self._sync(await ref)
        done = {id(ref) for ref in sent}
        self.sent = [ref for ref in self.sent if id(ref) not in done]

    def check(self) -> None:
        raise TypeError("a ClusterLedger is checked with `await acheck()`, never blocking")

    async def acheck(self) -> None:
        await self.flush()
        self._sync(await self.actor.totals.remote())
        self._check_caps()


def node_config(cfg: BenchConfig, resources: dict[str, float]) -> BenchConfig:
    """The sweep's config with this node's declared capacity."""
    sweep = msgspec.structs.replace(
        cfg.sweep,
        concurrency=max(1, int(resources.get(CELLS, 1))),
        browser_contexts=int(resources.get(BROWSER_CONTEXTS, cfg.sweep.browser_contexts)),
        sandbox_starts=int(resources.get(SANDBOX_STARTS, cfg.sweep.sandbox_starts)),
    )
    return msgspec.structs.replace(cfg, sweep=sweep)


@dataclass(frozen=True)
class NodeSession:
    """What the driver hands one node to open a sweep's session there. Never the driver's
    run directory nor its run lock: the node stages the sweep on its own disk and locks it
    there (`_delivery.open_staging`). A dataclass, not a Struct: it carries Ray refs."""

    sweep: str  # the sweep's id: names the session on every host, and its staging
    cfg: BenchConfig
    packages: dict[str, Any]  # task id -> its package (`_packages.pack`) in the object store
    hashes: dict[str, str]  # task id -> contract hash
    ledger: Any  # the sweep's `LedgerActor`
    resources: dict[str, float]  # the node's declared capacity
    baselines: dict[str, bytes]  # the driver's baseline cache (`_delivery.known_baselines`)


class CellNode:
    """One sweep on one worker node: the node's cell resources for that sweep, opened
    once, reused by every cell (a session of the node's `NodeHost`).

    The resources live on an anyio event loop in a thread of their own (a blocking
    portal), so their task groups are entered and left by one task; Ray's asyncio loop
    only waits on the portal's futures, and cancelling one cancels the cell."""

    def __init__(self, session: NodeSession) -> None:
        self.cfg = node_config(session.cfg, session.resources)
        self.hashes = session.hashes
        self.ledger = session.ledger
        self.node = ray.get_runtime_context().get_node_id()[:12]
        self._stack = ExitStack()
        self.running = 0  # attempts on the portal, teardown included
        self.staged: set[str] = set()  # cells whose files are in staging, not yet sent
        self.inflight: set[Future[Reply]] = set()
        self.idle = threading.Condition()
        try:
            self._open(session)
        except BaseException:
            self._stack.close()  # what opened so far: the portal, the staging and its lock
            raise

    def _open(self, session: NodeSession) -> None:
        self.portal = self._stack.enter_context(anyio.from_thread.start_blocking_portal())
        # The task packages by contract hash, from this node's cache (filled from the
        # object store once per hash), never from the driver's tasks_dir.
        tasks = [
            materialise(tid, self.hashes[tid], partial(_fetch, ref), default_cache())
            for tid, ref in session.packages.items()
        ]
        # The node's own sweep id for its Docker resources and its staging: two nodes
        # sharing one daemon or disk (two Ray nodes on one host) would otherwise race to
        # create one network name (Docker then holds two: "ambiguous") or directory.
        sweep = f"{session.sweep}-{self.node[:8]}"
        # The sweep's run directory on this node, and its lock: the `pwb.lock` of the
        # node's sandboxes, so `gc` here judges them by a lock on this node's disk.
        self.staging = self._stack.enter_context(open_staging(sweep))
        # Sent cells' staging is removed here, one at a time, off their replies' path;
        # the session waits for it (before its staging goes) when it closes.
        self.trash = ThreadPoolExecutor(1, thread_name_prefix="pwb-retired")
        self._stack.callback(self.trash.shutdown)
        seed_baselines(self.staging.root, session.baselines)
        ids = SweepIds(sweep=sweep, lock=str(self.staging.lock))
        resources_cm = open_resources(self.cfg, self.staging.root, ids, tasks, Ledger())
        self.res: SweepResources = self._stack.enter_context(
            self.portal.wrap_async_context_manager(resources_cm)
        )

    def ready(self) -> BackendName:
        return self.res.backend.name

    def close(self, abandon: bool = False) -> dict[str, bytes]:
        """Close the sweep's resources here; `abandon`: its driver is gone, so the cells
        still running are cancelled first (their teardown removes their sandboxes).
        Returns the files of the attempts that sent none (cancelled: Ctrl-C), by cell,
        packed as a reply's (`take_cell`); none when abandoned (nobody to send them to)."""
        if abandon:
            for fut in list(self.inflight):
                fut.cancel()
        # Cells cancelled a moment ago are still tearing down (removing their sandboxes)
        # on the portal: the resources they use close after them.
        with self.idle:
            self.idle.wait_for(lambda: self.running == 0, timeout=120.0)
        try:
            return {} if abandon else {key: self._take(key) for key in sorted(self.staged)}
        finally:
            self._stack.close()

    def _take(self, key: str) -> bytes:
        """Blocking (not on the portal): a cancelled attempt's files."""
        try:
            write_patch_now(self.staging.root, key)
        except Exception as exc:  # its tree is gone or unreadable: the rest still goes
            log.warning("cell %s: no workspace.patch: %s", key, describe(exc))
        return take_cell(self.staging.root, key)

    async def attempt(self, job: Job, n: int) -> Reply:
        fut: Future[Reply] = self.portal.start_task_soon(self._attempt, job, n)
        self.inflight.add(fut)
        try:
            return await asyncio.wrap_future(fut)
        except asyncio.CancelledError:
            fut.cancel()  # cancels the cell on the portal: its teardown removes the sandbox
            raise
        finally:
            self.inflight.discard(fut)

    async def _attempt(self, job: Job, n: int) -> Reply:
        with self.idle:
            self.running += 1
            self.staged.add(job.key)
        try:
            reply = await self._run(job, n)
            # What the attempt wrote goes back with its reply (its final work tree as a
            # patch), packed in one worker thread; its staging is removed after.
            files, retired = await anyio.to_thread.run_sync(pack_cell, self.staging.root, job.key)
            self.staged.discard(job.key)
            if retired is not None:
                try:
                    self.trash.submit(remove_retired, retired)
                except RuntimeError:  # the session is closing: its staging goes whole
                    pass
            return msgspec.structs.replace(reply, files=files)
        finally:
            with self.idle:
                self.running -= 1
                self.idle.notify_all()

    async def _run(self, job: Job, n: int) -> Reply:
        row = job.template
        task = self.res.tasks.get(row.task)
        if task is None or task.contract_hash != self.hashes.get(row.task):
            got = "missing" if task is None else task.contract_hash[:12]
            why = (
                f"node {self.node}: task package {row.task} differs from the driver's"
                f" (contract hash {got}, expected {self.hashes.get(row.task, '')[:12]})"
            )
            return Reply(failure=InfraError(error=why), retryable=True)
        sweep = self.cfg.sweep
        cluster = ClusterLedger(
            max_usd=sweep.max_usd,
            max_tokens=sweep.max_tokens,
            cell=job.key,
            node=self.node,
            actor=self.ledger,
        )
        try:
            with cell_deadline(sweep.cell_timeout_s, sweep.final_grace_s):
                return Reply(delivered=await self.res.attempt(job, n, cluster.child()))
        except BudgetExceeded as exc:
            return Reply(budget=exc.kind, error=str(exc))
        except StopSweep as exc:
            return Reply(stop=True, error=str(exc))
        except CellFailure as exc:
            return Reply(failure=exc.outcome, retryable=exc.retryable)
        except Exception as exc:  # a bug of ours on the node
            return Reply(failure=harness_error(exc))
        finally:
            # The driver takes the cell's spend from the actor once it has the reply:
            # every charge sent must have landed by then.
            with anyio.move_on_after(10.0, shield=True):
                try:
                    await cluster.flush()
                except Exception as exc:  # the actor is gone with its driver: nobody to tell
                    log.warning("cell %s: charges unconfirmed: %s", job.key, describe(exc))


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
        node = await asyncio.to_thread(CellNode, session)
        self.sessions[session.sweep] = node
        watcher = asyncio.get_running_loop().create_task(self._watch(session.sweep, node.ledger))
        self.watchers.add(watcher)
        watcher.add_done_callback(self.watchers.discard)
        return node.ready()

    async def attempt(self, session: str, job: Job, n: int) -> Reply:
        node = self.sessions.get(session)
        if node is None:
            why = f"node {ray.get_runtime_context().get_node_id()[:12]}: no session {session}"
            return Reply(failure=InfraError(error=why), retryable=True)
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
    for entry in ray.util.list_named_actors(all_namespaces=True):
        name = entry["name"] if isinstance(entry, dict) else entry
        if not name.startswith("pwb-node-") or name.startswith(f"pwb-node-{version}-"):
            continue
        try:
            host = ray.get_actor(name, namespace=HOST_NAMESPACE)
            if not await host.open_sessions.remote():
                ray.kill(host)
        except Exception as exc:  # gone meanwhile, or its node is
            log.info("node host %s: %s", name, describe(exc))


def _fetch(ref: Any) -> bytes:
    data: bytes = ray.get(ref)
    return data


def _put_packages(tasks: list[TaskPackage]) -> dict[str, Any]:
    """Each task package into the object store, once per sweep: nodes fetch it by ref
    and cache it by contract hash."""
    return {t.contract.id: ray.put(pack(t)) for t in tasks}


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


HOST_NAMESPACE = "pwb"


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
    nodes: dict[str, _Node] = field(default_factory=dict)
    changed: anyio.Event = field(default_factory=anyio.Event)
    cancelled: set[str] = field(default_factory=set)  # cells whose attempt was cancelled

    def _spawn(self, node_id: str, resources: dict[str, float]) -> _Node:
        # The node's host: the one already running (a previous sweep's), or a new one.
        host: Any = (
            ray.remote(NodeHost)
            .options(
                name=f"pwb-node-{self.version}-{node_id}",
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
        )

    def refresh(self) -> list[_Node]:
        """Start a `CellNode` on every live node declaring `pwb_cells` not yet seen."""
        new = []
        for info in ray.nodes():  # type: ignore[no-untyped-call]
            nid = info["NodeID"]
            if not info.get("Alive") or nid in self.nodes or CELLS not in info["Resources"]:
                continue
            self.nodes[nid] = node = self._spawn(nid, dict(info["Resources"]))
            new.append(node)
        return new

    def _lost(self, node: _Node) -> None:
        node.alive = False
        ray.kill(node.actor)  # its host is dead, or as good as: the next sweep starts anew

    def _notify(self) -> None:
        self.changed.set()
        self.changed = anyio.Event()

    async def _acquire(self) -> _Node:
        while True:
            free = [n for n in self.nodes.values() if n.alive and n.busy < n.slots]
            if free:
                node = min(free, key=lambda n: n.busy / n.slots)
                node.busy += 1
                return node
            if not any(n.alive for n in self.nodes.values()) and not self.refresh():
                raise CellFailure(
                    InfraError(error=f"no live Ray node declares the resource {CELLS}"),
                    retryable=True,
                )
            with anyio.move_on_after(2.0):  # or a node joins
                await self.changed.wait()
            self.refresh()

    async def attempt(self, job: Job, n: int, ledger: Ledger) -> Delivered:
        # The node enforces the cell's wall time; the driver's deadline is a backstop.
        sweep = self.cfg.sweep
        credit_wait(sweep.cell_timeout_s + sweep.final_grace_s + 60.0)
        with waiting():
            node = await self._acquire()
        ref = None
        try:
            await self._opened(node)
            ref = node.actor.attempt.remote(self.ids.sweep, job, n)
            reply: Reply = await ref
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
            await self._settle(job, ledger)
        await self._deliver(job, reply)
        return _delivered(reply)

    async def _deliver(self, job: Job, reply: Reply) -> None:
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

    async def _settle(self, job: Job, ledger: Ledger) -> None:
        """Move what the cell was charged on its node into the driver's cell ledger."""
        with anyio.CancelScope(shield=True), anyio.move_on_after(10.0):
            tokens, usd, estimated = await self.ledger_actor.take.remote(job.key)
            if tokens or usd:
                ledger.charge(tokens, usd)
            for _ in range(estimated):
                ledger.charge(0, 0.0, estimated=True)

    async def start(self) -> BackendName:
        self.refresh()
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
            await self._write_history()
        ray.kill(self.ledger_actor)
        with anyio.CancelScope(shield=True), anyio.move_on_after(10.0):
            await retire_stale_hosts(self.version)

    async def _write_history(self) -> None:
        """Every charge of this sweep, in the order the cluster ledger took them, with the
        node and cell it came from: `ledger.jsonl` in the run directory (appended on
        `--resume`)."""
        try:
            charges: list[Charge] = await self.ledger_actor.history.remote()
        except Exception as exc:
            log.warning("engine 'ray': the ledger's history is lost: %s", describe(exc))
            return
        if charges:
            with (self.run_dir / "ledger.jsonl").open("ab") as f:
                f.write(b"".join(msgspec.json.encode(c) + b"\n" for c in charges))

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


def _delivered(reply: Reply) -> Delivered:
    if reply.delivered is not None:
        return reply.delivered
    if reply.budget is not None:
        exc = BudgetExceeded(reply.budget)
        exc.args = (reply.error,)
        raise exc
    if reply.stop:
        raise StopSweep(reply.error)
    assert reply.failure is not None
    raise CellFailure(reply.failure, retryable=reply.retryable)


@asynccontextmanager
async def open_ray_engine(
    cfg: BenchConfig, run_dir: Path, ids: SweepIds, tasks: list[TaskPackage], ledger: Ledger
) -> AsyncIterator[Engine]:
    owned = not ray.is_initialized()
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
    # The ledger lives on the head node (the cluster's own fate), not on a worker that
    # may be lost; with several nodes on one IP the driver's node may be a worker's.
    heads = [
        n["NodeID"]
        for n in ray.nodes()  # type: ignore[no-untyped-call]
        if n.get("Alive") and "node:__internal_head__" in n["Resources"]
    ]
    here = heads[0] if heads else ray.get_runtime_context().get_node_id()
    ledger_actor = (
        ray.remote(LedgerActor)
        .options(num_cpus=0, scheduling_strategy=NodeAffinitySchedulingStrategy(here, soft=False))
        .remote(ledger.max_usd, ledger.max_tokens)
    )
    engine = RayEngine(
        cfg=cfg,
        run_dir=run_dir,
        ids=ids,
        tasks=tasks,
        ledger_actor=ledger_actor,
        version=code_version(),
        packages=await anyio.to_thread.run_sync(_put_packages, tasks),
    )
    try:
        backend = await engine.start()
        yield Engine(backend=backend, attempt=engine.attempt)
    finally:
        await engine.close()
        if owned:
            ray.shutdown()


class NodeGc(msgspec.Struct, frozen=True, kw_only=True):
    """`gc` on one worker node: what it removed there, or why it could not."""

    node: str
    removed: list[Removed] = []
    error: str = ""


def _gc_here(sweep: str | None, expired: bool, force: bool) -> NodeGc:
    node = ray.get_runtime_context().get_node_id()
    try:
        removed = anyio.run(
            partial(collect_garbage, sweep=sweep, expired_only=expired, force=force),
            backend="asyncio",
        )
    except SandboxError as exc:
        return NodeGc(node=node, error=str(exc))
    return NodeGc(node=node, removed=removed)


def gc_cluster(address: str, sweep: str | None, expired: bool, force: bool) -> list[NodeGc]:
    """`gc` on every live node of the cluster that declares `pwb_cells` (each its own
    Docker daemon), one task pinned to each, in parallel."""
    owned = not ray.is_initialized()
    if owned:
        try:
            ray.init(
                address=address or "auto",
                include_dashboard=False,
                logging_level=logging.WARNING,
                log_to_driver=False,
            )
        except ConnectionError as exc:
            raise EngineUnavailable(f"engine 'ray': cannot reach the cluster: {exc}") from exc
    try:
        nodes = [
            n["NodeID"]
            for n in ray.nodes()  # type: ignore[no-untyped-call]
            if n.get("Alive") and CELLS in n["Resources"]
        ]
        if not nodes:
            raise EngineUnavailable(f"engine 'ray': no node of the cluster declares {CELLS}")
        task = ray.remote(_gc_here)
        refs = [
            task.options(
                num_cpus=0, scheduling_strategy=NodeAffinitySchedulingStrategy(nid, soft=False)
            ).remote(sweep, expired, force)
            for nid in nodes
        ]
        out: list[NodeGc] = []
        for nid, ref in zip(nodes, refs, strict=True):
            try:
                out.append(ray.get(ref))
            except Exception as exc:  # the node died, or its worker did
                out.append(NodeGc(node=nid, error=describe(exc)))
        return out
    finally:
        if owned:
            ray.shutdown()


__all__ = [
    "CellNode",
    "Charge",
    "ClusterLedger",
    "LedgerActor",
    "NodeGc",
    "NodeHost",
    "NodeSession",
    "Reply",
    "gc_cluster",
    "open_ray_engine",
]
