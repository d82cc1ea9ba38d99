"""Processes that left their process group: found by a marker in their environment.

The local backend kills a command's process group when the command ends, but a process
that called `setsid` (a dev server an agent daemonised, `setsid cmd &`) is in a group of
its own and would outlive the cell. Every process the backend starts carries
`PWB_SANDBOX=<marker>` in its environment, inherited by every descendant however it
detaches; when the command (or the sandbox) ends, every process still carrying the
marker is killed. A process that clears its own environment escapes this too: the local
backend is not a security boundary (use Docker for that).
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

MARKER_VAR = "PWB_SANDBOX"


def marked_pids(prefix: str) -> list[int]:
    """Pids of live processes whose environment has PWB_SANDBOX=<prefix...>."""
    needle = f"{MARKER_VAR}={prefix}".encode()
    me = os.getpid()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        try:
            env = (entry / "environ").read_bytes()
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if any(var.startswith(needle) for var in env.split(b"\0")):
            found.append(int(entry.name))
    return found


def kill_marked(prefix: str) -> int:
    """SIGKILL every process carrying the marker; how many were still there."""
    pids = marked_pids(prefix)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return len(pids)
