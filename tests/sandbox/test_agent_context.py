"""The agent layer's build context: npm packages staged by the host's npm go in as a
tree whose modes and symlinks survive (the launchers in bin/ are links, the agents'
native binaries must stay executable), and a host without npm is one clear error."""

from __future__ import annotations

import os
import stat
import tarfile
from pathlib import Path

import anyio
import pytest

from sandbox import ImageError
from sandbox._docker_images import _stage_npm, _tar


def test_the_context_keeps_a_trees_modes_and_symlinks(tmp_path: Path) -> None:
    prefix = tmp_path / "npm"
    pkg = prefix / "lib" / "node_modules" / "agent"
    (pkg / "vendor").mkdir(parents=True)
    binary = pkg / "vendor" / "agent-native"
    binary.write_bytes(b"\x7fELF...")
    binary.chmod(0o755)
    (pkg / "README.md").write_text("hi")
    (prefix / "bin").mkdir()
    os.symlink("../lib/node_modules/agent/vendor/agent-native", prefix / "bin" / "agent")
    with tarfile.open(fileobj=_tar({"Dockerfile": b"FROM x\n"}, {"npm": prefix})) as tar:
        members = {m.name: m for m in tar.getmembers()}
    assert members["Dockerfile"].isfile()
    native = members["npm/lib/node_modules/agent/vendor/agent-native"]
    assert stat.S_IMODE(native.mode) & 0o111 == 0o111  # still executable for everyone
    assert stat.S_IMODE(members["npm/lib/node_modules/agent/README.md"].mode) & 0o444 == 0o444
    link = members["npm/bin/agent"]
    assert link.issym() and link.linkname == "../lib/node_modules/agent/vendor/agent-native"


def test_an_empty_npm_list_still_gives_the_dockerfile_its_directory(tmp_path: Path) -> None:
    anyio.run(_stage_npm, (), tmp_path / "npm")
    with tarfile.open(fileobj=_tar({}, {"npm": tmp_path / "npm"})) as tar:
        (member,) = tar.getmembers()
    assert member.name == "npm" and member.isdir()  # `COPY npm/ ...` needs it


def test_no_npm_on_the_host_is_one_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing to find here
    with pytest.raises(ImageError, match=r"no npm on this host") as err:
        anyio.run(_stage_npm, ("@openai/codex@0.171.0",), tmp_path / "npm")
    assert "@openai/codex@0.171.0" in str(err.value) and "\n" not in str(err.value)
