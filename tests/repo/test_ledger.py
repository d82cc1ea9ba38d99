"""`scripts/test full` resumes (tests/ledger.py): what passed at a commit is not run again;
what failed, was skipped or never ran is."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

TESTS = """
import pytest

def test_passes():
    pass

def test_fails():
    assert False

def test_skipped():
    pytest.skip("not here")

@pytest.fixture
def broken_teardown():
    yield
    raise RuntimeError("teardown")

def test_teardown_fails(broken_teardown):
    pass
"""
CONFTEST = """
from tests.ledger import register

def pytest_configure(config):
    register(config)
"""


def _run(tmp: Path, ledger: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PWB_TIER_LEDGER": str(ledger), "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rA", *args, str(tmp)],
        cwd=tmp,
        env=env,
        capture_output=True,
        text=True,
    )


def test_a_rerun_skips_only_what_passed(tmp_path: Path) -> None:
    (tmp_path / "test_x.py").write_text(TESTS)
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    ledger = tmp_path / "cache" / "ci.passed"
    first = _run(tmp_path, ledger)
    assert first.returncode == 1, first.stdout
    assert ledger.read_text().split() == ["test_x.py::test_passes"]
    second = _run(tmp_path, ledger)
    # test_passes is deselected; the failure, the skip and the broken teardown run again.
    assert "1 failed, 1 passed, 1 skipped, 1 deselected, 1 error" in second.stdout, second.stdout
    assert "PASSED test_x.py::test_passes" not in second.stdout
    assert ledger.read_text().split() == ["test_x.py::test_passes"]  # nothing new passed
