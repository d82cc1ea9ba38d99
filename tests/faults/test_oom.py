"""An OOM-killed server reads as that, with its log kept (real Docker, #16).

The server allocates past the sandbox's memory limit; the memory cgroup's OOM killer
kills it. The serve outcome must name the OOM kill and keep what the server printed,
not read "server not ready (timeout)" with an empty log. A server that simply exits is
not called OOM-killed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbox import DockerBackend, ImageBuilder, Limits, ServeSpec, adhoc_sweep

pytestmark = [pytest.mark.anyio, pytest.mark.docker]

GREEDY = (
    "echo starting; python3 -c \"import time; print('allocating', flush=True); "
    "x = bytearray(512 * 1024 * 1024); print('allocated', flush=True); time.sleep(60)\""
)
QUITTER = "echo starting; echo 'config missing' >&2; exit 3"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _serve(tmp: Path, start: str) -> str:
    await ImageBuilder().ensure_stack("static", lambda _line: None)
    ws = tmp / "ws"
    ws.mkdir()
    (ws / "index.html").write_text("<p>hi</p>")
    spec = ServeSpec(stack="static", start=start, ready_path="/", ready_timeout=30)
    async with (
        adhoc_sweep("pytest-oom") as sweep,
        DockerBackend().open(ws, spec, sweep.labels("oom"), Limits(memory_mb=128)) as box,
    ):
        outcome = await box.serve()
    assert not outcome.ready
    return outcome.detail


async def test_a_server_past_the_memory_limit_reads_oom_killed_with_its_log(
    require_docker: None, tmp_path: Path
) -> None:
    detail = await _serve(tmp_path, GREEDY)
    assert "OOM-killed" in detail and "memory limit of 128 MB" in detail, detail
    assert "timeout" not in detail
    assert "starting" in detail and "allocating" in detail  # the server's log is kept
    assert "allocated" not in detail


async def test_a_server_that_exits_is_not_called_oom_killed(
    require_docker: None, tmp_path: Path
) -> None:
    detail = await _serve(tmp_path, QUITTER)
    assert "exited" in detail and "OOM" not in detail, detail
    assert "config missing" in detail
