"""What an admission costs on this host (#51): one task's `admit --repeat 3` (default the
14-state `fernhill-save-tools`), and CI's suite-admission sample, wall and host CPU.

Run: `python tests/perf/bench_admission.py [--task ID] [--repeat 3] [--sample]`.

- `--task` (default): `python -m orchestrator admit --repeat N TASK` into a fresh
  directory (no cache, no record), so every state is replayed;
- `--sample`: `CI=true bash scripts/test admission`, the sample `.ci/run` admits after the
  README's command (it writes the `ci_verified` marks of what it checked into
  tasks/ADMISSION.json, to be committed: the next CI's sample is then the sentinels and
  the window alone).

Each prints and records in `tests/perf/results/admission.json` (under its own key, with
the commit): the wall, the host's busy CPU-seconds over it (`/proc/stat`: every process,
Chromium's renderers and the containers' servers included; the host should be otherwise
idle), that CPU as a share of the cores' time, and the share stolen by the hypervisor.
The issue's yardsticks are printed beside it: CI's sample at a6041d4 (session 17, the
last recorded before #51's changes: 3066 s for 13 tasks at 35-61 % steal) and the default
job at 8b14758.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.perf._common import RESULTS_DIR, ROOT, LoadSampler, host_cpu_s, machine

RESULTS = RESULTS_DIR / "admission.json"
# Recorded before #51 (tests/perf/results/tiers-s17.md): CI's admission sample.
SAMPLE_BEFORE_S = 3066.0


def _timed(argv: list[str], env: dict[str, str]) -> dict[str, Any]:
    print(f"$ {' '.join(argv)}", file=sys.stderr, flush=True)
    busy0, steal0, total0 = host_cpu_s()
    t0 = time.monotonic()
    with LoadSampler() as load:
        rc = subprocess.call(argv, cwd=ROOT, env=env)
    wall = time.monotonic() - t0
    busy1, steal1, total1 = host_cpu_s()
    total = max(total1 - total0, 1e-9)
    return {
        "argv": argv,
        "exit": rc,
        "wall_s": round(wall, 1),
        "host_busy_cpu_s": round(busy1 - busy0, 1),
        "busy_share": round((busy1 - busy0) / total, 3),
        "steal_share": round((steal1 - steal0) / total, 3),
        "loadavg": load.summary(),
    }


def _commit() -> str:
    out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True)
    return out.stdout.decode().strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", default="fernhill-save-tools")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sample", action="store_true", help="CI's admission sample instead")
    args = parser.parse_args()
    env = dict(os.environ)
    if args.sample:
        key = "ci_sample"
        env["CI"] = "true"
        result = _timed(["bash", "scripts/test", "admission"], env)
        result["vs_session17"] = round(result["wall_s"] / SAMPLE_BEFORE_S, 3)
    else:
        key = f"admit_{args.task}"
        out = Path("/tmp") / f"pwb-bench-admission-{os.getpid()}"
        argv = [sys.executable, "-m", "orchestrator", "admit", "--repeat", str(args.repeat)]
        result = _timed([*argv, "--out", str(out), args.task], env)
        result["repeat"] = args.repeat
    result["commit"] = _commit()
    result["machine"] = machine()
    data = json.loads(RESULTS.read_text()) if RESULTS.is_file() else {}
    data[key] = result
    RESULTS.write_text(json.dumps(data, indent=2, default=str) + "\n")
    cores = os.cpu_count() or 1
    line = (
        f"{key}: {result['wall_s']:.0f} s wall (exit {result['exit']}), "
        f"{result['host_busy_cpu_s']:.0f} host CPU-s = {result['busy_share']:.0%} of "
        f"{cores} cores busy, {result['steal_share']:.0%} stolen, load {result['loadavg']}"
    )
    if "vs_session17" in result:
        line += f"; {result['vs_session17']:.2f}x session 17's {SAMPLE_BEFORE_S:.0f} s"
    print(line)
    return int(result["exit"] != 0)


if __name__ == "__main__":
    sys.exit(main())
