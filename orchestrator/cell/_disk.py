"""The work tree's disk use, watched while the solver works (#36 item 4).

The checkpoint checks the limit too, but a solver (or code it runs in the sandbox) can
write for a long time between two checkpoints. `disk_watch` walks the tree every
`every_s` seconds while its block runs; past the limit it cancels the block and raises
`DiskLimitExceeded`, the same outcome as at a checkpoint (the solver's doing: `ok`,
scored on the units it cleared). What is written meanwhile is bounded by the write rate
times one interval and one walk; the sandbox is closed right after.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio

from ..workspace import DiskLimitExceeded, Workspace, WorkspaceError

WATCH_EVERY_S = 1.0


@asynccontextmanager
async def disk_watch(
    ws: Workspace, limit: int, every_s: float = WATCH_EVERY_S
) -> AsyncIterator[None]:
    """Run the block while the tree stays within `limit` bytes; else cancel it and raise
    `DiskLimitExceeded`. The block's own errors pass through as they are (not wrapped in
    an exception group: the cell tells them apart by type)."""
    flooded: list[DiskLimitExceeded] = []
    carried: Exception | None = None

    async def watch(block: anyio.CancelScope) -> None:
        while True:
            await anyio.sleep(every_s)
            try:
                await ws.check_disk(limit)
            except DiskLimitExceeded as exc:
                flooded.append(exc)
                block.cancel()
                return
            except WorkspaceError:
                continue  # a tree the solver broke: the next checkpoint says so

    with anyio.CancelScope() as block:
        async with anyio.create_task_group() as tg:
            tg.start_soon(watch, block)
            try:
                yield
            except Exception as exc:  # carried out past the task group, unwrapped
                carried = exc
            finally:
                tg.cancel_scope.cancel()
    if carried is not None:
        raise carried
    if flooded:
        raise flooded[0]
