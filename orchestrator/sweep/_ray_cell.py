"""A sweep's session on one worker node (`CellNode`), what the driver hands it to open
one (`NodeSession`), and how each remote attempt ends (`NodeReply`).

The node's cell resources (backend, browser pool, providers, limiters) are opened once
per sweep on an anyio loop in a thread of the node host's process, and every cell of the
sweep on the node runs there; see `_ray` for the whole engine. Their capacity comes from
the node's declared resources:

    pwb_cells             cells in flight on the node
    pwb_browser_contexts  its browser contexts (default: bench.toml's)
    pwb_sandbox_starts    its concurrent sandbox starts (default: bench.toml's)
"""

from __future__ import annotations

import asyncio
import logging
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass
from functools import partial
from typing import Any

import anyio
import anyio.from_thread
import msgspec
import ray
from ray.exceptions import NodeDiedError, ObjectLostError, RayActorError, WorkerCrashedError

from ..budget import BudgetExceeded, BudgetKind, Ledger, cell_deadline
from ..cell import CellReport
from ..config import BenchConfig
from ..faults import describe
from ..llm import Keys
from ..records import BackendName, InfraError, Outcome
from ._core import CellFailure, Job, StopSweep, harness_error
from ._delivery import (
    open_staging,
    pack_cell,
    remove_retired,
    seed_baselines,
    take_cell,
    write_patch_now,
)
from ._packages import default_cache, materialise
from ._ray_ledger import ClusterLedger
from ._runner import SweepIds, SweepResources, open_resources

log = logging.getLogger("orchestrator.sweep.ray")


CELLS = "pwb_cells"
BROWSER_CONTEXTS = "pwb_browser_contexts"
SANDBOX_STARTS = "pwb_sandbox_starts"
# How a lost node or actor shows itself to the driver.
LOST = (RayActorError, NodeDiedError, WorkerCrashedError, ObjectLostError)


class _Reply(msgspec.Struct, frozen=True, kw_only=True, tag=True):
    files: bytes = b""  # what the attempt wrote, for the driver's run directory (`_delivery`)
    overshoot_usd: float = 0.0  # the cell's spend past its own cap (the gateway's max_usd)


class ReplyDone(_Reply, frozen=True, kw_only=True):
    report: CellReport


class ReplyFailed(_Reply, frozen=True, kw_only=True):
    outcome: Outcome
    retryable: bool = False


class ReplyBudget(_Reply, frozen=True, kw_only=True):
    kind: BudgetKind
    error: str


class ReplyStop(_Reply, frozen=True, kw_only=True):
    error: str


# How a remote attempt ended; exceptions do not cross Ray intact, this does.
NodeReply = ReplyDone | ReplyFailed | ReplyBudget | ReplyStop


def unwrap(reply: NodeReply) -> CellReport:
    """What the attempt delivered, or its end raised as it would have been on one host."""
    match reply:
        case ReplyDone():
            return reply.report
        case ReplyBudget():
            exc = BudgetExceeded(reply.kind)
            exc.args = (reply.error,)
            raise exc
        case ReplyStop():
            raise StopSweep(reply.error)
        case ReplyFailed():
            raise CellFailure(reply.outcome, retryable=reply.retryable)


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
    # The driver's provider keys by variable (`llm.driver_keys`, JSON), in the object
    # store: in memory, per sweep, never on disk; the node's environment is the fallback.
    keys: Any = None
    version: str = ""  # the driver's harness code version (`_ray_host.code_version`)


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
        self.inflight: set[Future[NodeReply]] = set()
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
        passed = (
            msgspec.json.decode(_fetch(session.keys), type=dict[str, str])
            if session.keys is not None
            else {}
        )
        resources_cm = open_resources(
            self.cfg, self.staging.root, ids, tasks, Ledger(), keys=Keys(passed)
        )
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

    async def attempt(self, job: Job, n: int) -> NodeReply:
        fut: Future[NodeReply] = self.portal.start_task_soon(self._attempt, job, n)
        self.inflight.add(fut)
        try:
            return await asyncio.wrap_future(fut)
        except asyncio.CancelledError:
            fut.cancel()  # cancels the cell on the portal: its teardown removes the sandbox
            raise
        finally:
            self.inflight.discard(fut)

    async def _attempt(self, job: Job, n: int) -> NodeReply:
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

    async def _run(self, job: Job, n: int) -> NodeReply:
        row = job.template
        task = self.res.tasks.get(row.task)
        if task is None or task.contract_hash != self.hashes.get(row.task):
            got = "missing" if task is None else task.contract_hash[:12]
            why = (
                f"node {self.node}: task package {row.task} differs from the driver's"
                f" (contract hash {got}, expected {self.hashes.get(row.task, '')[:12]})"
            )
            return ReplyFailed(outcome=InfraError(error=why), retryable=True)
        sweep = self.cfg.sweep
        cluster = ClusterLedger(
            max_usd=sweep.max_usd,
            max_tokens=sweep.max_tokens,
            cell=job.key,
            node=self.node,
            actor=self.ledger,
        )
        child = cluster.child()
        reply: NodeReply
        try:
            with cell_deadline(sweep.cell_timeout_s, sweep.final_grace_s):
                reply = ReplyDone(report=await self.res.attempt(job, n, child))
        except BudgetExceeded as exc:
            reply = ReplyBudget(kind=exc.kind, error=str(exc))
        except StopSweep as exc:
            reply = ReplyStop(error=str(exc))
        except CellFailure as exc:
            reply = ReplyFailed(outcome=exc.outcome, retryable=exc.retryable)
        except Exception as exc:  # a bug of ours on the node
            reply = ReplyFailed(outcome=harness_error(exc))
        finally:
            # The driver takes the cell's spend from the actor once it has the reply:
            # every charge sent must have landed by then.
            with anyio.move_on_after(10.0, shield=True):
                try:
                    await cluster.flush()
                except Exception as exc:  # the actor is gone with its driver: nobody to tell
                    log.warning("cell %s: charges unconfirmed: %s", job.key, describe(exc))
        # A cell's overshoot of its own cap is flagged on the driver's row, as on one host.
        return msgspec.structs.replace(reply, overshoot_usd=child.overshoot_usd)


def _fetch(ref: Any) -> bytes:
    data: bytes = ray.get(ref)
    return data
