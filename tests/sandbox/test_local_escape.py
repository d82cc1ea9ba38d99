"""The local backend: a process that leaves its process group (setsid) still dies with
the command or the sandbox that started it, and only those (sandbox/_reap.py)."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest

from sandbox import Labels, LocalBackend, ServeSpec

pytestmark = pytest.mark.anyio
SPEC = ServeSpec(stack="static", start="true")
# A child in a session of its own, whose pid lands in `pid` before the command returns.
DETACH = (
    "setsid sh -c 'echo $$ > {f}; exec sleep 300' >/dev/null 2>&1 & "
    "while [ ! -s {f} ]; do sleep 0.05; done"
)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.split(")")[1].split()[0] != "Z"


async def gone(pid: int) -> bool:
    with anyio.move_on_after(5):
        while alive(pid):
            await anyio.sleep(0.05)
    return not alive(pid)


def _pid(path: Path) -> int:
    pid = int(path.read_text())
    assert os.getpgid(pid) != os.getpgid(0) and os.getsid(pid) == pid  # it did leave
    return pid


async def test_a_setsid_child_dies_when_its_command_ends(tmp_path: Path) -> None:
    async with LocalBackend().open(tmp_path, SPEC, Labels(sweep="t", cell="c")) as box:
        result = await box.run(DETACH.format(f="pid"))
        assert result.exit_code == 0
        assert await gone(_pid(tmp_path / "pid")), "the detached child outlived its command"


async def test_a_server_s_detached_child_dies_with_the_sandbox_and_others_live_on(
    tmp_path: Path,
) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    # b's server leaves a detached child too; a's sandbox ending must not touch it.
    spec = ServeSpec(
        stack="static",
        start=DETACH.format(f="pid") + "; exec python3 -m http.server $PORT",
        ready_path="/",
        ready_timeout=30,
    )
    async with LocalBackend().open(b, spec, Labels(sweep="t", cell="b")) as box_b:
        assert (await box_b.serve()).ready
        other = _pid(b / "pid")
        async with LocalBackend().open(a, spec, Labels(sweep="t", cell="a")) as box_a:
            assert (await box_a.serve()).ready
            mine = _pid(a / "pid")
        assert await gone(mine), "a server's detached child outlived its sandbox"
        assert alive(other), "another sandbox's process was killed"
    assert await gone(other)
