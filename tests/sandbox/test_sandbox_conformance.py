"""One conformance suite for every sandbox backend (local processes and Docker)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import anyio
import httpx
import pytest

from sandbox import Backend, Labels, ServeSpec

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]

STATIC = ServeSpec(stack="static", start="exec python3 -m http.server $PORT")
NODE = ServeSpec(stack="node", start="exec node server.js")


def labels(sweep: str, cell: str = "c1") -> Labels:
    return Labels(sweep=sweep, cell=cell)


async def get(url: str) -> httpx.Response:
    async with httpx.AsyncClient(trust_env=False, timeout=5) as client:
        return await client.get(url)


async def test_serves_static_site(backend: Backend, static_ws: Path, sweep_id: str) -> None:
    ws = static_ws
    async with backend.open(ws, STATIC, labels(sweep_id)) as box:
        outcome = await box.serve()
        assert outcome.ready, outcome.detail
        assert "hello static" in (await get(outcome.base_url + "/")).text
        again = await box.serve()  # a restart replaces the server
        assert again.ready, again.detail


async def test_serves_node_site(backend: Backend, node_ws: Path, sweep_id: str) -> None:
    ws = node_ws
    async with backend.open(ws, NODE, labels(sweep_id)) as box:
        outcome = await box.serve()
        assert outcome.ready, outcome.detail
        assert (await get(outcome.base_url + "/x")).text == "hello node /x"


async def test_failing_build_is_data(backend: Backend, static_ws: Path, sweep_id: str) -> None:
    spec = ServeSpec(
        stack="static", install="echo deps ok", build="echo broken >&2; exit 3", start="true"
    )
    async with backend.open(static_ws, spec, labels(sweep_id)) as box:
        assert (await box.install()).ok
        result = await box.build()
        assert not result.ok and result.exit_code == 3 and not result.timed_out
        assert "broken" in result.output_tail


async def test_command_timeout_is_data(backend: Backend, static_ws: Path, sweep_id: str) -> None:
    async with backend.open(static_ws, STATIC, labels(sweep_id)) as box:
        t0 = time.monotonic()
        result = await box.run("echo started; sleep 30", timeout=1)
        assert result.timed_out and not result.ok
        assert "started" in result.output_tail
        assert time.monotonic() - t0 < 10


async def test_never_ready_reports_log_tail(
    backend: Backend, static_ws: Path, sweep_id: str
) -> None:
    spec = ServeSpec(stack="static", start="echo booting-marker; sleep 60", ready_timeout=1.5)
    async with backend.open(static_ws, spec, labels(sweep_id)) as box:
        t0 = time.monotonic()
        outcome = await box.serve()
        assert not outcome.ready
        assert "booting-marker" in outcome.detail
        assert time.monotonic() - t0 < 5


async def test_crashing_server_fails_fast(backend: Backend, static_ws: Path, sweep_id: str) -> None:
    spec = ServeSpec(stack="static", start="echo crash-marker; exit 1", ready_timeout=30)
    async with backend.open(static_ws, spec, labels(sweep_id)) as box:
        outcome = await box.serve()
        assert not outcome.ready and "crash-marker" in outcome.detail
        assert outcome.duration_s < 5


async def test_build_output_lands_in_workspace(
    backend: Backend, static_ws: Path, sweep_id: str
) -> None:
    ws = static_ws
    (ws / ".git").mkdir()
    spec = ServeSpec(stack="static", build="mkdir -p dist && echo built > dist/out.txt", start="")
    async with backend.open(ws, spec, labels(sweep_id)) as box:
        assert (await box.build()).ok
    assert (ws / "dist" / "out.txt").read_text() == "built\n"
    (ws / "dist" / "out.txt").write_text("host can still edit\n")
    # git refuses repositories owned by another user: the root and .git stay ours.
    assert ws.stat().st_uid == os.getuid() and (ws / ".git").stat().st_uid == os.getuid()


async def test_cancellation_tears_down(backend: Backend, static_ws: Path, sweep_id: str) -> None:
    ws = static_ws
    seen: dict[str, str] = {}
    with anyio.move_on_after(60) as scope:
        async with backend.open(ws, STATIC, labels(sweep_id)) as box:
            outcome = await box.serve()
            assert outcome.ready, outcome.detail
            seen["url"] = outcome.base_url
            scope.cancel()
            await anyio.sleep(30)
    assert scope.cancelled_caught
    with pytest.raises(httpx.HTTPError):
        await get(seen["url"] + "/")
