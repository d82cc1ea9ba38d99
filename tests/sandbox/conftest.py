"""Fixtures for the sandbox conformance suite: one test body, both backends.

Docker cases skip when the daemon is unreachable, but FAIL under CI=true (the shared
`require_docker` fixture of tests/conftest.py). The stack images they need are built
on first use (idempotent, cached by content hash).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from sandbox import (
    Backend,
    DockerBackend,
    ImageBuilder,
    LocalBackend,
    collect_garbage,
    docker_available,
)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # aiodocker is asyncio-bound


@pytest.fixture(scope="session")
def docker_images(require_docker: None) -> None:
    async def build() -> None:
        builder = ImageBuilder()
        for stack in ("static", "node"):
            await builder.ensure_stack(stack, lambda _msg: None)

    anyio.run(build, backend="asyncio")


@pytest.fixture(params=["local", pytest.param("docker", marks=pytest.mark.docker)])
def backend(request: pytest.FixtureRequest) -> Backend:
    if request.param == "docker":
        request.getfixturevalue("docker_images")
        return DockerBackend()
    return LocalBackend()


@pytest.fixture(scope="session")
def sweep_id() -> Iterator[str]:
    """One sweep label for the session, as in a real sweep: its network is made once
    (the first container on a new bridge takes ~3 s). Leftovers are collected at the end.
    """
    sweep = f"test-{uuid.uuid4().hex[:8]}"
    yield sweep
    if anyio.run(docker_available, backend="asyncio"):
        anyio.run(lambda: collect_garbage(sweep=sweep), backend="asyncio")


@pytest.fixture
def cell_id() -> str:
    return f"cell-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def static_ws(tmp_path: Path) -> Path:
    root = tmp_path / "static"
    root.mkdir()
    (root / "index.html").write_text("<h1>hello static</h1>\n")
    return root


@pytest.fixture
def node_ws(tmp_path: Path) -> Path:
    root = tmp_path / "node"
    root.mkdir()
    (root / "server.js").write_text(
        "const http = require('http');\n"
        "http.createServer((req, res) => { res.end('hello node ' + req.url); })\n"
        "  .listen(Number(process.env.PORT), '0.0.0.0');\n"
    )
    return root
