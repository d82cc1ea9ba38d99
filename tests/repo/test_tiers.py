"""The test tiers (tests/conftest.py): each test's tier, and the fast tier's guard."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import aiodocker
import anyio
import pytest
from playwright.async_api import BrowserType

from tests.conftest import tier_of


def _item(marks: tuple[str, ...] = (), fixtures: tuple[str, ...] = ()) -> Any:
    return SimpleNamespace(
        iter_markers=lambda: [SimpleNamespace(name=m) for m in marks], fixturenames=fixtures
    )


def test_each_test_gets_the_tier_its_markers_and_fixtures_say() -> None:
    assert tier_of(_item()) == "fast"
    assert tier_of(_item(("anyio", "parametrize"))) == "fast"
    assert tier_of(_item(("docker",))) == "ci"
    assert tier_of(_item(("browser", "slow"))) == "ci"
    # Through a fixture (a module-scoped pool that requires Chromium), unmarked.
    assert tier_of(_item(fixtures=("pool", "require_chromium"))) == "ci"
    assert tier_of(_item(fixtures=("require_docker",))) == "ci"
    assert tier_of(_item(("docker", "browser", "full"))) == "full"
    assert tier_of(_item(("docker", "dockerd_restart"))) == "full"
    # The admission sample needs Docker and Chromium, yet is neither fast nor ci.
    assert tier_of(_item(("docker", "browser", "admission"))) == "admission"
    assert tier_of(_item(("admission",))) == "admission"
    assert tier_of(_item(("admission", "full"))) == "full"


def test_this_test_is_fast_and_cannot_reach_docker_or_chromium(
    request: pytest.FixtureRequest,
) -> None:
    assert request.node.get_closest_marker("fast") is not None
    with pytest.raises(AssertionError, match="is in the fast tier but opened a Docker client"):
        aiodocker.Docker()
    with pytest.raises(AssertionError, match="is in the fast tier but launched Chromium"):
        # A bare instance, never set up: the guard refuses before launch reads it.
        anyio.run(BrowserType.launch, BrowserType.__new__(BrowserType))
    # A subprocess finds no daemon either.
    assert os.environ["DOCKER_HOST"].startswith("unix:///nonexistent/")
    out = subprocess.run(["docker", "info"], capture_output=True, text=True, timeout=60)
    assert out.returncode != 0


def test_the_admission_sample_is_its_own_tier_and_command() -> None:
    """The README's command (`scripts/test`) runs the ci tier without the admission sample;
    `scripts/test admission` runs the sample alone, and `.ci/run` runs one then the other."""
    from tests.conftest import ROOT

    script = (ROOT / "scripts" / "test").read_text()
    assert "run_tier ci -m ci " in script and "-m admission" in script
    assert script.count('run_admission "$@"') == 2  # alone, and in `full`


@pytest.mark.parametrize(
    ("fails", "status", "ran"),
    [
        ("", 0, ["install", "test", "test admission"]),
        ("test", 1, ["install", "test"]),
        ("test admission", 1, ["install", "test", "test admission"]),
        ("install", 1, ["install"]),
    ],
)
def test_ci_runs_the_command_then_the_sample_and_fails_with_either(
    tmp_path: Path, fails: str, status: int, ran: list[str]
) -> None:
    """`.ci/run` for real, with stand-in scripts: each step runs only after the one before
    it passed, and CI's exit status is the first failure's (a `test && admission` list
    followed by another line once let a failing test tier end CI with 0)."""
    from tests.conftest import ROOT

    (tmp_path / ".ci").mkdir()
    (tmp_path / ".ci" / "run").write_text((ROOT / ".ci" / "run").read_text())
    (tmp_path / "scripts").mkdir()
    for name in ("install", "test"):
        (tmp_path / "scripts" / name).write_text(
            f'step="{name}${{1:+ $1}}"; echo "$step" >> ran.txt\n'
            f'[ "$step" = "{fails}" ] && exit 1\nexit 0\n'
        )
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    done = subprocess.run(["bash", ".ci/run"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == status, done.stdout + done.stderr
    assert (tmp_path / "ran.txt").read_text().splitlines() == ran


def _collected(*args: str) -> list[str]:
    from tests.conftest import ROOT

    cmd = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:xdist", *args]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode in (0, 5), out.stdout + out.stderr  # 5: nothing collected
    return sorted(line.split("::")[-1] for line in out.stdout.splitlines() if "::" in line)


def test_the_sample_is_collected_by_its_tier_only() -> None:
    """Collected for real (one collection, about 5 s): `-m admission` selects the sample
    test and nothing else of its module; a test's tier marker is its only one
    (`tier_of`, above), so the README's `-m ci` does not select it."""
    module = "tests/integration/test_suite_admission.py"
    assert _collected("-m", "admission", module) == ["test_every_task_is_admitted"]
