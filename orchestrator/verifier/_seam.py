"""The verifier seam: what a checkpoint needs from a verifier, as a Protocol.

`BrowserVerifier` is the real one (Playwright on a `BrowserPool`); tests plug a fake in
at this seam to drive a cell's checkpoints without a browser (and mutation testing
can swap verdicts here), the way httpx's `MockTransport` plugs into a client.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ..contract import TaskPackage
from ..results import VerifyReport
from ._browser import BrowserPool
from ._health import RunHealth
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
    ) -> VerifyReport:
        """Verify `check_ids` (None: every check) on the site at `base_url` ("" = not
        served); raise `VerifierInfraError` for faults that are not the site's."""
        ...


@dataclass
class BrowserVerifier:
    pool: BrowserPool

    async def verify(
        self,
        task: TaskPackage,
        base_url: str,
        *,
        check_ids: Collection[str] | None,
        health: RunHealth,
        artifacts: Path | None,
    ) -> VerifyReport:
        return await verify(
            self.pool, task, base_url, check_ids=check_ids, health=health, artifacts=artifacts
        )
