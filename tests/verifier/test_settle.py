"""A state settles once, after its load or its last action (`_replay.py`, #51): that one
window still waits for what the page starts a moment after its cause. A request a
handler sends 150 ms after the load or the click, and the text its answer writes, are
seen by the state's checks; with no settle window after the last action (or after the
load of a state without one) they would read "waiting"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from orchestrator.verifier import BrowserPool, verify

from .conftest import check, make_task

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

ROUTE = "/late-fetch.html"
STATES: list[dict[str, Any]] = [
    {"id": "loaded", "route": ROUTE},
    {"id": "clicked", "route": ROUTE, "actions": [{"do": "click", "selector": "#go"}]},
    {
        "id": "twice",
        "route": ROUTE,
        "actions": [
            {"do": "click", "selector": "#go"},
            {"do": "click", "selector": "h1"},
        ],
    },
]
CHECKS = [
    check("load_seen", "text", "loaded", kind="text_equals", selector="#onload", value="done"),
    check(
        "click_seen",
        "interaction",
        "clicked",
        kind="text_equals",
        selector="#onclick",
        value="done",
    ),
    check(
        "first_seen", "interaction", "twice", kind="text_equals", selector="#onclick", value="done"
    ),
]


async def test_the_one_settle_window_waits_for_a_late_request(
    pool: BrowserPool, site_url: str, tmp_path: Path
) -> None:
    report = await verify(pool, make_task(tmp_path, STATES, CHECKS), site_url)
    for cid in ("load_seen", "click_seen", "first_seen"):
        result = report.check(cid)
        assert result is not None and result.passed, result
    network = [g for g in report.gates if g.gate == "network"]
    assert all(g.status != "fail" for g in network), network
