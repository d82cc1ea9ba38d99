"""An ad-hoc run (`cell`, `verify`, `admit`) killed -9 leaves nothing that `gc` keeps.

Such a run cannot clean up after itself, so its container and network outlived it until
their time-to-live (4 h) had passed: `gc` could not tell a dead ad-hoc run from a live
one. `adhoc_sweep` now holds a run lock of its own, like a sweep. The child below opens
a real container under `adhoc_sweep`, exactly as those commands do; `gc` leaves it alone
while the child lives, and removes it (container and network) once the child is killed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixtures.dockergc import docker_resources, run_gc

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.docker]

CHILD = """
import sys, anyio
from pathlib import Path
from sandbox import DockerBackend, ImageBuilder, ServeSpec, adhoc_sweep

async def main() -> None:
    await ImageBuilder().ensure_stack("static", lambda _line: None)
    ws = Path(sys.argv[1])
    spec = ServeSpec(stack="static", start="python3 -m http.server $PORT --bind 0.0.0.0")
    async with adhoc_sweep("pytest-adhoc-kill") as sweep:
        async with DockerBackend().open(ws, spec, sweep.labels("c")):
            print(sweep.sweep, flush=True)
            await anyio.sleep(300)

anyio.run(main)
"""


def test_gc_removes_a_killed_adhoc_runs_resources_and_keeps_a_live_ones(
    require_docker: None, tmp_path: Path
) -> None:
    (tmp_path / "ws").mkdir()
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(tmp_path / "ws")],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    sweep = ""
    try:
        assert child.stdout is not None
        sweep = child.stdout.readline().strip()
        assert sweep.startswith("pytest-adhoc-kill-"), sweep
        before = docker_resources(sweep)
        assert len(before) == 2, before  # its container and its network

        out = run_gc("--sweep", sweep)  # named, but alive: its lock is held
        assert docker_resources(sweep) == before, out

        child.kill()
        child.wait()
        out = run_gc()  # not named, not expired: only the free lock says it is dead
        # Gone, container and network. This gc removed them, or the gc at the start of
        # another test's sweep did within the same second (each reaps every run whose
        # lock is free): either way only the freed lock said this run was dead.
        assert docker_resources(sweep) == [], out
    finally:
        child.kill()
        child.wait()
        if sweep:
            run_gc("--sweep", sweep, "--force")
