"""Let the container's non-root user write the host workspace, and keep git happy.

The workspace is created by root on the host; the container runs as a fixed uid. We
chown its contents to that uid (root on the host can still edit them), but leave the
workspace root owned by the host user; it gets the container's group with group-write
so the build can create `dist/` or `node_modules/` in it. After the cell everything is
given back to the host user (`reclaim`). Both walk the tree without following links.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

CONTAINER_UID = 10001  # the `pwb` user of images/<stack>/Dockerfile
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_MAX_DEPTH = 256


def container_user() -> tuple[int, int]:
    """Run as the host user when it is not root (no chown needed), else as `pwb`."""
    uid = os.getuid()
    if uid != 0:
        return uid, os.getgid()
    return CONTAINER_UID, CONTAINER_UID


def grant(workspace: Path, uid: int, gid: int) -> None:
    """Blocking (run in a thread): give `uid` write access to the workspace tree.

    Runs while the container is live, so the tree can change under it: the walk uses
    folder descriptors and changes owners with `fchownat(AT_SYMLINK_NOFOLLOW)`; a folder
    swapped for a link is never entered, a link is never followed.
    """
    if os.getuid() != 0:
        return  # container runs as us already
    st = workspace.stat()
    if st.st_gid != gid:
        os.chown(workspace, st.st_uid, gid)
    os.chmod(workspace, stat.S_IMODE(st.st_mode) | stat.S_IRWXG)
    # Dependency trees are written by the container itself; walking them is slow.
    _chown_tree(workspace, uid, gid, skip=frozenset({"node_modules"}))


def reclaim(workspace: Path) -> None:
    """Blocking (run in a thread, after the container is gone): give every entry of the
    workspace back to the host user, so nothing the sandbox made stays owned by `pwb`."""
    uid, gid = os.getuid(), os.getgid()
    if uid != 0:
        return  # the container ran as us: nothing to give back
    _chown_tree(workspace, uid, gid, skip=frozenset())
    st = os.lstat(workspace)
    if st.st_gid != gid:
        os.lchown(workspace, uid, gid)
    os.chmod(workspace, stat.S_IMODE(st.st_mode) & ~stat.S_IWGRP)


def _chown_tree(workspace: Path, uid: int, gid: int, *, skip: frozenset[str]) -> None:
    fd = os.open(workspace, _DIR_FLAGS)
    try:
        _chown_children(fd, uid, gid, skip, 0)
    finally:
        os.close(fd)


def _chown_children(dfd: int, uid: int, gid: int, skip: frozenset[str], depth: int) -> None:
    with os.scandir(dfd) as it:
        entries = list(it)
    for entry in entries:
        try:
            st = entry.stat(follow_symlinks=False)
            if st.st_uid != uid or st.st_gid != gid:
                os.chown(entry.name, uid, gid, dir_fd=dfd, follow_symlinks=False)
        except FileNotFoundError:
            continue
        if not stat.S_ISDIR(st.st_mode) or entry.name in skip or depth >= _MAX_DEPTH:
            continue
        try:
            sub = os.open(entry.name, _DIR_FLAGS, dir_fd=dfd)
        except OSError:
            continue  # replaced by a link meanwhile: not entered
        try:
            _chown_children(sub, uid, gid, skip, depth + 1)
        finally:
            os.close(sub)
