"""Replay reuse: a state whose inputs did not change keeps its last observation.

A state's outcome is a function of the bytes it was served and the actions it replays.
Each replayed state records every same-origin request it made; the next checkpoint
reuses its observation only when all of these hold (anything else replays):

- the job is the same (state, action chain, settle rule, base URL, options, reference
  evidence) and asks for no check, fingerprint or screenshot the stored one lacks, and
  drops no visual check the stored one evaluated (a screenshot may change the page for
  the checks after it). A replay evaluates all of the state's checks, in contract order,
  when the added ones only read the page (`_verify._jobs._with_read_only`);
- the replay was clean: the state was reached, no crash, no timeout or host network
  change anywhere in it (those may be the machine's load, not the site: a transient
  failure is never carried forward), every request a GET or HEAD, no WebSocket and no
  worker, and the work tree did not move while it ran;
- its dependencies are byte-identical in the new work tree:
  - static stacks (Python's `http.server` with no install or build step): every
    requested URL resolves, by that server's rules, to the same view — the same file
    (blob and modification second, which `Last-Modified` carries), the same folder with
    the same `index.html`/`index.htm`, or still nothing (a 404). A URL reaching a link,
    a folder without an index (a generated listing), or a path the snapshot does not
    hold (node_modules, dist, the prompt file, oversize files, empty folders) is
    uncertain and never reused;
  - a request-scoped server (`request_scoped`: PHP's built-in server with opcache off,
    which runs every request in a fresh interpreter, so nothing one request read stays
    in memory for another), when the replay was traced (`_opens.py`: every file and
    folder the server opened or read while the state replayed, with those of states
    replayed at the same time): the same server process (not restarted, rebuilt or
    reinstalled since), every one of those paths
    byte-identical (a file's bytes and mode, a folder's names, or still absent), and no
    path added, removed or renamed anywhere in the tree (a server may test a path's
    existence with `stat`, which opens nothing). A window the trace cannot bound (an
    overflow, a change to the tree during the replays, a tree it cannot watch) falls
    back to the next rule;
  - every other stack (node, vite, any server that lives across requests): the whole
    file index (every path, blob and mtime) is identical. Such a server may keep in
    memory what one request read and serve it to another (a cache one state's request
    refreshes and another's reads; a watcher re-reading a file between checkpoints, which
    no per-checkpoint trace sees), so no per-state set of files bounds what a state
    depends on. For both, no replay of the cell has ever sent a request that could
    change server state.

The server itself is not in the workspace for static stacks; for the others it is, so a
changed server file changes the index and replays everything. Not covered by the trace
(`_opens.py`): a file's metadata read without an open (PHP's `filemtime` of a file no
request of the state opened), and state the server keeps outside the work tree (a file a
PHP script writes under /tmp and another request reads): such states may be reused
wrongly; `--replay full` replays everything.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import msgspec

from ...contract import Contract, Visual
from ...workspace import FileIndex
from .._browser import ReplayMode
from .._core import StateObservation
from .._replay import StateJob
from ._opens import OpenTrace, Reads, Untraceable, fingerprint
from ._rules import (
    Uncertain,
    _timing_dependent,
    index_digest,
    is_static,
    job_signature,
    request_scoped,
    static_view,
)

REPLAY_MODES: tuple[ReplayMode, ...] = ("reuse", "states", "full")
_SAFE_METHODS = frozenset({"GET", "HEAD"})


@dataclass(frozen=True, slots=True)
class _Entry:
    signature: tuple[object, ...]
    observation: StateObservation
    fingerprinted: bool
    # Checks evaluated that may change the page (visual: a screenshot): a later request
    # without them would have evaluated its checks on a different page history.
    mutating: frozenset[str]
    screenshot: Path | None
    # static: (url, view); traced: ("server", id), ("names", digest), (FILE + path, print);
    # other stacks: ("*", digest of the whole tree).
    views: tuple[tuple[str, str], ...]
    checkpoint: int


FILE = "file:"


@dataclass(slots=True)
class ReuseCache:
    """Observations of one cell's replays across its checkpoints (one per job key)."""

    @classmethod
    def for_contract(cls, contract: Contract) -> ReuseCache:
        return cls(static=is_static(contract), traceable=request_scoped(contract))

    def checkpoint(
        self,
        tree: str,
        index: FileIndex,
        number: int,
        *,
        trace: OpenTrace | None = None,
        server: str = "",
    ) -> CheckpointView:
        return CheckpointView(
            cache=self, index=index, tree=tree, number=number, trace=trace, server=server
        )

    static: bool
    traceable: bool = False  # per-state file dependencies bound a replay (`request_scoped`)
    entries: dict[str, _Entry] = field(default_factory=dict)
    # A non-GET request reached a stateful server: nothing of it can be reused again.
    server_touched: str = ""


