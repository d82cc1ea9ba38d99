"""Where workspaces live on the host: an opaque folder per workspace, outside the cell.

    <store>/<random id>/tree   the work tree: the only part a sandbox mounts
    <store>/<random id>/git    its repository: never mounted

The sandbox learns its mount's host path (`/proc/self/mountinfo`), so that path names
nothing (no task, no sweep, no cell). The cell directory gets a link `workspace -> tree`
for people reading a run afterwards. The store is `$PWB_WORKSPACES`, else a folder of
this user's in the system temporary directory; it and each home are private (0700).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from ..private_dir import NotPrivate, private_dir
from ._errors import WorkspaceError

TREE = "tree"
GIT = "git"
_PREFIX = "w-"


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
