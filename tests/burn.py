"""CPU burners for load tests: one busy process per core, bounded in time.

Each burner carries its own deadline and is killed directly on exit. (Wrapping it in
`timeout S python ...` and killing `timeout` left the python child spinning for ever:
SIGKILL cannot be forwarded, so the rest of the test run went on under the load.)
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

_BURN = "import sys, time\nend = time.monotonic() + float(sys.argv[1])\nwhile time.monotonic() < end: pass"


@contextmanager
def cpu_burners(seconds: float) -> Iterator[list[subprocess.Popen[bytes]]]:
    """One busy process per core while the block runs, each gone after `seconds` at the
    latest and killed when the block ends, however it ends."""
    burn = [
        subprocess.Popen([sys.executable, "-c", _BURN, str(seconds)])
        for _ in range(os.cpu_count() or 2)
    ]
    try:
        yield burn
    finally:
        for p in burn:
            p.kill()
            p.wait()