@dataclass(slots=True)
class CheckpointView:
    """One checkpoint's view of the cache: the work tree as the server sees it now.

    `trace` (dynamic stacks): the files the server opens while each state replays;
    `server`: an id of the serving process, new whenever it was (re)started, rebuilt or
    reinstalled ("" = unknown: never equal)."""

    cache: ReuseCache
    index: FileIndex  # the work tree as the server sees it at this checkpoint
    tree: str
    number: int
    trace: OpenTrace | None = None
    server: str = ""
    digest: str = ""
    fresh: list[tuple[StateJob, StateObservation, Reads | None]] = field(default_factory=list)
    prints: dict[str, str] = field(default_factory=dict)  # path -> `fingerprint` now

    def __post_init__(self) -> None:
        self.digest = "" if self.cache.static else index_digest(self.index)

    def prepare(self) -> None:
        """Fingerprint every file a stored replay depends on (blocking: a worker thread)."""
        if self.trace is None:
            return
        for entry in self.cache.entries.values():
            for key, _ in entry.views:
                if key.startswith(FILE):
                    self._print(key.removeprefix(FILE))

    def _print(self, rel: str) -> str:
        if rel not in self.prints:
            assert self.trace is not None
            try:
                self.prints[rel] = fingerprint(self.trace.root, rel)
            except Untraceable as exc:
                self.prints[rel] = f"untraceable: {exc}"
        return self.prints[rel]

    def _now(self, key: str) -> str:
        if key == "*":
            return self.digest
        if key == "server":
            return self.server or "unknown"
        if key == "names":
            return self.trace.names if self.trace is not None else "untraced"
        if key.startswith(FILE):
            if self.trace is None:
                return "untraced"
            return self.prints.get(key.removeprefix(FILE), "not fingerprinted")
        return static_view(self.index, key)

    def lookup(self, job: StateJob) -> tuple[StateObservation | None, str]:
        """The stored observation to reuse for `job`, or None and why it replays."""
        entry = self.cache.entries.get(job.key)
        if entry is None:
            return None, "no earlier replay to reuse"
        if entry.signature != job_signature(job):
            return None, "the state's replay inputs changed"
        missing = [c.id for c in job.checks if c.id not in entry.observation.outcomes]
        if missing:
            return None, f"check(s) not evaluated before: {', '.join(missing)}"
        wanted = {c.id for c in job.checks}
        dropped = sorted(entry.mutating - wanted)
        if dropped:
            return None, f"visual check(s) evaluated before are not requested now: {dropped}"
        if job.fingerprint and not entry.fingerprinted:
            return None, "needs a content fingerprint not taken before"
        if job.a11y and entry.observation.a11y is None:
            return None, "needs an accessibility snapshot not taken before"
        if job.artifacts is not None and entry.screenshot is None:
            return None, "needs a screenshot not taken before"
        if self.cache.server_touched:
            return None, self.cache.server_touched
        for key, view in entry.views:
            try:
                now = self._now(key)
            except Uncertain as exc:
                return None, str(exc)
            if now != view:
                return None, _changed(key, entry.checkpoint)
        obs = entry.observation
        outcomes = {k: v for k, v in obs.outcomes.items() if k in wanted}
        shot = ""
        if job.artifacts is not None and entry.screenshot is not None:
            shot = f"states/{job.key}.png"
            shutil.copyfile(entry.screenshot, job.artifacts / shot)
        kept = msgspec.structs.replace(
            obs, outcomes=outcomes, screenshot=shot, duration_s=0.0, reused=_why(entry), replayed=""
        )
        return kept, ""

    def record(self, job: StateJob, obs: StateObservation, reads: Reads | None = None) -> None:
        """A fresh replay of this checkpoint (stored by `commit`), with what the trace
        saw the server read while it ran."""
        self.fresh.append((job, obs, reads))

    def dirty(self, tree_after: str) -> str:
        """Why this checkpoint's verdicts could depend on more than its work tree ('' if
        they cannot; `_verdicts.py`): over its fresh replays, as `_store` judges one (a
        reused observation met the same conditions when it was stored)."""
        if tree_after != self.tree:
            return "the work tree moved while the states replayed"
        if self.cache.server_touched:
            return self.cache.server_touched
        for job, obs, _ in self.fresh:
            unsafe = [r for r in obs.requests if r.split(" ", 1)[0] not in _SAFE_METHODS]
            if unsafe:
                return f"state {job.key} sent {unsafe[0]!r}"
            if obs.error or obs.unbounded or _timing_dependent(obs):
                return f"state {job.key} was not replayed cleanly"
        return ""

    def commit(self, tree_after: str) -> None:
        """Store the fresh replays whose dependencies could be bounded; `tree_after` is
        the work tree after them (a tree that moved meanwhile stores nothing). Blocking
        (fingerprints the traced files): run it in a worker thread."""
        for job, obs, reads in self.fresh:
            self._store(job, obs, reads, stable=tree_after == self.tree)
        self.fresh.clear()

    def _store(
        self, job: StateJob, obs: StateObservation, reads: Reads | None, *, stable: bool
    ) -> None:
        unsafe = [r for r in obs.requests if r.split(" ", 1)[0] not in _SAFE_METHODS]
        if unsafe and not self.cache.static:
            self.cache.server_touched = f"an earlier replay sent {unsafe[0]!r} to the server"
        self.cache.entries.pop(job.key, None)
        if unsafe or obs.error or obs.unbounded or not stable:
            return
        if _timing_dependent(obs):
            return
        try:
            views = self._views(obs, reads)
        except Uncertain:
            return
        shot = job.artifacts / obs.screenshot if job.artifacts and obs.screenshot else None
        self.cache.entries[job.key] = _Entry(
            signature=job_signature(job),
            observation=obs,
            fingerprinted=job.fingerprint,
            mutating=frozenset(c.id for c in job.checks if isinstance(c.assert_, Visual)),
            screenshot=shot,
            views=views,
            checkpoint=self.number,
        )

    def _views(self, obs: StateObservation, reads: Reads | None) -> tuple[tuple[str, str], ...]:
        if self.cache.static:
            urls = sorted({r.split(" ", 1)[1] for r in obs.requests})
            return tuple((u, static_view(self.index, u)) for u in urls)
        untraced = self.trace is None or not self.cache.traceable or not self.server
        if untraced or reads is None or reads.uncertain:
            return (("*", self.digest),)
        files = []
        for rel in sorted(reads.paths):
            now = self._print(rel)
            if now.startswith("untraceable"):
                return (("*", self.digest),)
            files.append((FILE + rel, now))
        assert self.trace is not None
        return (("server", self.server), ("names", self.trace.names), *files)


def _changed(key: str, checkpoint: int) -> str:
    if key == "*":
        return "the work tree changed"
    if key == "server":
        return f"the server was restarted, rebuilt or reinstalled since checkpoint {checkpoint}"
    if key == "names":
        return "a path was added, removed or renamed in the work tree"
    if key.startswith(FILE):
        return f"/{key.removeprefix(FILE)} (read by the server for it) changed"
    return f"{urlsplit(key).path} changed"


def _why(entry: _Entry) -> str:
    keys = [k for k, _ in entry.views]
    if keys == ["*"]:
        return f"the work tree is byte-identical to checkpoint {entry.checkpoint}"
    if "server" in keys:
        n = sum(k.startswith(FILE) for k in keys)
        return (
            f"the {n} path(s) the server read for it are byte-identical to checkpoint "
            f"{entry.checkpoint}, in the same server process, no path added or removed"
        )
    return f"every requested URL serves the same bytes as at checkpoint {entry.checkpoint}"
