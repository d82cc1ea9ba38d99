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


def test_the_longest_ci_module_is_collected_first() -> None:
    """`scripts/test` runs the ci tier a file at a time on two workers in collection
    order: the admission sample must exist where `LONGEST_FIRST` says and sort first."""
    from tests.conftest import LONGEST_FIRST, ROOT, pytest_collection_modifyitems

    assert all((ROOT / path).is_file() for path in LONGEST_FIRST)
    names = [
        "tests/a/test_x.py::t",
        f"{LONGEST_FIRST[0]}::t1",
        "tests/b.py::t",
        f"{LONGEST_FIRST[0]}::t2",
    ]
    items = [SimpleNamespace(nodeid=n, get_closest_marker=lambda _: True) for n in names]
    for item in items:  # already marked: only the order changes
        item.iter_markers, item.fixturenames = (lambda: []), ()
    pytest_collection_modifyitems(items)  # type: ignore[arg-type]
    assert [i.nodeid for i in items] == [names[1], names[3], names[0], names[2]]
    script = (ROOT / "scripts" / "test").read_text()
    assert '--dist" "loadfile" "--no-loadscope-reorder' in script
