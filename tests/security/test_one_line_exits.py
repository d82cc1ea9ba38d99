"""Where a line belongs, never a traceback (#36 item 5): a sweep started while dockerd is
down, a Ctrl-C while a report is written."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import msgspec

from tests.fixtures.bench import ROOT, bench
from tests.report.report_run import make_task, row, scores

CLI = (sys.executable, "-m", "orchestrator")


def test_a_docker_sweep_without_a_daemon_is_refused_with_one_line(tmp_path: Path) -> None:
    config = bench(tmp_path, repeats=1, concurrency=1, backend="docker", solver="noop", kind="noop")
    proc = subprocess.run(
        [*CLI, "--config", str(config), "--quiet", "--no-report", "--run-dir", str(tmp_path / "r")],
        cwd=ROOT,
        env={**os.environ, "DOCKER_HOST": "unix:///nonexistent/docker.sock"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2, proc.stderr[-3000:]
    (line,) = proc.stderr.splitlines()
    assert "Docker daemon does not answer" in line, line
    assert "Traceback" not in proc.stderr and "ExceptionGroup" not in proc.stderr


def test_ctrl_c_while_the_report_is_written_is_one_line(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks"
    hashes = {"t1": make_task(tasks, "t1", "edit")}
    run = tmp_path / "run"
    run.mkdir()
    rows = [row("t1", "a", "staged", i, hashes, scores=scores(1.0, 1.0, 1.0)) for i in range(3)]
    (run / "manifest.jsonl").write_bytes(b"".join(msgspec.json.encode(r) + b"\n" for r in rows))
    proc = subprocess.Popen(
        [*CLI, "report", str(run), "--tasks-dir", str(tasks)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not (run / "report").is_dir() and time.monotonic() < deadline:
        time.sleep(0.01)  # the report has begun writing; its plots take a while
    assert proc.poll() is None, "the report was written before the test could interrupt it"
    os.kill(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err[-3000:]
    assert err.strip() == "interrupted" and "Traceback" not in err
