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


def _admission_containers() -> dict[str, str]:
    """Every running admission container on this host: its id and its sweep label."""
    out = subprocess.run(
        ["docker", "ps", "--filter", "name=pwb-admission", "--format", "{{.ID}} {{.Labels}}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    found = {}
    for line in out.splitlines():
        cid, _, labels = line.partition(" ")
        sweep = [kv.split("=", 1)[1] for kv in labels.split(",") if kv.startswith("pwb.sweep=")]
        found[cid] = sweep[0] if sweep else ""
    return found


@pytest.mark.browser
@pytest.mark.docker
def test_sigterm_to_admit_tears_its_sandboxes_down(
    require_docker: None, require_chromium: None, tmp_path: Path
) -> None:
    """`kill` (SIGTERM) of an `admit` cancels it: exit 130, no traceback, and none of its
    containers left running. Before, it died on the spot and left them to the next `gc`.
    Other admissions on this host (a developer's) are told apart by their sweep label."""
    from tests.fixtures.dockergc import docker_resources
    from tests.fixtures.tinytask import make_tiny_task

    make_tiny_task(tmp_path / "tasks")
    before = set(_admission_containers())
    proc = subprocess.Popen(
        [
            *CLI,
            "admit",
            "tiny-shop",
            "--tasks-dir",
            str(tmp_path / "tasks"),
            "--backend",
            "docker",
            "--repeat",
            "3",
            "--out",
            str(tmp_path / "out"),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    ours: dict[str, str] = {}
    deadline = time.monotonic() + 180
    while not ours and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
        ours = {c: s for c, s in _admission_containers().items() if c not in before}
    assert ours and proc.poll() is None, proc.communicate()
    (sweep,) = set(ours.values())
    assert sweep, ours
    os.kill(proc.pid, signal.SIGTERM)
    _, err = proc.communicate(timeout=90)
    left = docker_resources(sweep)
    if left:  # do not leave them to the next test either
        subprocess.run(
            ["python", "-m", "orchestrator", "gc", "--sweep", sweep, "--force"],
            cwd=ROOT,
            capture_output=True,
            timeout=120,
        )
    assert proc.returncode == 130, err[-2000:]
    assert "Traceback" not in err, err[-2000:]
    assert left == [], left
