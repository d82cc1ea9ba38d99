"""The files of attempts cancelled on a worker node (Ctrl-C) come back when the node's
session closes (#22): the driver writes only cells it cancelled, through the checked
delivery. The node is the far side here (a fake host answering `close`)."""

from __future__ import annotations

import io
import os
import tarfile
from pathlib import Path
from typing import Any

import pytest

from orchestrator.config import BenchConfig
from orchestrator.events import Start, read_events
from orchestrator.sweep import SweepIds, take_cell

if os.environ.get("CI") != "true":
    pytest.importorskip("ray")
from orchestrator.sweep._ray import RayEngine, _Node

CANCELLED = "tiny-shop/noop/staged/0"
OTHER = "tiny-shop/noop/staged/1"  # ran to the end (or never ran) on the driver's side


class _Close:
    def __init__(self, leftovers: dict[str, bytes]) -> None:
        self.leftovers = leftovers
        self.sessions: list[str] = []

    def remote(self, session: str) -> Any:
        async def answer() -> dict[str, bytes]:
            self.sessions.append(session)
            return self.leftovers

        return answer()


class _Host:
    def __init__(self, leftovers: dict[str, bytes]) -> None:
        self.close = _Close(leftovers)


def _staged(root: Path, key: str) -> bytes:
    cell = root / "cells" / key.replace("/", "__")
    cell.mkdir(parents=True)
    (cell / "events.jsonl").write_text(f'{{"kind": "start", "text": "{key} attempt 1"}}\n')
    (cell / "workspace.patch").write_text("")
    return take_cell(root, key)


def _engine(run_dir: Path) -> RayEngine:
    return RayEngine(
        cfg=BenchConfig(solvers=()),
        run_dir=run_dir,
        ids=SweepIds(sweep="s-1"),
        tasks=[],
        ledger_actor=None,
        version="v",
        packages={},
    )


def _hostile(key: str) -> bytes:
    """A tar for cell `key` holding a member outside its cell directory."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        info = tarfile.TarInfo("manifest.jsonl")
        info.size = 3
        tar.addfile(info, io.BytesIO(b"bad"))
    return buf.getvalue()


@pytest.mark.anyio
async def test_only_the_cells_the_driver_cancelled_are_delivered(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    leftovers = {CANCELLED: _staged(tmp_path / "node", CANCELLED)}
    leftovers[OTHER] = _staged(tmp_path / "node", OTHER)
    engine = _engine(run_dir)
    engine.cancelled.add(CANCELLED)
    host = _Host(leftovers)
    await engine._close(_Node(node_id="n" * 56, actor=host, slots=1))
    assert host.close.sessions == ["s-1"]
    got = run_dir / "cells" / CANCELLED.replace("/", "__")
    events = read_events(got / "events.jsonl")
    assert [type(e) for e in events] == [Start] and (got / "workspace.patch").is_file()
    # a cell the driver did not cancel: its row's files are not the node's to replace
    assert not (run_dir / "cells" / OTHER.replace("/", "__")).exists()


@pytest.mark.anyio
async def test_a_cancelled_cells_hostile_leftovers_write_nothing(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    engine = _engine(run_dir)
    engine.cancelled.add(CANCELLED)
    await engine._close(
        _Node(node_id="n" * 56, actor=_Host({CANCELLED: _hostile(CANCELLED)}), slots=1)
    )
    assert list(run_dir.iterdir()) == []
