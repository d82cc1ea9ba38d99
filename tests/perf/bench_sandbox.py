"""Sandbox lifecycle (create -> serving -> teardown): DockerBackend vs docker CLI vs compose.

Run: `python tests/perf/bench_sandbox.py [--quick] [--rounds N] [--many K]`.

Each contender takes a fresh copy of the tiny static site, gets `pwb-static:latest`
serving it with `python3 -m http.server` until an HTTP GET answers 200, then tears it
all down. Measured at 1 and at K concurrent instances (K=32; --quick 8): the wall time
for all K to be serving and torn down. Contenders are interleaved round by round (the
order rotates) so machine noise hits them alike; a warm-up round is dropped.

- ours:    `DockerBackend().open(ws, ServeSpec(..., prestart=True), Labels, Limits)` then
           `sb.serve()` (hardened: cap-drop, memory/cpu/pids limits, internal network,
           init, exec'd server started as the sandbox opens — as a static task's cells
           do — chown of the workspace).
- cli:     the same sandbox by hand: `docker run -d --init` on ours's internal network
           with the same hardening and limits (cap-drop, no-new-privileges, user,
           memory/cpus/pids, log and tmpfs options) `-v copy:/site pwb-static:latest
           python3 -m http.server`, `docker inspect` for the address, poll every 100 ms,
           `docker rm -f`. This is the target's baseline.
- cli-bare: the same without hardening, on the default bridge (reference only: what
           skipping isolation would save; a user-defined network costs ~70 ms a start).
- compose: the same service in a compose file (`init: true`), `up -d`, `ps -q` +
           `inspect` for the address, poll, `down` (removes the project network too).

Writes `tests/perf/results/sandbox.json`. Targets: ours <= 1.0x cli, <= 0.5x compose.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
import urllib.request
import uuid
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from sandbox import DockerBackend, Labels, Limits, ServeSpec
from tests.fixtures.tinytask import ABOUT, INDEX
from tests.perf._common import LoadSampler, machine, median, write_result

IMAGE = "pwb-static:latest"
SPEC = ServeSpec(
    stack="static",
    start="python3 -m http.server $PORT --bind 0.0.0.0",
    ready_timeout=60,
    image=IMAGE,
    prestart=True,  # as cells of a static task run it (no install/build, serves live)
)
POLL_S = 0.1
SWEEP = f"perf-sb-{uuid.uuid4().hex[:6]}"
COMPOSE_FILE = """services:
  web:
    image: {image}
    init: true
    working_dir: /site
    volumes:
      - {site}:/site:ro
    command: ["python3", "-m", "http.server", "8080", "--bind", "0.0.0.0"]
