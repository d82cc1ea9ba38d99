"""CPU of one benchmarked process tree and its Docker containers, from cgroup v1 cpuacct.

On a shared host `/proc/stat` counts everyone's work. Here the measured command runs in
a cpuacct cgroup of its own (`CpuMeter.wrap` prefixes its argv with a shell that moves
itself into the cgroup, then execs the command, so every descendant — Chromium's
renderers, the Playwright driver, a local-backend server, git — is counted from its first
instruction, reaped or not). Task containers run in Docker's own cgroups
(`<cpuacct>/docker/<id>`, cgroupfs driver): those whose workspace bind mount lies under
`owned_prefix` (the command's `TMPDIR`, where the workspaces are made) are ours; their
`cpuacct.usage` is sampled every `period` s until they end (AutoRemove deletes the
cgroup, so up to one period of a container's last CPU can be missed). The Docker daemon's
own CPU (dockerd, containerd, shims) is in neither.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

CPUACCT = Path("/sys/fs/cgroup/cpuacct")
DOCKER_ROOT = Path("/var/lib/docker/containers")


def available() -> str:
    """'' when cpuacct accounting works here, else why not."""
    if not (CPUACCT / "cpuacct.usage").is_file():
        return f"no cgroup v1 cpuacct hierarchy at {CPUACCT}"
    if not os.access(CPUACCT, os.W_OK):
        return f"{CPUACCT} is not writable (run as root)"
    return ""


def _usage_s(cgroup: Path) -> float | None:
    try:
        return int((cgroup / "cpuacct.usage").read_text()) / 1e9
    except (OSError, ValueError):
        return None


class CpuMeter:
    """One measured command: its cgroup, and the sampled containers it owns."""

    def __init__(self, name: str, owned_prefix: Path, period: float = 0.2) -> None:
        self.cgroup = CPUACCT / f"pwb-bench-{os.getpid()}-{name}"
        self.cgroup.mkdir()
        self.owned_prefix = str(owned_prefix.resolve())
        self.period = period
        self.containers: dict[str, float] = {}  # id -> last cpuacct.usage seen (s)
        self._foreign: set[str] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def wrap(self, argv: list[str]) -> list[str]:
        """`argv`, started inside the cgroup (before it can fork anything)."""
        procs = str(self.cgroup / "cgroup.procs")
        return ["sh", "-c", 'echo $$ > "$0" && exec "$@"', procs, *argv]

    def __enter__(self) -> CpuMeter:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()

    def _mine(self, cid: str) -> bool:
        try:
            host = json.loads((DOCKER_ROOT / cid / "hostconfig.json").read_text())
        except (OSError, ValueError):
            return False  # not written yet: asked again at the next sample
        binds = host.get("Binds") or []
        return any(str(b).startswith(self.owned_prefix + "/") for b in binds)

    def _sample(self) -> None:
        try:
            ids = [p.name for p in (CPUACCT / "docker").iterdir() if p.is_dir()]
        except OSError:
            return
        for cid in ids:
            if cid in self._foreign:
                continue
            if cid not in self.containers and not self._mine(cid):
                if (DOCKER_ROOT / cid / "hostconfig.json").is_file():
                    self._foreign.add(cid)
                continue
            used = _usage_s(CPUACCT / "docker" / cid)
            if used is not None:
                self.containers[cid] = max(used, self.containers.get(cid, 0.0))

    def _run(self) -> None:
        while not self._stop.wait(self.period):
            self._sample()

    def tree_s(self) -> float:
        return _usage_s(self.cgroup) or 0.0

    def containers_s(self) -> float:
        return sum(self.containers.values())

    def close(self, timeout: float = 30.0) -> None:
        """Remove the cgroup once its last process is gone (bounded wait)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                if not (self.cgroup / "cgroup.procs").read_text().strip():
                    self.cgroup.rmdir()
                    return
            except OSError:
                return
            time.sleep(0.2)
