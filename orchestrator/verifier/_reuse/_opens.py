"""What a served work tree's files were opened for: the dependencies of a replayed state
on a request-scoped server (`_reuse._rules.request_scoped`: PHP's built-in server), where the
script, not a URL rule, decides which files a request reads.

`OpenTrace` watches every directory of the work tree with inotify from the host. The
container's server sees the same inodes through its bind mount, so its opens and reads
(`IN_OPEN`, `IN_ACCESS`) are reported here like any local process's; so are a
directory's listing (an open of the directory) and every change (`IN_MODIFY`,
`IN_CREATE`, `IN_DELETE`, moves, attributes). Events carry no time and no process, so a
*window* (one state's replay, `mark` .. `since`) collects every event read between its
start and its end: the opens of states replayed at the same time fall into each other's
windows (a union: more dependencies, never fewer). Anything the trace cannot bound makes
the window `uncertain` (its state replays next time): a queue overflow, any change to
the tree while it ran, a directory created (it has no watch), a watch removed.

Not seen, by design of inotify: a file's metadata read without opening it (`stat`,
`filemtime`); reads through a mapping; and what the server does outside every window
(a timer re-reading a file between states). `_cache.py` covers the first two for
existence (any file added, removed or renamed anywhere in the tree replays every
state), and says what it relies on.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from inotify_simple import INotify, flags

# A tree with more folders than this (an installed node_modules, say) is not traced:
# the cell falls back to reusing only an identical tree (watches are a shared resource
# of the host, `fs.inotify.max_user_watches`).
MAX_DIRS: Final = 4000
_READS: Final = flags.OPEN | flags.ACCESS
_CHANGES: Final = (
    flags.MODIFY
    | flags.ATTRIB
    | flags.CLOSE_WRITE
    | flags.CREATE
    | flags.DELETE
    | flags.DELETE_SELF
    | flags.MOVED_FROM
    | flags.MOVED_TO
    | flags.MOVE_SELF
)
_MASK: Final = _READS | _CHANGES | flags.ONLYDIR | flags.DONT_FOLLOW
_LOST: Final = flags.Q_OVERFLOW | flags.IGNORED | flags.UNMOUNT


class Untraceable(Exception):
    """The tree cannot be traced (too many folders, a link leaving it, no inotify)."""


@dataclass(frozen=True, slots=True)
class Reads:
    """What one window saw: the paths opened or read (relative to the root; "" is the
    root folder itself), and why it cannot be bounded ("" when it can)."""

    paths: frozenset[str] = frozenset()
    uncertain: str = ""

    def __or__(self, other: Reads) -> Reads:
        return Reads(paths=self.paths | other.paths, uncertain=self.uncertain or other.uncertain)


@dataclass(slots=True)
class _Batch:
    paths: set[str] = field(default_factory=set)
    uncertain: str = ""


@dataclass(slots=True)
class OpenTrace:
    """An inotify watch on every folder of `root`; `names` is a digest of every path in
    the tree when the watch started (what `stat` alone could tell a server)."""

    root: Path
    names: str
    _ino: INotify
    _dirs: dict[int, str]
    _batches: list[_Batch] = field(default_factory=list)

    @classmethod
    def start(cls, root: Path, max_dirs: int = MAX_DIRS) -> OpenTrace:
        """Watch `root` (blocking: run it in a worker thread). `Untraceable` when it cannot."""
        try:
            ino = INotify(nonblocking=True)
        except OSError as exc:
            raise Untraceable(f"no inotify: {exc.strerror}") from exc
        try:
            dirs, names = _watch_tree(ino, root, max_dirs)
        except BaseException:
            ino.close()
            raise
        return cls(root=root, names=names, _ino=ino, _dirs=dirs)

    def close(self) -> None:
        self._ino.close()

    def mark(self) -> int:
        """The start of a window: every event read so far happened before it."""
        self._drain()
        return len(self._batches)

    def since(self, mark: int) -> Reads:
        """Everything read since `mark` (its window's end: events the kernel queued before
        now are all read here)."""
        self._drain()
        out = Reads()
        for batch in self._batches[mark:]:
            out = out | Reads(paths=frozenset(batch.paths), uncertain=batch.uncertain)
        return out

    def _drain(self) -> None:
        batch = _Batch()
        while True:
            events = list(self._ino.read(timeout=0))
            if not events:
                break
            for event in events:
                self._note(batch, int(event.wd), int(event.mask), str(event.name))
        self._batches.append(batch)

    def _note(self, batch: _Batch, wd: int, mask: int, name: str) -> None:
        if mask & _LOST:
            batch.uncertain = batch.uncertain or "the file trace lost events (overflow or watch)"
            return
        folder = self._dirs.get(wd)
        if folder is None:
            batch.uncertain = batch.uncertain or "an event from an unknown watch"
            return
        rel = f"{folder}/{name}" if folder and name else folder or name
        if mask & _CHANGES:
            what = "created" if mask & flags.CREATE else "changed"
            batch.uncertain = batch.uncertain or f"/{rel} was {what} while states replayed"
        elif mask & _READS:
            batch.paths.add(rel)


def _watch_tree(ino: INotify, root: Path, max_dirs: int) -> tuple[dict[int, str], str]:
    dirs: dict[int, str] = {}
    names = hashlib.sha256()

    def unreadable(exc: OSError) -> None:  # a folder not walked would not be watched
        raise Untraceable(f"cannot list a folder: {exc.strerror}") from exc

    for here, subdirs, files in os.walk(root, onerror=unreadable):
        rel = os.path.relpath(here, root)
        rel = "" if rel == "." else rel
        if len(dirs) >= max_dirs:
            raise Untraceable(f"more than {max_dirs} folders")
        try:
            dirs[ino.add_watch(here, _MASK)] = rel
        except OSError as exc:
            raise Untraceable(f"cannot watch /{rel}: {exc.strerror}") from exc
        subdirs.sort()
        for name in sorted(files) + subdirs:
            path = os.path.join(here, name)
            if os.path.islink(path):
                _inside(root, path)
            names.update(f"{rel}/{name}\n".encode("utf-8", "surrogateescape"))
    return dirs, names.hexdigest()


def _inside(root: Path, link: str) -> None:
    """A link is followed by the server to its target, whose folder must be watched."""
    target = Path(os.path.realpath(link))
    if not target.is_relative_to(root.resolve()):
        raise Untraceable(f"/{os.path.relpath(link, root)} links outside the tree")


def fingerprint(root: Path, rel: str) -> str:
    """What a server reading `rel` could see: a file's bytes, a folder's names, or its
    absence. `Untraceable` for anything else (a link, a device...). Blocking."""
    path = root / rel if rel else root
    try:
        st = path.lstat()
    except FileNotFoundError:
        return "absent"
    if path.is_symlink():
        raise Untraceable(f"/{rel} is a link")
    if path.is_dir():
        listing = "\n".join(sorted(os.listdir(path)))
        return "dir " + hashlib.sha256(listing.encode("utf-8", "surrogateescape")).hexdigest()
    if not path.is_file():
        raise Untraceable(f"/{rel} is not a file or folder")
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return f"file {st.st_mode & 0o777:o} {h.hexdigest()}"
