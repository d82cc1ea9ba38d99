"""`verify` on a shipped task whose fingerprint was tampered with: one line, non-zero exit;
with --allow-env-drift the visual gates read not applicable (issue #14)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from orchestrator.verifier import ENV_FILE, read_env

pytestmark = [pytest.mark.browser]
ROOT = Path(__file__).resolve().parents[2]
TASK = ROOT / "tasks" / "bikeshare-faq-content"
CHECKS = ["p_hero_box", "p_stations_visual", "p_stations_order"]


def _verify(task: Path, ws: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "orchestrator", "verify", str(task), "--workspace", str(ws)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [*cmd, "--backend", "local", "--checks", *CHECKS, *extra],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=300,
    )


def test_tampered_fingerprint_fails_verify_with_one_line(
    require_chromium: None, tmp_path: Path
) -> None:
    task = tmp_path / TASK.name
    shutil.copytree(TASK, task)
    shutil.copytree(TASK / "repo", tmp_path / "ws")
    env = read_env(task / "evidence")
    assert env is not None, "the shipped evidence has no env.json: run capture"
    tampered = msgspec.structs.replace(env, fonts="0" * 64)
    (task / "evidence" / ENV_FILE).write_bytes(msgspec.json.encode(tampered))

    stopped = _verify(task, tmp_path / "ws")
    assert stopped.returncode == 2, stopped.stderr
    lines = stopped.stderr.strip().splitlines()
    assert len(lines) == 1, stopped.stderr
    assert "bikeshare-faq-content" in lines[0] and "000000000000 in the evidence" in lines[0]
    assert "--allow-env-drift" in lines[0]
    assert "visual_regression" not in stopped.stdout  # nothing was graded

    graded = _verify(task, tmp_path / "ws", "--allow-env-drift")
    table = {
        line.split()[0]: line.split(None, 2)[1:]
        for line in graded.stdout.splitlines()
        if line and not line.startswith(" ")
    }
    assert table["visual_regression"][0] == "n/a"
    assert table["visual_regression"][1].startswith("environment drift")
    assert table["visual_anchors"][0] == "n/a"
    assert table["regression_text"][0] == "pass"  # the other gates are graded as usual
    assert "environment drift" in graded.stderr
