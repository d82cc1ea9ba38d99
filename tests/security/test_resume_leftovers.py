"""A resume reaps what the killed process of its run left (#36 item 3).

kill -9 leaves a sweep's containers, network and firewall chain behind, labelled with
the run lock the resume then holds itself: the resume must take them for a dead
process's (their sweep id is not its own), not for its own live sweep's.
"""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import anyio
import pytest

from sandbox import FirewallUnavailable, firewall_chains
from tests.fixtures.bench import ROOT, bench, cli


def _docker(*args: str) -> list[str]:
    done = subprocess.run(["docker", *args], capture_output=True, text=True, timeout=60)
    return done.stdout.split()


def _chains() -> set[str]:
    try:
        return anyio.run(firewall_chains)
    except FirewallUnavailable:
        return set()


@pytest.mark.docker
@pytest.mark.browser
def test_resume_after_kill_9_leaves_nothing_of_the_killed_process(
    require_docker: None, require_chromium: None, tmp_path: Path
) -> None:
    config = bench(tmp_path, repeats=1, concurrency=1, backend="docker", solver="noop", kind="noop")
    run_dir = tmp_path / "run"
    proc = subprocess.Popen(
        cli(config, "--run-dir", str(run_dir)),
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    lock = f"label=pwb.lock={(run_dir / '.lock').resolve()}"
    deadline = time.monotonic() + 180
    sweep = ""
    while time.monotonic() < deadline and proc.poll() is None:
        found = _docker("ps", "--filter", lock, "--format", '{{.Label "pwb.sweep"}}')
        if found:
            sweep = found[0]
            break
        time.sleep(0.3)
    proc.kill()  # SIGKILL: no cleanup of any kind
    proc.wait()
    assert sweep, "the sweep never started a container"
    mine = f"label=pwb.sweep={sweep}"
    nets = _docker("network", "ls", "-q", "--filter", mine)
    assert _docker("ps", "-aq", "--filter", mine) and nets  # the kill left them
    chains = {n[:12] for n in nets} & _chains()

    done = subprocess.run(
        cli(config, "--resume", str(run_dir)),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert _docker("ps", "-aq", "--filter", mine) == []
    assert _docker("network", "ls", "-q", "--filter", mine) == []
    assert chains.isdisjoint(_chains()), chains  # the killed network's chain went with it
    assert _docker("ps", "-aq", "--filter", lock) == []  # and the resume's own as usual


@pytest.mark.docker
@pytest.mark.browser
def test_a_second_sigint_leaves_at_once_and_nothing_behind(
    require_docker: None, require_chromium: None, tmp_path: Path
) -> None:
    """The second Ctrl-C exits at once (tests/faults/test_signals.py); the containers,
    network and chain the first one's teardown had not removed yet go all the same."""
    config = bench(tmp_path, repeats=1, concurrency=1, backend="docker", solver="noop", kind="noop")
    run_dir = tmp_path / "run"
    proc = subprocess.Popen(
        cli(config, "--run-dir", str(run_dir)),
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    lock = f"label=pwb.lock={(run_dir / '.lock').resolve()}"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and proc.poll() is None:
        if _docker("ps", "-q", "--filter", lock):
            break
        time.sleep(0.3)
    nets = _docker("network", "ls", "-q", "--filter", lock)
    assert nets, "the sweep never started a container"
    chains = {n[:12] for n in nets} & _chains()
    proc.send_signal(signal.SIGINT)
    time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and "Traceback" not in err, err[-2000:]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        left = _docker("ps", "-aq", "--filter", lock) + _docker(
            "network", "ls", "-q", "--filter", lock
        )
        if not left and chains.isdisjoint(_chains()):
            break
        time.sleep(0.5)
    assert _docker("ps", "-aq", "--filter", lock) == []
    assert _docker("network", "ls", "-q", "--filter", lock) == []
    assert chains.isdisjoint(_chains()), chains
