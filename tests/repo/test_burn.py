"""The load tests' CPU burners end with their block, and by their own deadline.

Looked up by command line, not by the `Popen` handles: a wrapper (`timeout S python`)
that dies while its python child keeps spinning must not pass.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from tests.burn import cpu_burners

MARK = "61.25"  # an unusual deadline: only this test's burners carry it


def _burning() -> list[int]:
    found = []
    for proc in Path("/proc").iterdir():
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
            state = (proc / "stat").read_text().split()[2]
        except (OSError, IndexError):
            continue
        if b"-c" in argv and MARK.encode() in argv and state != "Z":
            found.append(int(proc.name))
    return found


def test_burners_are_gone_when_the_block_ends() -> None:
    with cpu_burners(float(MARK)):
        time.sleep(0.3)
        assert len(_burning()) >= (os.cpu_count() or 2)
    assert _burning() == []


def test_a_burner_stops_by_its_own_deadline() -> None:
    with cpu_burners(0.5) as burn:
        deadline = time.monotonic() + 20
        while any(p.poll() is None for p in burn) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert all(p.returncode == 0 for p in burn)  # ended by themselves, not killed
