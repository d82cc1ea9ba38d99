"""Chromium as an unprivileged user, with its own sandbox on.

The grading browser renders pages the solver wrote, so a renderer exploit must not run
as root. When the harness runs as root, `Confinement` writes a *launcher* (the
`executable_path` Playwright starts) that hands Playwright's fresh profile directory
(`--user-data-dir=`) and the pinned environment's home (`_browser._environment.PinnedFonts`) to
`BROWSER_USER`, then execs Chromium as that user: real and effective uid and gid, no
supplementary groups, no capabilities (inheritable, ambient or bounding), no new
privileges. Playwright's pipe (fds 3 and 4) passes through the exec. Chromium's own
sandbox (user namespaces) is on: the pool launches with `chromium_sandbox=True`, so no
`--no-sandbox`. A harness run as any other user launches Chromium directly (it is
unprivileged already).

`BROWSER_USER` is a system user of its own (`scripts/install` creates it), not `nobody`,
which other services share; being its own, the host firewall can confine it
(`confine_network`: an OUTPUT rule by owner lets it open TCP to 127.0.0.1, where the
egress proxy listens, and nothing else, no UDP, no other address, no IPv6), so even a
browser that ignored its proxy settings reaches no gateway, other cell or outside host.
"""

from __future__ import annotations

import os
import pwd
import shlex
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Self

from sandbox import FirewallUnavailable, confine_owner

from .._core import VerifierInfraError

BROWSER_USER = "pwb-browser"


@dataclass(frozen=True, slots=True)
class BrowserUser:
    name: str
    uid: int
    gid: int


def browser_user(name: str = BROWSER_USER) -> BrowserUser | None:
    """Who Chromium runs as: `name` when the harness is root, None (itself) otherwise."""
    if os.geteuid() != 0:
        return None
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        raise VerifierInfraError(
            f"the browser's user {name} does not exist: run bash scripts/install "
            f"(or useradd --system --user-group {name})"
        ) from None
    if entry.pw_uid == 0 or entry.pw_gid == 0:
        raise VerifierInfraError(f"the browser's user {name} has uid or gid 0: it must not")
    return BrowserUser(name=name, uid=entry.pw_uid, gid=entry.pw_gid)


async def confine_network(user: BrowserUser) -> None:
    """The kernel's half of the wall: `user` may open TCP to 127.0.0.1 (the egress
    proxy, `_egress.py`) and send nothing else, whatever the browser does."""
    try:
        await confine_owner(user.uid)
    except FirewallUnavailable as exc:
        raise VerifierInfraError(f"cannot confine the browser's network: {exc}") from exc


def give(path: Path, user: BrowserUser) -> None:
    """Hand a directory tree the harness made to `user` (links themselves, not targets)."""
    for root, dirs, files in os.walk(path):
        os.chown(root, user.uid, user.gid)
        for name in (*dirs, *files):
            os.chown(os.path.join(root, name), user.uid, user.gid, follow_symlinks=False)


def _tool(name: str) -> str:
    found = shutil.which(name, path="/usr/bin:/bin:/usr/sbin:/sbin")
    if found is None:
        raise VerifierInfraError(f"{name} is missing: it starts the browser as {BROWSER_USER}")
    return found


def launcher_script(chromium: str, user: BrowserUser) -> str:
    ids = f"{user.uid}:{user.gid}"
    drop = [
        _tool("setpriv"),
        f"--reuid={user.uid}",
        f"--regid={user.gid}",
        "--clear-groups",
        "--inh-caps=-all",
        "--ambient-caps=-all",
        "--bounding-set=-all",
        "--no-new-privs",
        "--",
        chromium,
    ]
    return "\n".join(
        [
            "#!/bin/sh",
            f"# Written by orchestrator/verifier/_browser/_confine.py: Chromium as {user.name}.",
            "set -eu",
            'for arg in "$@"; do',
            '  case "$arg" in',
            f'    --user-data-dir=*) {_tool("chown")} -R {ids} -- "${{arg#--user-data-dir=}}" ;;',
            "  esac",
            "done",
            f'exec {shlex.join(drop)} "$@"',
            "",
        ]
    )


class Confinement:
    """The executable a pool launches (`executable`) and the user it runs as (`user`)."""

    def __init__(self, chromium: str, user: BrowserUser | None) -> None:
        self.user = user
        self.executable = chromium
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self.chromium = chromium

    def __enter__(self) -> Self:
        if self.user is not None:
            self._tmp = tempfile.TemporaryDirectory(prefix="pwb-launcher-")
            script = Path(self._tmp.name) / "chromium"
            script.write_text(launcher_script(self.chromium, self.user), encoding="utf-8")
            script.chmod(0o700)
            self.executable = str(script)
        return self

    def __exit__(
        self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None
