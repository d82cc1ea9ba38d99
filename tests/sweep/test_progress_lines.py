"""Progress without a terminal: plain lines on stderr, at least every heartbeat."""

from __future__ import annotations

import anyio
import pytest

from orchestrator.budget import Ledger
from orchestrator.sweep import SweepProgress, _progress


def test_live_mode_prints_heartbeat_lines_when_stderr_is_not_a_terminal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(_progress, "HEARTBEAT_S", 0.1)

    async def sweep() -> None:
        async with SweepProgress(total=7, ledger=Ledger(), mode="live"):
            await anyio.sleep(0.55)

    anyio.run(sweep)
    lines = [ln for ln in capsys.readouterr().err.splitlines() if "cells 0/7" in ln]
    # ~5 heartbeats plus the closing line; a live table would print none of these.
    assert len(lines) >= 4, lines
    assert all("ETA ?" in ln for ln in lines)


def test_heartbeat_is_at_most_30_seconds() -> None:
    assert 0 < _progress.HEARTBEAT_S <= 30
