"""A folder of this user's only, under a shared temporary directory.

Workspaces, a node's staging and a node's package cache live under `/tmp` by default,
where another user may have planted a link or a folder of theirs at the expected name
before us. `private_dir` creates the folder (0700) or accepts it only when it is a real
folder owned by this user, and takes away any access others have.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


class NotPrivate(OSError):
    """The folder is a link, not a folder, or another user's."""


def private_dir(path: Path) -> Path:
    """`path`, created if missing, as a folder only this user can enter."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    st = path.lstat()
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
        raise NotPrivate(f"{path} is not a folder owned by this user")
    if stat.S_IMODE(st.st_mode) & 0o077:
        os.chmod(path, 0o700)
    return path