"""

COMPOSE_CMD: list[str] = []


def compose_cmd() -> list[str]:
    import subprocess

    try:
        ok = subprocess.run(["docker", "compose", "version"], capture_output=True).returncode == 0
    except OSError:
        ok = False
    if ok:
        return ["docker", "compose"]
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    return []


def _site(parent: Path, name: str) -> Path:
    site = parent / name
    site.mkdir(parents=True)
    (site / "index.html").write_text(INDEX)
    (site / "about.html").write_text(ABOUT)
    return site


async def _sh(*argv: str) -> str:
    proc = await anyio.run_process(list(argv), check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} -> {proc.returncode}: {proc.stderr.decode()[-500:]}")
    return proc.stdout.decode().strip()


def _get(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            return int(r.status)
    except OSError:
        return 0


async def _poll(url: str, limit_s: float = 60.0) -> None:
    with anyio.fail_after(limit_s):
        while await anyio.to_thread.run_sync(_get, url) != 200:
            await anyio.sleep(POLL_S)


async def _address(cid: str) -> str:
    fmt = "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}"
    return await _sh("docker", "inspect", "-f", fmt, cid)


async def _shielded(*argv: str) -> None:
    """Teardown: runs even when a failed sibling cancels the batch, so nothing leaks."""
    with anyio.CancelScope(shield=True):
        await _sh(*argv)


def _record(phases: dict[str, list[float]], t0: float, t1: float, t2: float, t3: float) -> None:
    phases["create"].append(t1 - t0)
    phases["serve"].append(t2 - t1)
    phases["teardown"].append(t3 - t2)


# ---------------------------------------------------------------- contenders
async def ours(backend: DockerBackend, site: Path, i: int, phases: dict[str, list[float]]) -> None:
    t0 = time.perf_counter()
    labels = Labels(sweep=SWEEP, cell=f"c{i}")
    async with backend.open(site, SPEC, labels, Limits(ttl_seconds=600)) as sb:
        t1 = time.perf_counter()
        out = await sb.serve()
        if not out.ready:
            raise RuntimeError(f"ours: not ready: {out.detail[-300:]}")
        t2 = time.perf_counter()
    _record(phases, t0, t1, t2, time.perf_counter())


async def _cli(site: Path, phases: dict[str, list[float]], flags: list[str]) -> None:
    t0 = time.perf_counter()
    name = f"perf-cli-{uuid.uuid4().hex[:8]}"
    cid = await _sh(
        "docker", "run", "-d", "--init", "--name", name, "--label", f"pwb.sweep={SWEEP}",
        *flags, "-v", f"{site}:/site:ro", "-w", "/site", IMAGE,
        "python3", "-m", "http.server", "8080", "--bind", "0.0.0.0",
    )  # fmt: skip
    try:
        ip = await _address(cid)
        t1 = time.perf_counter()
        await _poll(f"http://{ip}:8080/")
        t2 = time.perf_counter()
    finally:
        await _shielded("docker", "rm", "-f", cid)
    _record(phases, t0, t1, t2, time.perf_counter())


# The same sandbox as ours, made by hand: same network, hardening and limits.
HARDENED = [
    "--network", f"pwb-{SWEEP}", "--cap-drop", "ALL",
    "--security-opt", "no-new-privileges:true", "--user", "10001:10001",
    "--memory", "1024m", "--memory-swap", "1024m", "--cpus", "1", "--pids-limit", "256",
    "--log-opt", "max-size=1m", "--log-opt", "max-file=1",
    "--tmpfs", "/tmp:rw,nosuid,nodev,size=256m",
]  # fmt: skip


async def cli(site: Path, i: int, phases: dict[str, list[float]]) -> None:
    await _cli(site, phases, HARDENED)


async def cli_bare(site: Path, i: int, phases: dict[str, list[float]]) -> None:
    """Default bridge, no limits: what an unhardened harness pays (for reference)."""
    await _cli(site, phases, [])


async def compose(site: Path, i: int, phases: dict[str, list[float]]) -> None:
    project = f"perfc{uuid.uuid4().hex[:8]}"
    f = site.parent / f"{site.name}.compose.yml"
    f.write_text(COMPOSE_FILE.format(image=IMAGE, site=site))
    base = [*COMPOSE_CMD, "-p", project, "-f", str(f)]
    t0 = time.perf_counter()
    try:
        await _sh(*base, "up", "-d")
        cid = await _sh(*base, "ps", "-q", "web")
        ip = await _address(cid)
        t1 = time.perf_counter()
        await _poll(f"http://{ip}:8080/")
        t2 = time.perf_counter()
    finally:
        await _shielded(*base, "down", "-t", "10")
    _record(phases, t0, t1, t2, time.perf_counter())


Runner = Callable[[Path, int, dict[str, list[float]]], Coroutine[Any, Any, None]]


async def _batch(
    run: Runner, parent: Path, k: int, tag: str, phases: dict[str, list[float]]
) -> float:
    sites = [_site(parent, f"{tag}-{uuid.uuid4().hex[:6]}-{i}") for i in range(k)]
    t0 = time.perf_counter()
    async with anyio.create_task_group() as tg:
        for i, s in enumerate(sites):
            tg.start_soon(run, s, i, phases)
    return time.perf_counter() - t0


async def _main(rounds_one: int, rounds_many: int, many: int) -> dict[str, Any]:
    backend = DockerBackend()
    runners: dict[str, Runner] = {
        "ours": lambda s, i, p: ours(backend, s, i, p),
        "cli": cli,
        "cli-bare": cli_bare,
    }
    if COMPOSE_CMD:
        runners["compose"] = compose
    names = list(runners)
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="pwb-perf-sb-") as tmp:
        parent = Path(tmp)
        for k, rounds in ((1, rounds_one), (many, rounds_many)):
            walls: dict[str, list[float]] = {n: [] for n in names}
            phases: dict[str, dict[str, list[float]]] = {
                n: {"create": [], "serve": [], "teardown": []} for n in names
            }
            # Round 0 is warm-up and runs `ours` first: it creates the network `cli` joins.
            for r in range(rounds + 1):
                order = names[r % len(names) :] + names[: r % len(names)]
                for n in order:
                    ph: dict[str, list[float]] = {"create": [], "serve": [], "teardown": []}
                    wall = await _batch(runners[n], parent, k, n, ph)
                    if r > 0:
                        walls[n].append(wall)
                        for key, v in ph.items():
                            phases[n][key].extend(v)
                    print(f"  k={k:<3} round {r} {n:<8} {wall:7.2f} s", file=sys.stderr, flush=True)
            med = {n: median(walls[n]) for n in names}
            out[f"k{k}"] = {
                "concurrent": k,
                "rounds": rounds,
                "median_wall_s": {n: round(v, 3) for n, v in med.items()},
                "ratio_ours_vs_cli": round(med["ours"] / med["cli"], 3),
                "ratio_ours_vs_cli_bare": round(med["ours"] / med["cli-bare"], 3),
                "ratio_ours_vs_compose": (
                    round(med["ours"] / med["compose"], 3) if "compose" in med else None
                ),
                "phase_median_s": {
                    n: {key: round(median(v), 3) for key, v in phases[n].items()} for n in names
                },
                "wall_s": {n: [round(x, 3) for x in walls[n]] for n in names},
            }
        # The per-sweep network ours created; containers are gone (AutoRemove / rm -f).
        await anyio.run_process(["docker", "network", "rm", f"pwb-{SWEEP}"], check=False)
    return out


def main() -> int:
    global COMPOSE_CMD
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int, default=None, help="rounds at 1 concurrent")
    parser.add_argument("--many", type=int, default=None, help="concurrent instances (32)")
    args = parser.parse_args()
    many = args.many or (8 if args.quick else 32)
    rounds_one = args.rounds or (3 if args.quick else 7)
    rounds_many = 2 if args.quick else 3
    COMPOSE_CMD = compose_cmd()
    info = machine()
    with LoadSampler() as load:
        t0 = time.perf_counter()
        res = anyio.run(_main, rounds_one, rounds_many, many, backend="asyncio")
        took = time.perf_counter() - t0
    result = {
        "bench": "sandbox",
        "quick": args.quick,
        "machine": info,
        "loadavg_during": load.summary(),
        "compose_command": " ".join(COMPOSE_CMD) or "(none installed)",
        "targets": {"ours_vs_cli": 1.0, "ours_vs_compose": 0.5},
        "duration_s": round(took, 1),
        **res,
    }
    path = write_result("sandbox", result)
    for key in ("k1", f"k{many}"):
        r = res[key]
        m = r["median_wall_s"]
        line = "  ".join(f"{n} {v:.2f}s" for n, v in m.items())
        print(
            f"sandbox x{r['concurrent']:<3} {line}  ours/cli {r['ratio_ours_vs_cli']:.2f}"
            f"  ours/compose {r['ratio_ours_vs_compose']}"
        )
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
