"""A second SIGINT leaves at once: exit 130, no traceback, even while the first one's
teardown is still running."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.fixtures.bench import ROOT, bench

CLI = (sys.executable, "-m", "orchestrator")


@pytest.mark.browser
def test_second_sigint_exits_at_once_without_a_traceback(
    require_chromium: None, tmp_path: Path
) -> None:
    config = bench(tmp_path, repeats=4, concurrency=2, solver="noop", kind="noop", turns=3)
    run_dir = tmp_path / "run"
    proc = subprocess.Popen(
        [*CLI, "--config", str(config), "--quiet", "--no-report", "--run-dir", str(run_dir)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while not (run_dir / "cells").is_dir() and time.monotonic() < deadline:
        time.sleep(0.1)  # cells are running
    assert proc.poll() is None, proc.communicate()
    os.kill(proc.pid, signal.SIGINT)
    time.sleep(0.3)
    t0 = time.monotonic()
    os.kill(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err[-2000:]
    assert time.monotonic() - t0 < 5
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err[-2000:]
