"""Isolation is never dropped silently, and the unisolated backend leaks no secrets.

- `backend = "auto"`: Docker when it answers; Docker installed or configured but down
  is an error; no Docker at all runs locally only when explicitly allowed.
- The local backend hands solver, agent and server processes a minimal environment
  plus what is passed by name: never the harness's API keys.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from sandbox import BackendUnavailable, Labels, LocalBackend, ServeSpec, open_backend

pytestmark = pytest.mark.anyio

SECRET = "sk-test-never-in-a-sandbox"


@pytest.fixture
def no_docker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A host without Docker: no socket, no DOCKER_HOST, no dockerd on PATH."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.delenv("DOCKER_HOST", raising=False)
    monkeypatch.setenv("PATH", str(bin_dir))
    return tmp_path / "missing.sock"


async def test_auto_without_docker_needs_an_explicit_yes(no_docker: Path) -> None:
    with pytest.raises(BackendUnavailable, match="--backend local or set"):
        await open_backend("auto", sock=no_docker)
    backend = await open_backend("auto", sock=no_docker, allow_unisolated=True)
    assert backend.name == "local"
    assert (await open_backend("local", sock=no_docker)).name == "local"


async def test_auto_with_docker_installed_but_down_is_an_error(
    no_docker: Path, tmp_path: Path
) -> None:
    dead = tmp_path / "dead.sock"
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(dead))  # exists, but nothing answers the Docker API on it
    try:
        for allow in (False, True):  # configured Docker is required even when allowed
            with pytest.raises(BackendUnavailable, match="does not answer"):
                await open_backend("auto", sock=dead, allow_unisolated=allow)
        with pytest.raises(BackendUnavailable, match="does not answer"):
            await open_backend("docker", sock=dead)
    finally:
        listener.close()


async def test_auto_with_dockerd_installed_but_no_socket_is_an_error(no_docker: Path) -> None:
    dockerd = Path(os.environ["PATH"]) / "dockerd"
    dockerd.write_text("#!/bin/sh\nexit 1\n")
    dockerd.chmod(0o755)
    with pytest.raises(BackendUnavailable, match="installed but its daemon"):
        await open_backend("auto", sock=no_docker, allow_unisolated=True)


@pytest.fixture
def secret_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("PWB_UNRELATED_TOKEN", SECRET)


async def test_local_backend_passes_only_named_variables(secret_env: None, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "index.html").write_text("hi\n")
    spec = ServeSpec(
        stack="static",
        start="env > server-env.txt; exec python3 -m http.server $PORT --bind 127.0.0.1",
        env={"STACK_VAR": "from-the-task"},
    )
    async with LocalBackend().open(ws, spec, Labels(sweep="s", cell="c")) as box:
        plain = await box.run("env")
        named = await box.run("env", env={"OPENAI_API_KEY": os.environ["OPENAI_API_KEY"]})
        served = await box.serve()
        assert served.ready, served.detail
    assert SECRET not in plain.output_tail
    assert "STACK_VAR=from-the-task" in plain.output_tail
    assert f"HOME={Path.home()}\n" not in plain.output_tail  # a private HOME, not ours
    assert "PATH=" in plain.output_tail
    assert f"OPENAI_API_KEY={SECRET}" in named.output_tail  # pass_env: by name only
    assert "PWB_UNRELATED_TOKEN" not in named.output_tail
    server_env = (ws / "server-env.txt").read_text()
    assert SECRET not in server_env and "PORT=" in server_env


async def test_local_output_names_no_host_path(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    spec = ServeSpec(stack="static", start="pwd; echo $HOME; ls /nonexistent-pwb; exit 1")
    async with LocalBackend().open(ws, spec, Labels(sweep="s", cell="c")) as box:
        result = await box.run("pwd; echo $HOME; cat missing.txt")
        served = await box.serve()
    for text in (result.output_tail, served.detail):
        assert str(tmp_path) not in text and "pwb-local-home" not in text, text
        assert "/workspace" in text
