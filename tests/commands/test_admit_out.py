"""`admit --out` never writes over an earlier admission (nothing is lost)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from orchestrator.commands.admit import _out_dir

ROOT = Path(__file__).resolve().parents[2]


def test_admit_refuses_an_out_dir_in_use(tmp_path: Path) -> None:
    earlier = tmp_path / "adm" / "admission.json"
    earlier.parent.mkdir()
    earlier.write_text("[] earlier run\n")
    cmd = [
        sys.executable,
        "-m",
        "orchestrator",
        "admit",
        "no-such-task",
        "--out",
        str(earlier.parent),
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"--out {earlier.parent}:"), proc.stderr
    assert earlier.read_text() == "[] earlier run\n"


def test_out_dir_accepts_new_or_empty_and_defaults_to_a_fresh_one(tmp_path: Path) -> None:
    assert _out_dir(tmp_path / "new") == tmp_path / "new"
    (tmp_path / "empty").mkdir()
    assert _out_dir(tmp_path / "empty") == tmp_path / "empty"
    default = _out_dir(None)
    assert default.parent == Path("runs/admission") and default.name.endswith("Z")
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="--out"):
        _out_dir(tmp_path / "file")


def test_a_negative_browser_context_count_is_one_line_and_exit_2(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "orchestrator", "admit", "fernhill-save-tools"]
    cmd += ["--out", str(tmp_path / "adm"), "--browser-contexts", "-1"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "--browser-contexts -1: expected >= 0 (0: by CPU headroom)"
    ], proc.stderr
    assert not (tmp_path / "adm").exists() or not any((tmp_path / "adm").iterdir())
