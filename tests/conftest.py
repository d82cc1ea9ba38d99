"""Shared test helpers. Docker/Chromium tests skip on a laptop but FAIL under CI=true.

Every test is in exactly one tier (README "Tests"), given here as a marker at collection:

- `full`: marked `full` (or `dockerd_restart`): every agent, dockerd restarts, the
  whole-suite admission, load tests; run by `scripts/test full` only;
- `admission`: marked `admission`: the suite-admission sample, its own command
  (`scripts/test admission`, which CI runs after the README's); it needs Docker and
  Chromium like the ci tier, but its cost follows what a submission changes, so the
  README's command does not pay it;
- `ci`: needs Docker or Chromium (marked `docker`/`browser`, or using the
  `require_docker`/`require_chromium` fixtures, directly or through another fixture);
- `fast`: everything else. A fast test that launches Chromium or talks to a Docker daemon
  fails (`_fast_tier_guard`), so a test cannot drift into the fast tier unmarked.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

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


def tier_of(item: pytest.Item) -> str:
    """The one tier `item` runs in (module docstring)."""
    marks = {m.name for m in item.iter_markers()}
    if marks & {"full", "dockerd_restart"}:
        return "full"
    if "admission" in marks:
        return "admission"
    fixtures = set(getattr(item, "fixturenames", ()))
    if marks & {"docker", "browser"} or fixtures & {"require_docker", "require_chromium"}:
        return "ci"
    return "fast"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        tier = tier_of(item)
        if item.get_closest_marker(tier) is None:
            item.add_marker(getattr(pytest.mark, tier))


class FastTierViolation(AssertionError):
    """A test in the fast tier reached for Chromium or a Docker daemon."""


# The item whose setup, call or teardown is running: a module-scoped fixture that launches
# Chromium does so in the first item's setup, and is charged to that item.
_RUNNING: list[pytest.Item] = []
_NO_DOCKER = "unix:///nonexistent/pwb-fast-tier-has-no-docker.sock"


def _refuse(what: str, marker: str) -> None:
    if _RUNNING and _RUNNING[-1].get_closest_marker("fast") is not None:
        raise FastTierViolation(
            f"{_RUNNING[-1].nodeid} is in the fast tier but {what}: mark it {marker} "
            f"(or use the require_{'chromium' if marker == 'browser' else marker} fixture)"
        )


def pytest_configure(config: pytest.Config) -> None:
    """Guard Chromium's launch and the Docker client for the whole session (`_refuse`);
    plug in the tier ledger when one is named (`tests/ledger.py`)."""
    from playwright.async_api import BrowserType

    from tests.ledger import register

    register(config)

    launch = BrowserType.launch

    async def guarded_launch(self: BrowserType, *args: Any, **kwargs: Any) -> Any:
        _refuse("launched Chromium", "browser")
        return await launch(self, *args, **kwargs)

    BrowserType.launch = guarded_launch  # type: ignore[method-assign]
    import aiodocker

    init = aiodocker.Docker.__init__

    def guarded_init(self: aiodocker.Docker, *args: Any, **kwargs: Any) -> None:
        _refuse("opened a Docker client", "docker")
        init(self, *args, **kwargs)

    aiodocker.Docker.__init__ = guarded_init  # type: ignore[method-assign]


def _stretch_timeout(item: pytest.Item) -> None:
    """The item's hang guard times the machine's slowness now (`tests/slowness.py`): a
    marker closer than any other, read by pytest-timeout's own protocol wrapper, which
    runs inside this one."""
    from tests.slowness import scaled, slowness

    marker = item.get_closest_marker("timeout")
    kwargs = dict(marker.kwargs) if marker else {}
    if marker and marker.args:
        base = float(marker.args[0])
    elif "timeout" in kwargs:
        base = float(kwargs.pop("timeout"))
    else:
        base = float(item.config.getoption("timeout", None) or item.config.getini("timeout") or 0)
    if base > 0:
        item.add_marker(pytest.mark.timeout(scaled(base, slowness()), **kwargs), append=False)


def pytest_report_header() -> str:
    from tests.slowness import slowness

    return f"slowness now: {slowness():.2f} (every test's timeout is stretched by it)"


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    _stretch_timeout(item)
    fast = item.get_closest_marker("fast") is not None
    saved = os.environ.get("DOCKER_HOST")
    if fast:  # subprocesses of a fast test find no Docker daemon either
        os.environ["DOCKER_HOST"] = _NO_DOCKER
    _RUNNING.append(item)
    try:
        yield
    finally:
        _RUNNING.pop()
        if fast:
            if saved is None:
                os.environ.pop("DOCKER_HOST", None)
            else:
                os.environ["DOCKER_HOST"] = saved


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Remove what every sweep id of `tests.sweeps.new_sweep` left, at the session's end
    (after every test and fixture, outside any test's tier guard)."""
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
    return use_hostile_fonts(monkeypatch, tmp_path_factory.mktemp("hostile-fonts"))


def use_hostile_fonts(monkeypatch: pytest.MonkeyPatch, root: Path) -> Path:
    """`hostile_host_fonts` from now on (a test that grades first on the host's fonts)."""
    root.mkdir(parents=True, exist_ok=True)
    conf = root / "fonts.conf"
    conf.write_text(HOSTILE_FONTCONFIG.format(cache=root / "cache"))
    (root / "xdg" / "fontconfig").mkdir(parents=True)
    (root / "xdg" / "fontconfig" / "fonts.conf").write_text(conf.read_text())
    monkeypatch.setenv("FONTCONFIG_FILE", str(conf))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(root / "xdg"))
    return conf
