"""Let the container's non-root user write the host workspace, and keep git happy.

The workspace is created by root on the host; the container runs as a fixed uid. We
chown its contents to that uid (root on the host can still edit them), but leave the
workspace root and `.git` owned by the host user: git refuses repositories whose
directories another user owns ("dubious ownership"). The root gets the container's
group with group-write so the build can create `dist/` or `node_modules/` in it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

CONTAINER_UID = 10001  # the `pwb` user of images/<stack>/Dockerfile


def container_user() -> tuple[int, int]:
    """Run as the host user when it is not root (no chown needed), else as `pwb`."""
    uid = os.getuid()
    if uid != 0:
        return uid, os.getgid()
    return CONTAINER_UID, CONTAINER_UID


def grant(workspace: Path, uid: int, gid: int) -> None:
    """Blocking (run in a thread): give `uid` write access to the workspace tree."""
    if os.getuid() != 0:
        return  # container runs as us already
    st = workspace.stat()
    if st.st_gid != gid:
        os.chown(workspace, st.st_uid, gid)
    os.chmod(workspace, stat.S_IMODE(st.st_mode) | stat.S_IRWXG)
    for root, dirs, files in os.walk(workspace):
        if Path(root) == workspace and ".git" in dirs:
            dirs.remove(".git")
        for name in (*dirs, *files):
            path = os.path.join(root, name)
            lst = os.lstat(path)
            if lst.st_uid != uid or lst.st_gid != gid:
                os.lchown(path, uid, gid)
        # Dependency trees are written by the container itself; walking them is slow.
        if "node_modules" in dirs:
            dirs.remove("node_modules")


def reclaim(workspace: Path) -> None:
    """Blocking (run in a thread, after the container is gone): give every entry of the
    workspace back to the host user, so nothing the sandbox made stays owned by `pwb`.
    Links are changed themselves (`lchown`), never followed."""
    uid, gid = os.getuid(), os.getgid()
    if uid != 0:
        return  # the container ran as us: nothing to give back
    for root, dirs, files in os.walk(workspace):
        for name in (*dirs, *files):
            path = os.path.join(root, name)
            try:
                lst = os.lstat(path)
                if lst.st_uid != uid or lst.st_gid != gid:
                    os.lchown(path, uid, gid)
            except FileNotFoundError:
                continue
    st = os.lstat(workspace)
    if st.st_gid != gid:
        os.lchown(workspace, uid, gid)
    os.chmod(workspace, stat.S_IMODE(st.st_mode) & ~stat.S_IWGRP)
