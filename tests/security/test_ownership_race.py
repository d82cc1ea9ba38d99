"""Giving the workspace to the container's user (while the container runs) and back
(after it) never follows a link the container planted or swaps in mid-walk.

Only meaningful as root (as a user the harness changes no owner): skipped otherwise.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from sandbox._ownership import CONTAINER_UID, grant, reclaim

pytestmark = pytest.mark.skipif(os.getuid() != 0, reason="ownership changes need root")


def test_grant_and_reclaim_never_follow_links(tmp_path: Path) -> None:
    host = tmp_path / "host"
    host.mkdir()
    victim = host / "shadow"
    victim.write_text("root only\n")
    ws = tmp_path / "ws"
    (ws / "css").mkdir(parents=True)
    for i in range(50):
        (ws / "css" / f"f{i}.css").write_text("x")
    (ws / "link").symlink_to(victim)
    (ws / "dirlink").symlink_to(host, target_is_directory=True)
    stop = threading.Event()

    def flip() -> None:  # the container swapping a folder for a link, as fast as it can
        css, spare = ws / "css", ws / "css-real"
        while not stop.is_set():
            try:
                css.rename(spare)
                css.symlink_to(host, target_is_directory=True)
                css.unlink()
                spare.rename(css)
            except OSError:
                pass

    thread = threading.Thread(target=flip)
    thread.start()
    try:
        for _ in range(200):
            grant(ws, CONTAINER_UID, CONTAINER_UID)
    finally:
        stop.set()
        thread.join()
    assert (ws / "css" / "f1.css").stat().st_uid == CONTAINER_UID
    assert os.lstat(ws / "link").st_uid == CONTAINER_UID  # the link itself
    for p in (host, victim):
        assert (p.stat().st_uid, p.stat().st_gid) == (0, 0), p
    reclaim(ws)
    assert (ws / "css" / "f1.css").stat().st_uid == 0
    assert (victim.stat().st_uid, host.stat().st_uid) == (0, 0)
