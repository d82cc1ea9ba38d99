"""Shared test helpers. Docker/Chromium tests skip on a laptop but FAIL under CI=true."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import anyio
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
def _collect_test_sweeps() -> Iterator[None]:
    """Remove what every sweep id of `tests.sweeps.new_sweep` left, at the session's end."""
    yield
    from tests.sweeps import HANDED_OUT

    if HANDED_OUT and docker_ok():
        from sandbox import collect_garbage

        async def collect() -> None:
            for sweep in HANDED_OUT:
                await collect_garbage(sweep=sweep, force=True)

        anyio.run(collect, backend="asyncio")


@pytest.fixture(autouse=True, scope="session")
def _workspace_store(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Workspaces of this test session live (and are cleaned up) with its temp files."""
    os.environ.setdefault("PWB_WORKSPACES", str(tmp_path_factory.mktemp("workspaces")))


# A host font configuration unlike the pinned one: every family the host's fontconfig is
# asked for comes out as DejaVu Serif, and the host's Liberation fonts (v1 if installed,
# the same family names as the pinned v2) are visible. A verifier that leaked the host's
# fontconfig into its browser would render differently under it.
HOSTILE_FONTCONFIG = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig>
  <dir>/usr/share/fonts</dir>
  <cachedir>{cache}</cachedir>
  <match target="pattern">
    <edit name="family" mode="prepend" binding="strong"><string>DejaVu Serif</string></edit>
  </match>
</fontconfig>
"""


@pytest.fixture
def hostile_host_fonts(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """Point this process's fontconfig (file and per-user config) at `HOSTILE_FONTCONFIG`."""
    root = tmp_path_factory.mktemp("hostile-fonts")
    conf = root / "fonts.conf"
    conf.write_text(HOSTILE_FONTCONFIG.format(cache=root / "cache"))
    (root / "xdg" / "fontconfig").mkdir(parents=True)
    (root / "xdg" / "fontconfig" / "fonts.conf").write_text(conf.read_text())
    monkeypatch.setenv("FONTCONFIG_FILE", str(conf))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(root / "xdg"))
    return conf
