"""The verifier seam: what a checkpoint needs from a verifier, as a Protocol.

`BrowserVerifier` is the real one (Playwright on a `BrowserPool`); tests plug a fake in
at this seam to drive a cell's checkpoints without a browser (and mutation testing
can swap verdicts here), the way httpx's `MockTransport` plugs into a client.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ..contract import TaskPackage
from ..results import VerifyReport
from ..workspace import Workspace
from ._browser import BrowserPool
from ._health import RunHealth
from ._reuse import ReuseCache
from ._verify import verify


class Verifier(Protocol):
    async def verify(
        self,
        task: TaskPackage,
        base_url: str,
        *,
        check_ids: Collection[str] | None,
        health: RunHealth,
        artifacts: Path | None,
        workspace: Workspace | None = None,
    ) -> VerifyReport:
        """Verify `check_ids` (None: every check) on the site at `base_url` ("" = not
        served); raise `VerifierInfraError` for faults that are not the site's.
        `workspace`: the work tree being served, for replay reuse across checkpoints
        (a verifier may ignore it)."""
        ...


@dataclass
class BrowserVerifier:
    """The real verifier. Given the served `workspace` and `pool.replay != "full"`, it
    keeps one `ReuseCache` per work tree: a state whose dependencies did not change since
    its last replay keeps that observation (`_reuse.py`)."""

    pool: BrowserPool
    _caches: dict[Path, tuple[ReuseCache, int]] = field(default_factory=dict)

    async def verify(
        self,
        task: TaskPackage,
        base_url: str,
        *,
        check_ids: Collection[str] | None,
        health: RunHealth,
        artifacts: Path | None,
        workspace: Workspace | None = None,
    ) -> VerifyReport:
        if workspace is None or self.pool.replay == "full":
            return await verify(
                self.pool, task, base_url, check_ids=check_ids, health=health, artifacts=artifacts
            )
        cache, count = self._caches.get(workspace.root, (ReuseCache.for_contract(task.contract), 0))
        self._caches[workspace.root] = (cache, count + 1)
        tree, files = await workspace.file_index()
        reuse = cache.checkpoint(tree, files, count + 1)
        report = await verify(
            self.pool,
            task,
            base_url,
            check_ids=check_ids,
            health=health,
            artifacts=artifacts,
            reuse=reuse,
        )
        reuse.commit(await workspace.tree_id())
        return report
