"""A model's slip events in the report's event list: kind and text, at their turn (#42)."""

from __future__ import annotations

import msgspec

from orchestrator import events as ev
from orchestrator.report._cells import _detail, _turn


def test_a_slip_shows_its_kind_text_and_turn() -> None:
    slip = ev.Slip(unit="u1", turn=4, what="unknown_tool", text="open_browser: error: unknown")
    assert _detail(slip) == "unknown_tool: open_browser: error: unknown"
    assert _turn(slip) == 4
    # It survives the event log's JSON round trip as its own kind.
    raw = msgspec.json.encode(slip)
    assert msgspec.json.decode(raw, type=ev.Event) == slip and b'"kind":"slip"' in raw
