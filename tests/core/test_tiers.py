"""The test tiers (tests/conftest.py): each test's tier, and the fast tier's guard."""

from __future__ import annotations

import os
import subprocess
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


def test_this_test_is_fast_and_cannot_reach_docker_or_chromium(
    request: pytest.FixtureRequest,
) -> None:
    assert request.node.get_closest_marker("fast") is not None
    with pytest.raises(AssertionError, match="is in the fast tier but opened a Docker client"):
        aiodocker.Docker()
    with pytest.raises(AssertionError, match="is in the fast tier but launched Chromium"):
        anyio.run(BrowserType.launch, object())
    # A subprocess finds no daemon either.
    assert os.environ["DOCKER_HOST"].startswith("unix:///nonexistent/")
    out = subprocess.run(["docker", "info"], capture_output=True, text=True, timeout=60)
    assert out.returncode != 0
