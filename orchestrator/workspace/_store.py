"""Where workspaces live on the host: an opaque folder per workspace, outside the cell.

    <store>/<random id>/tree   the work tree: the only part a sandbox mounts
    <store>/<random id>/git    its repository: never mounted

The sandbox learns its mount's host path (`/proc/self/mountinfo`), so that path names
nothing (no task, no sweep, no cell). The cell directory gets a link `workspace -> tree`
for people reading a run afterwards. The store is `$PWB_WORKSPACES`, else a folder of
this user's in the system temporary directory; it and each home are private (0700).

A workspace lives as long as its run: each home records the link that owns it
(`<home>/owner`), and a home whose owner link is gone or points elsewhere (the run
directory was deleted, the cell re-run) is an orphan that `gc` removes (`orphans`).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

from ..private_dir import NotPrivate, private_dir
from ._errors import WorkspaceError

TREE = "tree"
GIT = "git"
OWNER = "owner"
_PREFIX = "w-"
# A home younger than this is never an orphan (its owner link is being made); one from
# before owners were recorded is an orphan once older than a container may live.
_SETTLE_S = 600.0
_UNOWNED_S = 4 * 3600.0


def default_store() -> Path:
    env = os.environ.get("PWB_WORKSPACES")
    if env:
        return Path(env)
    return Path(tempfile.gettempdir()) / f"pwb-workspaces-{os.getuid()}"


def _private_store(store: Path) -> Path:
    try:
        return private_dir(store).resolve()
    except NotPrivate as exc:
        raise WorkspaceError(f"workspace store {exc}") from exc


def new_home(store: Path | None) -> Path:
    """A fresh, empty, private folder with an opaque name."""
    return Path(tempfile.mkdtemp(prefix=_PREFIX, dir=_private_store(store or default_store())))


def home_of(link_or_tree: Path) -> Path | None:
    """The home behind a cell's `workspace` link (or a tree path), if it is one of ours."""
    try:
        tree = link_or_tree.resolve(strict=True)
    except OSError:
        return None
    home = tree.parent
    if tree.name != TREE or not home.name.startswith(_PREFIX) or not (home / GIT).is_dir():
        return None
    return home


def discard(dest: Path) -> None:
    """Blocking: remove a workspace by its cell link (link and home), or a plain folder."""
    home = home_of(dest)
    if dest.is_symlink():
        dest.unlink()
    elif dest.is_dir():
        shutil.rmtree(dest, ignore_errors=True)
    if home is not None:
        shutil.rmtree(home, ignore_errors=True)


def discard_under(directory: Path) -> None:
    """Blocking: remove the workspaces a cell directory links to (cell and baseline)."""
    for dest in (directory / "workspace", directory / "baseline" / "workspace"):
        if dest.is_symlink():
            discard(dest)


def record_owner(home: Path, dest: Path) -> None:
    """Blocking: `dest` (the cell's link, made next) owns `home`."""
    (home / OWNER).write_text(str(dest.absolute()), encoding="utf-8")


def _owned(home: Path) -> bool | None:
    """Whether the link named in `home/owner` still points at this home's tree; None
    when no owner was recorded."""
    try:
        owner = Path((home / OWNER).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return None
    try:
        return owner.is_symlink() and owner.resolve(strict=True) == (home / TREE).resolve()
    except OSError:
        return False


def orphans(store: Path | None = None, now: float | None = None) -> list[Path]:
    """Blocking: the homes of `store` no run links to any more."""
    root = store or default_store()
    if not root.is_dir():
        return []
    now = time.time() if now is None else now
    found = []
    for home in sorted(root.glob(f"{_PREFIX}*")):
        try:
            age = now - home.lstat().st_mtime
        except OSError:
            continue
        if home.is_symlink() or not home.is_dir() or age < _SETTLE_S:
            continue
        owned = _owned(home)
        if owned is False or (owned is None and age > _UNOWNED_S):
            found.append(home)
    return found


def discard_orphans(store: Path | None = None, now: float | None = None) -> list[Path]:
    """Blocking: remove every orphan home (`orphans`); return the ones removed."""
    gone = orphans(store, now)
    for home in gone:
        shutil.rmtree(home, ignore_errors=True)
    return gone
