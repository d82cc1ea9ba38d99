"""Every package's public surface is its `__init__`'s `__all__` (STYLE.md, httpx's
`tests/test_exported_members.py`): without duplicates, and every name in it importable
(ruff's RUF022 keeps each literal `__all__` sorted). Names other packages use go here rather than into a private module
(tests/repo/test_layers.py refuses private imports across packages)."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import orchestrator
import sandbox

# The CLI's commands are modules run by name (`python -m orchestrator CMD`), not an API.
NO_PUBLIC_SURFACE = {"orchestrator.commands"}


def packages() -> list[str]:
    found = ["sandbox"]
    for info in pkgutil.iter_modules(orchestrator.__path__):
        if info.ispkg and f"orchestrator.{info.name}" not in NO_PUBLIC_SURFACE:
            found.append(f"orchestrator.{info.name}")
    return found


@pytest.mark.parametrize("name", packages())
def test_all_is_unique_and_importable(name: str) -> None:
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    assert exported is not None, f"{name} has no __all__"
    assert len(set(exported)) == len(exported), name
    missing = [n for n in exported if not hasattr(module, n)]
    assert not missing, missing


def test_the_packages_are_found() -> None:
    assert {"orchestrator.solvers", "orchestrator.sweep", "orchestrator.authoring"} <= set(
        packages()
    )
    assert sandbox.__all__
