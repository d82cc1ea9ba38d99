"""Hang guards stretch with the machine's slowness (`tests/slowness.py`, issue #52)."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests import slowness

ROOT = Path(__file__).resolve().parents[2]


def _burn() -> None:
    while True:
        pass


def test_contention_sees_other_processes_taking_the_cores() -> None:
    """With two busy processes per core, a loop gets well under a core: wall/CPU > 1.5
    (a `contention` that ignored the wall clock, or read the process's CPU as wall,
    would stay near 1)."""
    burners = [
        multiprocessing.Process(target=_burn, daemon=True) for _ in range(2 * (os.cpu_count() or 1))
    ]
    for p in burners:
        p.start()
    try:
        seen = max(slowness.contention(0.1) for _ in range(3))
    finally:
        for p in burners:
            p.kill()
            p.join()
    assert seen > 1.5, seen


def test_slowness_is_clamped_cached_and_overridable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PWB_SLOWNESS", raising=False)
    monkeypatch.setattr(slowness, "_last", None)
    monkeypatch.setattr(slowness, "contention", lambda: 40.0)
    monkeypatch.setattr(slowness, "queue", lambda: 0.1)
    assert slowness.slowness(now=100.0) == slowness.CAP
    monkeypatch.setattr(slowness, "contention", lambda: 0.5)
    assert slowness.slowness(now=110.0) == slowness.CAP  # measured 10 s ago: kept
    assert slowness.slowness(now=100.0 + slowness.EVERY) == 1.0  # remeasured, floor 1
    monkeypatch.setattr(slowness, "queue", lambda: 2.5)
    assert slowness.slowness(now=200.0) == 2.5
    monkeypatch.setenv("PWB_SLOWNESS", "3")
    assert slowness.slowness(now=300.0) == 3.0
    assert slowness.scaled(600, 3.0) == 1800 and slowness.scaled(0, 3.0) == 0


def _pytest(tmp_path: Path, factor: str) -> subprocess.CompletedProcess[str]:
    test = tmp_path / "test_sleepy.py"
    test.write_text(
        textwrap.dedent(
            """
            import time
            import pytest

            @pytest.mark.timeout(1)
            def test_sleeps_past_its_marked_guard():
                time.sleep(1.5)
            """
        )
    )
    env = {**os.environ, "PWB_SLOWNESS": factor, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "tests.conftest",
            "-p",
            "no:cacheprovider",
            "-c",
            os.devnull,
            "--rootdir",
            str(tmp_path),
            str(test),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )


def test_the_conftest_stretches_a_marked_timeout_by_the_slowness(tmp_path: Path) -> None:
    """A test marked `timeout(1)` sleeping 1.5 s passes at slowness 3 and is cut off at
    slowness 1: the conftest's wrapper really reaches pytest-timeout."""
    slow = _pytest(tmp_path, "3")
    assert slow.returncode == 0, slow.stdout[-2000:]
    assert "slowness now: 3.00" in slow.stdout
    idle = _pytest(tmp_path, "1")
    assert idle.returncode == 1 and "Timeout" in idle.stdout, idle.stdout[-2000:]


def test_a_bound_stretches_with_the_slowness_but_stays_under_the_wrong_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PWB_SLOWNESS", "1")
    assert slowness.bound(2.0, wrong=20.0) == 2.0
    monkeypatch.setenv("PWB_SLOWNESS", "4")
    assert slowness.bound(2.0, wrong=20.0) == 8.0
    assert slowness.bound(6.0, wrong=20.0) == 18.0  # never the time the bug would take
