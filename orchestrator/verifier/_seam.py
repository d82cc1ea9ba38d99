"""The verifier seam: what a checkpoint needs from a verifier, as a Protocol.

`BrowserVerifier` is the real one (Playwright on a `BrowserPool`); tests plug a fake in
at this seam to drive a cell's checkpoints without a browser (and mutation testing
can swap verdicts here), the way httpx's `MockTransport` plugs into a client.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Protocol

import anyio

from ..contract import TaskPackage
from ..records import VerifyReport
from ..workspace import Workspace
from ._browser import BrowserPool
from ._core import RunHealth
from ._reuse import CheckpointView, OpenTrace, ReuseCache, Untraceable, VerdictCache, verdict_key
from ._verify import verify


@dataclass(frozen=True, kw_only=True)
class VerifyRequest:
    """One checkpoint's question to a verifier: verify `check_ids` (None: every check,
    with each state's accessibility snapshot in `VerifyReport.a11y` unless `a11y` is
    False: an R0 run whose task has those snapshots as evidence) on the site at
    `base_url` ("" = not served), with the run's `health` and the checkpoint's
    `artifacts` folder (None: none). `workspace`: the work tree being served, for replay
    reuse across checkpoints (a verifier may ignore it); `server`: an id of the serving
    process that changes whenever it is (re)started, rebuilt or reinstalled ("" =
    unknown)."""

    task: TaskPackage
    base_url: str
    check_ids: Collection[str] | None
    health: RunHealth
    artifacts: Path | None
    workspace: Workspace | None = None
    server: str = ""
    a11y: bool = True


class Verifier(Protocol):
    async def verify(self, request: VerifyRequest) -> VerifyReport:
        """Answer `request`; raise `VerifierInfraError` for faults that are not the
        site's."""
        ...


@dataclass
class BrowserVerifier:
    """The real verifier. Given the served `workspace` and `pool.replay != "full"`, it
    keeps one `ReuseCache` per work tree: a state whose dependencies did not change since
    its last replay keeps that observation (`_reuse/_cache.py`)."""

    pool: BrowserPool
    # A sweep's reports by work tree, shared by its cells (`_reuse/_verdicts.py`); None: none.
    verdicts: VerdictCache | None = None
    _caches: dict[Path, tuple[ReuseCache, int]] = field(default_factory=dict)

    async def verify(self, request: VerifyRequest) -> VerifyReport:
        task, base_url, check_ids = request.task, request.base_url, request.check_ids
        health, artifacts, workspace = request.health, request.artifacts, request.workspace
        # Full-suite checkpoints (a final, R0, admission) take the accessibility
        # snapshots the continuity rules compare (`_a11y/_gate.py`), but for an R0 run
        # whose task has them as evidence (`_a11y/_evidence.py`).
        full = check_ids is None and request.a11y
        run = partial(
            verify,
            self.pool,
            task,
            base_url,
            check_ids=check_ids,
            health=health,
            artifacts=artifacts,
            a11y=full,
        )
        if workspace is None or self.pool.replay == "full":
            return await run()
        reuse = await self._checkpoint(task, workspace, request.server)
        try:
            verdicts, key = self.verdicts, ""
            if verdicts is not None and self.pool.replay == "reuse" and base_url:
                key = verdict_key(task, check_ids, health, reuse.tree, reuse.index, full)
            if verdicts is None or not key:
                return (await _replayed(run, reuse, workspace))[0]
            async with verdicts.lock(key):
                kept = await verdicts.take(key, artifacts)
                if kept is not None:
                    return kept
                report, dirty = await _replayed(run, reuse, workspace)
                if not dirty:
                    verdicts.put(key, report, artifacts)
                return report
        finally:
            if reuse.trace is not None:
                reuse.trace.close()

    async def _checkpoint(
        self, task: TaskPackage, workspace: Workspace, server: str
    ) -> CheckpointView:
        """This checkpoint's view of the work tree's `ReuseCache`, tracing the server's
        opens when it can."""
        cache, count = self._caches.get(workspace.root, (ReuseCache.for_contract(task.contract), 0))
        self._caches[workspace.root] = (cache, count + 1)
        tree, files = await workspace.file_index()
        trace = None
        if cache.traceable:
            # A request-scoped server: what it reads per state (`_reuse/_opens.py`); a tree that
            # cannot be traced, and any other server, reuses only an identical tree.
            with contextlib.suppress(Untraceable):
                trace = await anyio.to_thread.run_sync(OpenTrace.start, workspace.root)
        return cache.checkpoint(tree, files, count + 1, trace=trace, server=server)


async def _replayed(
    run: Callable[..., Awaitable[VerifyReport]], reuse: CheckpointView, workspace: Workspace
) -> tuple[VerifyReport, str]:
    """The checkpoint replayed (reusing what `reuse` can) and its fresh replays stored;
    with why its report could depend on more than the tree ('' if it cannot)."""
    await anyio.to_thread.run_sync(reuse.prepare)
    report = await run(reuse=reuse)
    tree_after = await workspace.tree_id()
    dirty = reuse.dirty(tree_after)
    await anyio.to_thread.run_sync(reuse.commit, tree_after)
    return report, dirty
