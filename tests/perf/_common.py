"""Shared helpers of the perf scripts: medians, machine description, result files."""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
RESULTS_DIR = ROOT / "tests" / "perf" / "results"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def median(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def pct(xs: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100)."""
    if not xs:
        return float("nan")
    s = sorted(xs)
    k = max(0, min(len(s) - 1, round(q / 100 * len(s) + 0.5) - 1))
    return s[k]


def host_cpu_s() -> tuple[float, float, float]:
    """Busy, stolen and total CPU-seconds of every core of the host since boot
    (`/proc/stat`). Busy counts user, nice, system, irq and softirq time, not idle, iowait
    or steal. On an otherwise idle host the busy delta over a run is that run's CPU: the
    orchestrator and every process it started, including grandchildren (Chromium's
    renderers) that `RUSAGE_CHILDREN` never sees because nobody in our tree reaps them.
    """
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    user, nice, system, idle, iowait, irq, softirq, steal = (int(x) for x in [*fields, "0"][:8])
    tick = os.sysconf("SC_CLK_TCK")
    busy = user + nice + system + irq + softirq
    return busy / tick, steal / tick, (busy + idle + iowait + steal) / tick


def host_busy_cpu_s() -> float:
    """`host_cpu_s`'s busy CPU-seconds."""
    return host_cpu_s()[0]


def _cmd(argv: list[str]) -> str:
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=20)
        return (
            (out.stdout or out.stderr).strip().splitlines()[0] if (out.stdout or out.stderr) else ""
        )
    except (OSError, subprocess.SubprocessError):
        return ""


def machine() -> dict[str, Any]:
    mem_kb = 0
    try:
        m = re.search(r"MemTotal:\s+(\d+)", Path("/proc/meminfo").read_text())
        mem_kb = int(m.group(1)) if m else 0
    except OSError:
        pass
    compose = _cmd(["docker", "compose", "version"]) if shutil.which("docker") else ""
    if "version" not in compose.lower():
        compose = _cmd(["docker-compose", "version", "--short"]) and (
            "docker-compose " + _cmd(["docker-compose", "version", "--short"])
        )
    return {
        "host": platform.node(),
        "kernel": platform.release(),
        "python": platform.python_version(),
        "nproc": os.cpu_count(),
        "mem_gib": round(mem_kb / 1024 / 1024, 1),
        "loadavg_at_start": os.getloadavg(),
        "docker": _cmd(["docker", "version", "--format", "{{.Server.Version}}"]),
        "compose": compose,
        "chromium": _cmd(["/usr/bin/chromium", "--version"]),
        "time": time.strftime("%Y-%m-%d %H:%M:%S %z"),
    }


class LoadSampler:
    """Samples the 1-minute load average in a background thread (machine noise)."""

    def __init__(self, every_s: float = 5.0) -> None:
        import threading

        self.samples: list[float] = []
        self._stop = threading.Event()
        self._every = every_s
        self._t = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.samples.append(os.getloadavg()[0])
            self._stop.wait(self._every)

    def __enter__(self) -> LoadSampler:
        self._t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._t.join()

    def summary(self) -> dict[str, float]:
        s = self.samples or [os.getloadavg()[0]]
        return {"min": round(min(s), 2), "median": round(median(s), 2), "max": round(max(s), 2)}


def write_result(name: str, data: dict[str, Any]) -> Path:
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    path = RESULTS_DIR / f"{name}.json"
    path.write_text(json.dumps(data, indent=2, default=str) + "\n")
    return path


def make_one_unit_task(parent: Path, task_id: str = "tiny-one", turns: int = 1) -> Path:
    """The tiny static task cut down to its first unit (same contract format).

    Built from `tests/fixtures/tinytask.make_tiny_task`, then u2/u3, their checks and
    reference patches are removed, so one cell = one reveal, one checkpoint, one final.
    """
    from tests.fixtures.tinytask import make_tiny_task

    root = make_tiny_task(parent, task_id=task_id, turns=turns)
    toml = (root / "task.toml").read_text()
    blocks = re.split(r"(?m)^(?=\[\[)", toml)
    drop_checks = {"about-tagline", "plums-listed"}
    drop_units = {"u2", "u3"}
    kept = []
    for b in blocks:
        m = re.search(r'(?m)^id = "([^"]+)"', b)
        if b.startswith("[[checks]]") and m and m.group(1) in drop_checks:
            continue
        if b.startswith("[[units]]") and m and m.group(1) in drop_units:
            continue
        kept.append(b)
    (root / "task.toml").write_text("".join(kept))
    for u in drop_units:
        (root / "reference" / f"{u}.patch").unlink()
    return root
