"""Shared test helpers. Docker/Chromium tests skip on a laptop but FAIL under CI=true."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")


def _missing(what: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"{what} is required under CI=true")
    pytest.skip(f"{what} not available")


def docker_ok() -> bool:
    if not shutil.which("docker"):
        return False
    return subprocess.run(["docker", "info"], capture_output=True).returncode == 0


@pytest.fixture(scope="session")
def require_docker() -> None:
    if not docker_ok():
        _missing("a Docker daemon")


@pytest.fixture(scope="session")
def require_chromium() -> None:
    if not CHROMIUM.exists():
        _missing("Chromium at /usr/bin/chromium")


@pytest.fixture(autouse=True, scope="session")
def _workspace_store(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Workspaces of this test session live (and are cleaned up) with its temp files."""
    os.environ.setdefault("PWB_WORKSPACES", str(tmp_path_factory.mktemp("workspaces")))
