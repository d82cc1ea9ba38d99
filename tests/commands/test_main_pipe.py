"""`python -m orchestrator tasks | head -1`: a reader that stops early is not our error.

Without the guard in `orchestrator/__main__.py` the closed pipe ended in a
BrokenPipeError traceback on stderr.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_closed_stdout_ends_quietly() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "orchestrator", "tasks"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()  # as `head -1` does once it has its line
    err = proc.stderr.read().decode()
    proc.wait(timeout=60)
    assert first.strip(), "tasks printed nothing"
    assert "Traceback" not in err and "BrokenPipe" not in err, err
