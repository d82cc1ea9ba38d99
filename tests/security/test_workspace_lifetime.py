"""A workspace's disk lives as long as its run (#36 item 4): each home records the cell
link that owns it, and `gc` (bare or `--expired`) removes the homes no run links to."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from orchestrator.workspace import Workspace, orphans

ROOT = Path(__file__).resolve().parents[2]
HOUR = 3600.0

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _r0(tmp_path: Path) -> Path:
    r0 = tmp_path / "r0"
    r0.mkdir()
    (r0 / "index.html").write_text("<p>hi</p>\n")
    return r0


def _age(home: Path, seconds: float) -> None:
    t = time.time() - seconds
    os.utime(home, (t, t))


async def test_a_workspace_is_an_orphan_once_its_run_is_gone(tmp_path: Path) -> None:
    store = tmp_path / "store"
    link = tmp_path / "run" / "cells" / "c" / "workspace"
    ws = await Workspace.create(_r0(tmp_path), link, ["*.html"], store=store)
    home = ws.root.parent
    _age(home, HOUR)
    assert orphans(store) == []  # its run links to it
    link.unlink()
    link.symlink_to(tmp_path)  # the cell re-run elsewhere: the link names another tree
    assert orphans(store) == [home]
    link.unlink()
    (tmp_path / "run").rename(tmp_path / "deleted")
    assert orphans(store) == [home]  # the run directory is gone
    _age(home, 60)
    assert orphans(store) == []  # a workspace being made is never taken


async def test_a_home_without_owner_goes_only_once_older_than_a_container_lives(
    tmp_path: Path,
) -> None:
    store = tmp_path / "store"
    ws = await Workspace.create(_r0(tmp_path), tmp_path / "ws", ["*"], store=store)
    home = ws.root.parent
    (home / "owner").unlink()  # made before owners were recorded
    _age(home, HOUR)
    assert orphans(store) == []
    _age(home, 5 * HOUR)
    assert orphans(store) == [home]


async def test_gc_expired_gives_the_disk_of_deleted_runs_back(tmp_path: Path) -> None:
    store = tmp_path / "store"
    r0 = _r0(tmp_path)
    kept = await Workspace.create(r0, tmp_path / "live" / "workspace", ["*"], store=store)
    gone = await Workspace.create(r0, tmp_path / "dead" / "workspace", ["*"], store=store)
    (gone.root / "big.bin").write_bytes(b"x" * (1 << 20))
    for ws in (kept, gone):
        _age(ws.root.parent, HOUR)
    (tmp_path / "dead" / "workspace").unlink()
    (tmp_path / "dead").rmdir()
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "PWB_WORKSPACES": str(store),
        "DOCKER_HOST": "unix:///nonexistent/docker.sock",  # containers: not this test's
    }
    proc = subprocess.run(
        [sys.executable, "-m", "orchestrator", "gc", "--expired"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert f"removed workspace {gone.root.parent}" in proc.stdout, proc.stdout + proc.stderr
    assert not gone.root.parent.exists()
    assert kept.root.is_dir() and (tmp_path / "live" / "workspace").resolve() == kept.root
