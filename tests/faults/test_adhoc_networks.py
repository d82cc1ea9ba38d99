"""`cell`, `verify` and `admit` leave no container or network behind (real Docker).

Each runs under a unique sweep id (two runs at once cannot share or remove each other's
network) and removes its resources on exit. The test watches Docker while the command
runs for containers of its own task (a task id no one else uses), notes their sweep
ids, and after the command checks that nothing labelled with those sweeps remains.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from tests.fixtures.tinytask import make_tiny_task

ROOT = Path(__file__).resolve().parents[2]


def _docker_json(*args: str) -> list[dict[str, str]]:
    out = subprocess.run(
        ["docker", *args, "--format", "{{json .Labels}}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rows = []
    for line in out.splitlines():
        raw = json.loads(line)  # "k=v,k=v" (ps) or the same string (network ls)
        rows.append(dict(kv.split("=", 1) for kv in raw.split(",") if "=" in kv))
    return rows


def _sweeps_of(task_id: str) -> set[str]:
    labels = _docker_json("ps", "-a", "--filter", "label=pwb.sweep")
    return {la["pwb.sweep"] for la in labels if la.get("pwb.cell", "").startswith(task_id)}


def _left(sweeps: set[str]) -> list[str]:
    left = []
    for kind in (("ps", "-a"), ("network", "ls")):
        for la in _docker_json(*kind, "--filter", "label=pwb.sweep"):
            if la.get("pwb.sweep") in sweeps:
                left.append(f"{kind[0]} {la}")
    return left


def _run_watched(cmd: list[str], task_id: str) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    seen: set[str] = set()
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            seen.update(_sweeps_of(task_id))
            time.sleep(0.2)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    finally:
        done.set()
        watcher.join()
    return proc, seen


@pytest.mark.docker
@pytest.mark.browser
@pytest.mark.parametrize("command", ["cell", "verify", "admit"])
def test_adhoc_commands_remove_their_sandboxes_and_network(
    require_docker: None, require_chromium: None, tmp_path: Path, command: str
) -> None:
    task_id = f"leak-{uuid.uuid4().hex[:8]}"
    task = make_tiny_task(tmp_path / "tasks", task_id=task_id, turns=1)
    base = [sys.executable, "-m", "orchestrator", command]
    common = ["--tasks-dir", str(tmp_path / "tasks"), "--backend", "docker"]
    match command:
        case "cell":
            cmd = [*base, task_id, *common, "--no-baseline", "--out", str(tmp_path / "out")]
        case "verify":
            cmd = [*base, task_id, *common, "--workspace", str(task / "repo")]
        case _:
            cmd = [*base, task_id, *common, "--out", str(tmp_path / "adm"), "--repeat", "1"]
    proc, seen = _run_watched(cmd, task_id)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]  # verify exits 1 on failing gates
    assert seen, f"no container of {task_id} was seen while `{command}` ran"
    assert not any(s in {"adhoc", "verify", "admission"} for s in seen), seen  # unique ids
    assert _left(seen) == []
