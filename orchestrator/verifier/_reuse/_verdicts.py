"""Verdicts paid for once across the cells of a sweep (#51).

A verdict is a function of the task package and the work tree alone (DESIGN §4). The
cells of one sweep often serve byte-identical trees at a checkpoint: the reference's
cells and every scripted solver that plays it end on the reference's tree, a noop cell
on R0's. `VerdictCache` gives such a checkpoint the report the first one got instead of
replaying every state again; `BrowserVerifier` consults it when the sweep hands it one
(admission never does: its repeats exist to replay).

The key is everything a report depends on besides the browser: the contract hash, the
checks asked (None: the full suite, with its accessibility snapshots), the run health
(build, serve, scope), and the work tree's git tree id (every file's bytes and mode,
no timestamps). A report is kept only when a replay of it would say the same:

- the tree holds every byte the server may serve: no link, no folder the snapshot leaves
  out (node_modules, dist), no oversize or too-deep file (their bytes are not in the id);
- every state was reached cleanly: no crash, no timeout or host network change, no
  browser error (those may be the machine's, `_reuse._rules._timing_dependent`);
- no replay sent anything but GET or HEAD, opened a WebSocket or a worker (a server's
  state could then depend on the history of the cell it ran in), and the tree did not
  move while the replays ran.

A report taken from the cache is the first one's, its artifacts folder copied into the
new checkpoint's and each state marked `reused` with the checkpoint it came from. Text a
page wrote with its own origin in it (a console error's URL) keeps the first cell's
port: the verdicts are the same.
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import msgspec

from ...contract import TaskPackage
from ...records import VerifyReport
from ...workspace import FileIndex
from .._core import RunHealth

# Index kinds whose bytes a tree id does not hold (`workspace._snapshot`).
_UNHELD = frozenset({"excluded", "oversize", "deep", "emptydir", "link"})


def verdict_key(
    task: TaskPackage,
    check_ids: Collection[str] | None,
    health: RunHealth,
    tree: str,
    index: FileIndex,
    a11y: bool = True,
) -> str:
    """The cache key of a checkpoint, or "" when its tree does not hold every byte.
    A full suite without accessibility snapshots (`a11y` False: an R0 run of a task
    with accessibility evidence) is another key: a final on R0's tree needs them."""
    if any(kind in _UNHELD for kind, _ in index.values()):
        return ""
    checks = "*" if check_ids is None else "\n".join(sorted(check_ids))
    if check_ids is None and not a11y:
        checks = "*/no-a11y"
    h = hashlib.sha256()
    for part in (task.contract_hash, checks, msgspec.json.encode(health).decode(), tree):
        h.update(part.encode() + b"\0")
    return h.hexdigest()


@dataclass(frozen=True, slots=True)
class _Kept:
    report: VerifyReport
    artifacts: Path | None
    source: str  # "<cell artifacts dir>" for the `reused` note


@dataclass(slots=True)
class VerdictCache:
    """One sweep's checkpoint reports by `verdict_key`; one computation per key at a
    time (a second checkpoint with the key waits for the first, then takes its report)."""

    kept: dict[str, _Kept] = field(default_factory=dict)
    _locks: dict[str, anyio.Lock] = field(default_factory=dict)
    hits: int = 0

    def lock(self, key: str) -> anyio.Lock:
        return self._locks.setdefault(key, anyio.Lock())

    def put(self, key: str, report: VerifyReport, artifacts: Path | None) -> None:
        source = str(artifacts.parent.parent.name + "/" + artifacts.name) if artifacts else "?"
        self.kept[key] = _Kept(report=report, artifacts=artifacts, source=source)

    async def take(self, key: str, artifacts: Path | None) -> VerifyReport | None:
        """The kept report for `key`, its screenshots copied under `artifacts`."""
        kept = self.kept.get(key)
        if kept is None:
            return None
        if artifacts is not None and kept.artifacts is not None:
            # A retried cell writes its checkpoints where its first attempt did (the same
            # folder: nothing to copy), or cleared them (gone: replayed instead).
            if not await anyio.to_thread.run_sync(_copy_states, kept.artifacts, artifacts):
                del self.kept[key]
                return None
        self.hits += 1
        why = f"the work tree is byte-identical to {kept.source} (its verdicts)"
        states = tuple(
            msgspec.structs.replace(s, reused=why, replayed="", duration_s=0.0)
            for s in kept.report.states
        )
        return msgspec.structs.replace(kept.report, states=states, warm_discarded=())


def _copy_states(source: Path, dest: Path) -> bool:
    """`source`'s artifacts into `dest`; False when they are gone (or cannot be copied)."""
    if not source.is_dir():
        return False
    if source.resolve() == dest.resolve():
        return True
    try:
        shutil.copytree(source, dest, dirs_exist_ok=True)
    except (OSError, shutil.Error):
        return False
    return True
