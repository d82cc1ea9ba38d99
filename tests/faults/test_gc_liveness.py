"""`gc` removes only what dead sweeps left: a resource whose sweep holds its run lock is
live and kept (unless --force); two run directories with the same name never collide."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from orchestrator.records import Manifest
from sandbox import Labels, _gc
from sandbox._gc import _wanted, lock_held

NOW = time.time()
LATER = str(int(NOW + 3600))


def test_lock_held_follows_the_run_lock(tmp_path: Path) -> None:
    with Manifest(tmp_path / "run", sweep_id="run-1a2b3c4d") as m:
        assert lock_held(str(m.lock_path))
        assert (tmp_path / "run" / ".lock").read_text().startswith("run-1a2b3c4d ")
    assert not lock_held(str(tmp_path / "run" / ".lock"))  # the sweep ended (or was killed)
    assert not lock_held(str(tmp_path / "gone" / ".lock"))  # run directory deleted


def test_a_killed_holder_releases_the_lock(tmp_path: Path) -> None:
    path = tmp_path / ".lock"
    path.touch()
    hold = (
        "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDWR); "
        "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); time.sleep(60)"
    )
    proc = subprocess.Popen([sys.executable, "-c", hold, str(path)], stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == b"held\n"
        assert lock_held(str(path))
    finally:
        proc.kill()  # kill -9: no unlock, the kernel releases it
        proc.wait()
    assert not lock_held(str(path))


@pytest.mark.parametrize(
    ("alive", "named", "expired_only", "force", "expected"),
    [
        (True, False, False, False, False),  # bare gc: a live sweep's container is kept
        (True, True, False, False, False),  # even when its sweep is named
        (True, True, False, True, True),  # --force removes it
        (False, False, False, False, True),  # a dead sweep's leftovers go
        (False, False, True, False, False),  # ...but --expired keeps what has time left
    ],
)
def test_wanted_by_liveness(
    tmp_path: Path, alive: bool, named: bool, expired_only: bool, force: bool, expected: bool
) -> None:
    with Manifest(tmp_path / "run") as m:
        if not alive:
            other = tmp_path / "dead" / ".lock"
            other.parent.mkdir()
            other.touch()
        lock = str(m.lock_path) if alive else str(tmp_path / "dead" / ".lock")
        labels = Labels(sweep="s-1", cell="c", lock=lock).as_dict(NOW + 3600)
        got = _wanted(labels, named=named, expired_only=expired_only, force=force, now=NOW)
        assert got is expected


def test_unlocked_resources_of_other_tools_are_kept_until_they_expire() -> None:
    """`cell`, `verify` and tests label without a lock: bare gc keeps them while fresh."""
    fresh = {"pwb.sweep": "adhoc", "pwb.cell": "c", "pwb.expires": LATER}
    old = {**fresh, "pwb.expires": str(int(NOW - 1))}
    kw = {"expired_only": False, "force": False, "now": NOW}
    assert not _wanted(fresh, named=False, **kw)  # type: ignore[arg-type]
    assert _wanted(old, named=False, **kw)  # type: ignore[arg-type]
    assert _wanted(fresh, named=True, **kw)  # type: ignore[arg-type]


def test_stale_adhoc_locks_are_dropped_but_live_or_fresh_ones_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A killed ad-hoc run leaves its lock file; `gc` removes it once old and unheld, and
    never a held one or one just created (its run may be about to take it)."""
    monkeypatch.setattr(_gc, "_lock_dir", lambda: tmp_path)
    now = time.time()
    old = now - 2 * 3600
    dead, held, fresh = (tmp_path / f"{n}.lock" for n in ("dead", "held", "fresh"))
    for p in (dead, held, fresh):
        p.touch()
    for p in (dead, held):
        os.utime(p, (old, old))
    fd = os.open(held, os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        _gc._drop_stale_locks(now)
    finally:
        os.close(fd)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fresh.lock", "held.lock"]


def test_a_resume_takes_its_runs_earlier_processes_for_dead(tmp_path: Path) -> None:
    """#36: the resume holds the run lock the killed process's resources carry; its own
    sweep id tells them apart (and nothing else's: another run's, or an unlocked one)."""
    with Manifest(tmp_path / "run", sweep_id="run-22222222") as m:
        own = _gc.Own(sweep="run-22222222", lock=str(m.lock_path))
        kw = {"named": False, "expired_only": False, "force": False, "now": NOW, "own": own}
        killed = Labels(sweep="run-11111111", cell="c", lock=str(m.lock_path)).as_dict(NOW + 60)
        mine = Labels(sweep="run-22222222", cell="c", lock=str(m.lock_path)).as_dict(NOW + 60)
        unlocked = Labels(sweep="run-11111111", cell="c").as_dict(NOW + 60)
        assert _wanted(killed, **kw)  # type: ignore[arg-type]
        assert not _wanted(mine, **kw)  # type: ignore[arg-type]
        assert not _wanted(unlocked, **kw)  # type: ignore[arg-type]
        assert not _wanted(unlocked, **{**kw, "own": _gc.Own(sweep="x", lock="")})  # type: ignore[arg-type]
        assert not _wanted(killed, **{**kw, "own": None})  # type: ignore[arg-type]  # the bug
