"""A cell's workspace: a fresh repository holding only R0, and the file tools a solver gets.

Reads are allowed anywhere inside the work tree (except `.git`); writes only inside
`allowed_paths`. Every tool goes through one resolver (`_paths`): absolute paths, `..`,
`.git` at any depth and links at any component are refused with a `PathRefused` that
says why; the solver is told the message verbatim. File work runs in a worker thread,
never on the event loop, and is capped in size.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypeVar

import anyio
import msgspec

from . import _paths, _walk
from ._errors import DiskLimitExceeded, PatchError, PathRefused, WorkspaceError
from ._git import NO_EXTERNAL, git, git_bytes, git_bytes_now
from ._snapshot import PROMPT_FILE, FileIndex, Snapshotter
from ._store import GIT, TREE, discard, new_home, record_owner

MAX_READ_BYTES = 200_000
MAX_EDIT_BYTES = 2 << 20
_SKIP_COPY = shutil.ignore_patterns(".git", "node_modules", "dist", "__pycache__")
_R0_COMMIT = (
    "tree {tree}\nauthor r0 <r0@pwb.invalid> 946684800 +0000\n"
    "committer r0 <r0@pwb.invalid> 946684800 +0000\n\nR0\n"
)
T = TypeVar("T")


class EditEvent(msgspec.Struct, frozen=True, kw_only=True):
    op: str  # write | edit | delete | patch
    path: str
    applied: bool
    reason: str = ""


async def _io(fn: Callable[[], T], *, abandon: bool = False) -> T:
    """Run blocking file work in a thread; an OS error becomes a message with no host path.

    `abandon`: read-only work (a search with the solver's regex) that a cancelled cell
    need not wait for."""
    try:
        return await anyio.to_thread.run_sync(fn, abandon_on_cancel=abandon)
    except WorkspaceError:
        raise
    except OSError as exc:
        raise WorkspaceError(
            f"file operation failed: {exc.strerror or type(exc).__name__}"
        ) from exc


class Workspace:
    def __init__(
        self,
        root: Path,
        git_dir: Path,
        allowed_paths: Iterable[str],
        listener: Callable[[EditEvent], None] | None = None,
    ) -> None:
        self.root = root
        self.git_dir = git_dir
        self.allowed_paths = tuple(allowed_paths)
        self.listener = listener
        self._snap = Snapshotter(root, git_dir)
        self._r0_tree = ""
        self._config = b""

    async def _git(self, *args: str, work_tree: bool = False, stdin: bytes | None = None) -> str:
        """A git command on this repository, its config first put back as created (a
        third wall behind the unmounted git dir and the command-line switches)."""
        out = await self._git_bytes(*args, work_tree=work_tree, stdin=stdin)
        return out.decode(errors="replace")

    async def _git_bytes(
        self, *args: str, work_tree: bool = False, stdin: bytes | None = None
    ) -> bytes:
        await anyio.to_thread.run_sync(self._ready)
        tree = self.root if work_tree else None
        return await git_bytes(self.git_dir, *args, work_tree=tree, stdin=stdin)

    def _ready(self) -> None:
        """Blocking: the repository is there and its config is as created."""
        if not (self.git_dir / "HEAD").is_file():
            raise WorkspaceError("the workspace repository is missing")
        if self._config:
            self._restore_config()

    def _restore_config(self) -> None:
        path = self.git_dir / "config"
        try:
            if path.read_bytes() == self._config:
                return
        except OSError:
            pass
        path.unlink(missing_ok=True)
        path.write_bytes(self._config)

    # ------------------------------------------------------------ lifecycle
    @classmethod
    async def create(
        cls, r0: Path, dest: Path, allowed_paths: Iterable[str], *, store: Path | None = None
    ) -> Workspace:
        """Copy R0 into a fresh opaque home and commit it; `dest` (which must not exist)
        becomes a link to the work tree. The repository sits beside the tree, unmounted."""
        if dest.exists() or dest.is_symlink():
            raise WorkspaceError(f"workspace {dest} already exists")

        def make() -> Path:
            home = new_home(store)
            shutil.copytree(r0, home / TREE, ignore=_SKIP_COPY, symlinks=True)
            (home / GIT).mkdir(mode=0o700)
            record_owner(home, dest)
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.symlink_to(home / TREE, target_is_directory=True)
            return home

        home = await anyio.to_thread.run_sync(make)
        ws = cls(root=home / TREE, git_dir=home / GIT, allowed_paths=allowed_paths)
        await git(ws.git_dir, "init", "-q", "--bare", "-b", "main")
        ws._config = await anyio.to_thread.run_sync((ws.git_dir / "config").read_bytes)
        ws._r0_tree = await ws.tree_id()
        commit = _R0_COMMIT.format(tree=ws._r0_tree).encode()
        oid = await anyio.to_thread.run_sync(ws._snap.write_object, "commit", commit)
        await ws._git("update-ref", "refs/heads/main", oid.hex())
        return ws

    @classmethod
    def attach(cls, tree: Path, allowed_paths: Iterable[str]) -> Workspace | None:
        """An existing harness workspace by its tree (or cell link); None if it is not one."""
        root = tree.resolve()
        git_dir = root.parent / GIT
        if root.name != TREE or not (git_dir / "HEAD").is_file():
            return None
        return cls(root=root, git_dir=git_dir, allowed_paths=allowed_paths)

    async def discard(self) -> None:
        """Remove the whole workspace (tree and repository)."""
        await anyio.to_thread.run_sync(discard, self.root)

    # ------------------------------------------------------------ path policy
    def _check_write(self, path: str) -> str:
        rel = "/".join(_paths.split(path))
        if not rel:
            raise PathRefused(f"refused {path!r}: not a file path")
        if not _paths.path_allowed(rel, self.allowed_paths):
            raise PathRefused(
                f"refused {path!r}: outside allowed paths ({', '.join(self.allowed_paths)})"
            )
        return rel

    def _emit(self, event: EditEvent) -> None:
        if self.listener is not None:
            self.listener(event)

    async def _change(self, op: str, path: str, fn: Callable[[], None]) -> None:
        try:
            rel = self._check_write(path)
            await _io(fn)
        except WorkspaceError as exc:
            self._emit(EditEvent(op=op, path=path, applied=False, reason=str(exc)))
            raise
        self._emit(EditEvent(op=op, path=rel, applied=True))

    # ------------------------------------------------------------ solver tools
    async def list_files(self, under: str = "") -> list[str]:
        return await _io(lambda: _walk.list_files(self.root, under))

    async def read_file(self, path: str) -> str:
        data = await _io(lambda: _paths.read_file(self.root, path, MAX_READ_BYTES))
        return data.decode("utf-8", errors="replace")

    async def search(
        self, pattern: str, under: str = "", max_hits: int = 200
    ) -> list[_walk.SearchHit]:
        try:
            rx = re.compile(pattern)
        except re.error as exc:
            raise WorkspaceError(f"invalid search pattern {pattern!r}: {exc}") from exc
        return await _io(lambda: _walk.search(self.root, rx, under, max_hits), abandon=True)

    async def write_file(self, path: str, content: str) -> None:
        data = content.encode("utf-8")
        await self._change("write", path, lambda: _paths.write_file(self.root, path, data))

    async def edit(self, path: str, search: str, replace: str) -> None:
        """Replace the one exact occurrence of `search`; missing or ambiguous is an error."""
        await self._change(
            "edit",
            path,
            lambda: _paths.edit_file(self.root, path, search, replace, MAX_EDIT_BYTES),
        )

    async def delete_file(self, path: str) -> None:
        """Delete one file (not a folder); a missing file is an error. A link is removed
        itself, never its target."""
        await self._change("delete", path, lambda: _paths.delete_file(self.root, path))

    # ------------------------------------------------------------ harness side
    async def write_prompt(self, text: str) -> str:
        """Harness-side: put the scaffold's prompt file in the tree. Whatever the sandbox
        left at that name (a link, a folder) is removed first, never followed."""
        data = text.encode("utf-8")
        await _io(lambda: _paths.replace_file(self.root, PROMPT_FILE, data))
        return PROMPT_FILE

    async def remove_prompt(self) -> None:
        try:
            await _io(lambda: _paths.delete_file(self.root, PROMPT_FILE))
        except WorkspaceError:
            pass  # the agent removed it already

    async def disk_usage(self, stop_above: int = 1 << 62) -> int:
        return await _io(lambda: _walk.disk_usage(self.root, stop_above))

    async def check_disk(self, limit: int) -> None:
        """Raise `DiskLimitExceeded` when the work tree uses more than `limit` bytes."""
        used = await self.disk_usage(limit)
        if used > limit:
            raise DiskLimitExceeded(used, limit)

    async def apply_patch(self, patch: Path) -> None:
        """Apply a unified diff (harness-side: reference, negatives); clear error if it fails."""
        data = await anyio.to_thread.run_sync(patch.read_bytes)
        await self.apply_bytes(data, patch.name)

    async def apply_bytes(self, data: bytes, name: str) -> None:
        """Apply a patch given as bytes (`name` says where it came from in messages).
        git refuses paths outside the tree and writes beyond a link by default."""
        try:
            await self._git("apply", "--whitespace=nowarn", "-", work_tree=True, stdin=data)
        except WorkspaceError as exc:
            why = str(exc).removeprefix("git apply failed: ")
            self._emit(EditEvent(op="patch", path=name, applied=False, reason=why))
            raise PatchError(f"{name}: does not apply: {why}") from exc
        self._emit(EditEvent(op="patch", path=name, applied=True))

    async def patch_between(self, before: str, after: str) -> bytes:
        """The patch from snapshot tree `before` to `after` (both ids from `tree_id`), as
        `git apply` takes it back; empty when they are the same tree."""
        if before == after:
            return b""
        return await self._git_bytes(
            "diff-tree", "-r", "-p", "--binary", "--no-renames", *NO_EXTERNAL, before, after
        )

    @property
    def r0_tree(self) -> str:
        return self._r0_tree

    async def reset_to_r0(self) -> None:
        """Harness-side: discard every change (offline `thrash` solver)."""
        await self._git("reset", "-q", "--hard", "HEAD", work_tree=True)
        await self._git(
            "clean", "-qffdx", "-e", "node_modules", "-e", "dist", "-e", PROMPT_FILE, work_tree=True
        )

    async def restore(self, tree: str) -> None:
        """Harness-side, at the end of a cell: make the work tree snapshot `tree` again,
        removing every file it does not hold (excluded folders and the prompt too): what
        a disk flood wrote is given back to the host."""
        await self._git("read-tree", tree, work_tree=True)
        await self._git("checkout-index", "-a", "-f", work_tree=True)
        await self._git("clean", "-qffdx", work_tree=True)

    async def tree_id(self) -> str:
        """A content id of the whole working tree: equal ids mean no file changed."""
        return await anyio.to_thread.run_sync(self._tree_now)

    def _tree_now(self) -> str:
        """Blocking `tree_id`."""
        try:
            return self._snap.tree()
        except OSError as exc:
            raise WorkspaceError(f"cannot read the work tree: {exc.strerror}") from exc

    async def file_index(self) -> tuple[str, FileIndex]:
        """The tree id and, from the same walk, every path's kind, blob id and mtime second
        (see `_snapshot.FileIndex`); what replay reuse compares between checkpoints."""
        try:
            return await anyio.to_thread.run_sync(self._snap.indexed)
        except OSError as exc:
            raise WorkspaceError(f"cannot read the work tree: {exc.strerror}") from exc

    async def changed_paths(self) -> list[str]:
        """Paths added, changed or deleted since R0 (excluded files never count)."""
        tree = await self.tree_id()
        if tree == self._r0_tree:
            return []
        out = await self._git("diff-tree", "-r", "-z", "--name-only", "--no-renames", "HEAD", tree)
        return [p for p in out.split("\0") if p]

    async def scope_violations(self) -> tuple[str, ...]:
        """Changed paths outside `allowed_paths` (e.g. written by a scaffold agent directly)."""
        return tuple(
            p for p in await self.changed_paths() if not _paths.path_allowed(p, self.allowed_paths)
        )

    async def diff(self) -> str:
        return (await self.patch()).decode(errors="replace")

    async def patch(self) -> bytes:
        """The work tree against R0 as a patch `git apply` takes back (binary files
        included, any encoding kept)."""
        return await anyio.to_thread.run_sync(self.patch_now)

    def patch_now(self) -> bytes:
        """Blocking `patch` (for a worker thread that has more to do): the walk and the
        one git command, the repository checked first."""
        self._ready()
        return git_bytes_now(self.git_dir, *_patch_args(self._tree_now()))


def _patch_args(tree: str) -> tuple[str, ...]:
    return ("diff-tree", "-r", "-p", "--binary", "--no-renames", *NO_EXTERNAL, "HEAD", tree)
