"""aiodocker's and aiohttp's errors become SandboxErrors where they enter (no daemon needed)."""

from __future__ import annotations

import aiodocker
import aiohttp
import pytest

from sandbox import BackendUnavailable, ContainerError, ImageError, SandboxError
from sandbox._docker_errors import docker_client, entering

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.parametrize(
    ("raised", "expected"),
    [
        (TimeoutError(), ContainerError),  # aiohttp's read timeout on a slow daemon
        (aiohttp.ClientConnectionError("reset"), BackendUnavailable),
        (ConnectionRefusedError(111, "refused"), BackendUnavailable),
        (aiodocker.DockerError(900, "no daemon"), BackendUnavailable),
        (aiodocker.DockerError(500, "boom"), ContainerError),
    ],
)
def test_entering_translates_library_errors(raised: Exception, expected: type) -> None:
    with pytest.raises(expected) as info, entering("exec in abc"):
        raise raised
    assert isinstance(info.value, SandboxError) and info.value.__cause__ is raised
    assert str(info.value).startswith("exec in abc")


def test_entering_marks_image_errors() -> None:
    with pytest.raises(ImageError), entering("inspect x", image=True):
        raise aiodocker.DockerError(500, "boom")


def test_entering_leaves_other_exceptions_alone() -> None:
    with pytest.raises(KeyError), entering("x"):
        raise KeyError("a bug stays a bug")


async def test_no_daemon_socket_is_backend_unavailable_not_an_assertion(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("DOCKER_HOST", raising=False)
    monkeypatch.setattr(aiodocker.docker, "_sock_search_paths", [])
    with pytest.raises(BackendUnavailable, match="no Docker daemon socket"):
        async with docker_client("container c1"):
            pass
