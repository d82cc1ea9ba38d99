"""Sweep ids for tests that open Docker sandboxes outside a sweep.

Each is unique (`<prefix>-<8 hex>`), so two test runs at once never share, or remove,
each other's network; every id handed out is collected (containers and network,
`--force`) when the test session ends (`tests/conftest.py`).
"""

from __future__ import annotations

from sandbox import unique_sweep

HANDED_OUT: list[str] = []


def new_sweep(prefix: str) -> str:
    sweep = unique_sweep(prefix)
    HANDED_OUT.append(sweep)
    return sweep
