"""The `ray` engine (issue #22) on a real two-node Ray cluster on this machine.

The cluster (`ray.cluster_utils.Cluster`): a head for the driver (no cell capacity) and
two worker nodes, each declaring its own `pwb_cells` / browser contexts / sandbox starts;
each node's `CellNode` actor opens its own backend and Chromium. Cells run on the local
sandbox backend with offline solvers (reference, noop) or the fake LLM provider.
"""

from __future__ import annotations

import os
import secrets
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest

from orchestrator.config import (
    BenchConfig,
    ScaffoldConfig,
    SolverConfig,
    SweepConfig,
    load_config,
)
from orchestrator.contract import load_task
from orchestrator.events import Agent, Baseline, Checkpoint, Error, read_events
from orchestrator.gateway import RequestRecord
from orchestrator.llm import ProviderConfig
from orchestrator.records import FINAL_STATUSES, ManifestRow, cell_dir_name, read_rows
from orchestrator.sweep import SweepOptions, default_cache, run_sweep, staging_root
from orchestrator.workspace import PROMPT_FILE
from sandbox import collect_garbage, lock_held
from tests.fixtures.bench import ROOT, bench, cli
from tests.fixtures.raycluster import add_worker, start_head
from tests.fixtures.tinytask import make_tiny_task

ray = pytest.importorskip("ray") if os.environ.get("CI") != "true" else __import__("ray")


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    c = start_head()
    workers = [add_worker(c), add_worker(c)]
    c.wait_for_nodes()
    ray.init(address=c.address, include_dashboard=False, log_to_driver=False)
    try:
        yield c, workers
    finally:
        ray.shutdown()
        c.shutdown()


def _ray(path: Path) -> Any:
    cfg = load_config(path)
    sweep = msgspec.structs.replace(cfg.sweep, engine="ray")
    return msgspec.structs.replace(cfg, sweep=sweep)


def _same(a: ManifestRow, b: ManifestRow) -> dict[str, Any]:
    """A row without what differs between two runs of the same cell."""
    d: dict[str, Any] = msgspec.to_builtins(a)
    timing = ("started_at", "finished_at", "wall_s", "baseline_wait_s")
    for key in ("sweep", *timing, "attempts"):
        d.pop(key, None)
    return d


@pytest.mark.browser
@pytest.mark.anyio
async def test_rows_equal_a_single_host_sweep(
    require_chromium: None, cluster: Any, tmp_path: Path
) -> None:
    config = bench(tmp_path, repeats=3, concurrency=4)
    config.write_text(config.read_text().replace("baseline = false", "baseline = true"))
    local_cfg = load_config(config)
    local = (
        await run_sweep(local_cfg, SweepOptions(run_dir=tmp_path / "a", progress="quiet"))
    ).rows
    out = await run_sweep(_ray(config), SweepOptions(run_dir=tmp_path / "b", progress="quiet"))
    run_dir, rows = out.run_dir, out.rows
    on_disk = read_rows(run_dir / "manifest.jsonl")
    assert len(rows) == len(on_disk) == 3
    assert Counter(r.cell for r in on_disk) == Counter(
        f"tiny-shop/reference/staged/{i}" for i in range(3)
    )
    assert {r.status for r in on_disk} == {"ok"}
    by_cell = {r.cell: r for r in local}
    for r in on_disk:
        assert r.scores is not None and r.scores.whole_task, _failed_checks(run_dir, r.cell)
        assert _same(r, by_cell[r.cell]) == _same(by_cell[r.cell], by_cell[r.cell])
        # the cell's events came back into the driver's run directory
        cell = cell_dir_name(r.cell)
        events = run_dir / "cells" / cell / "events.jsonl"
        assert events.exists() and read_events(events)
        # and its final work tree, as a patch: on R0 it gives the single-host cell's tree
        here = tmp_path / "tasks" / "tiny-shop" / "repo"
        assert _applied(here, run_dir / "cells" / cell / "workspace.patch", tmp_path / cell) == (
            _files((tmp_path / "a" / "cells" / cell / "workspace").resolve())
        )
        assert _files(tmp_path / cell) != _files(here)  # the reference solver changed it
    # `--resume` on the cluster: the nodes start from the run's baseline cache. A planted
    # R0 verdict there is what the re-run cell reports (a node verifying R0 again would
    # report R0's real one).
    [cached] = (run_dir / "baseline").glob("*.json")
    real = msgspec.json.decode(cached.read_bytes())
    planted = {**real["gates"], "console": "n/a" if real["gates"]["console"] != "n/a" else "fail"}
    cached.write_bytes(msgspec.json.encode({**real, "gates": planted}))
    manifest = run_dir / "manifest.jsonl"
    *kept, dropped = manifest.read_bytes().splitlines(keepends=True)
    manifest.write_bytes(b"".join(kept))
    cell = msgspec.json.decode(dropped)["cell"]
    await run_sweep(_ray(config), SweepOptions(run_dir=run_dir, resume=True, progress="quiet"))
    assert len(read_rows(manifest)) == 3
    resumed = read_events(run_dir / "cells" / cell_dir_name(cell) / "events.jsonl")
    assert [e.gates for e in resumed if isinstance(e, Baseline)][-1] == planted


def _failed_checks(run_dir: Path, cell: str) -> list[str]:
    """What each checkpoint of a cell failed, for the message of a cell that did not clear."""
    events = read_events(run_dir / "cells" / cell_dir_name(cell) / "events.jsonl")
    return [
        f"checkpoint {e.checkpoint.index} ({e.checkpoint.unit or 'final'}): {c.id} "
        f"observed {c.observed!r} {c.message}"
        for e in events
        if isinstance(e, Checkpoint)
        for c in e.checkpoint.checks
        if not c.passed and c.applicable
    ]


def _files(root: Path) -> dict[str, bytes]:
    """Every file of a work tree by path, as the harness snapshots it (no prompt file)."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != PROMPT_FILE
    }


def _applied(r0: Path, patch: Path, dest: Path) -> dict[str, bytes]:
    """R0 copied to `dest` with `patch` applied (`git apply`, outside any repository)."""
    shutil.copytree(r0, dest)
    subprocess.run(["git", "apply", "--binary", str(patch)], cwd=dest, check=True)
    return _files(dest)


def _staged(run_name: str) -> list[Path]:
    """The cells the worker nodes are staging for the sweep of run directory `run_name`
    (a sweep id is `<run dir name>-<hex>`): `<staging>/<sweep>/cells/<cell>`."""
    return list(staging_root().glob(f"{run_name}-*/cells/*"))


def _unique(tmp_path: Path) -> Path:
    return tmp_path / f"run-{secrets.token_hex(4)}"


def _can_unshare() -> bool:
    done = subprocess.run(["unshare", "-m", "true"], capture_output=True)
    return done.returncode == 0


@pytest.mark.full
@pytest.mark.browser
def test_cells_come_back_to_a_run_directory_no_node_can_see(
    require_chromium: None, cluster: Any, tmp_path: Path
) -> None:
    """No shared filesystem: the driver's run directory is a tmpfs mounted in the
    driver's own mount namespace, so no node can write into it (a node writing to that
    path would write into the directory under the mount, which stays empty). The nodes
    stage each cell on their own disk; its events and artifacts come back through Ray into
    the driver's run directory, and the nodes' staging is gone after the sweep."""
    if not _can_unshare():
        if os.environ.get("CI") == "true":
            pytest.fail("unshare -m is not permitted here (needs CAP_SYS_ADMIN)")
        pytest.skip("unshare -m is not permitted here")
    c, _ = cluster
    config = bench(tmp_path, repeats=4, concurrency=4)
    private = tmp_path / "private"
    private.mkdir()
    name = f"nofs-{secrets.token_hex(4)}"
    run_dir = private / name
    copied = tmp_path / "copied"
    driver = shlex.join(_driver(config, c.address, "--run-dir", str(run_dir)))
    script = (
        f"mount -t tmpfs tmpfs {shlex.quote(str(private))} || exit 99; {driver}; rc=$?;"
        f" cp -a {shlex.quote(str(run_dir))} {shlex.quote(str(copied))}; exit $rc"
    )
    log = tmp_path / "driver.log"
    with log.open("w") as f:
        proc = subprocess.Popen(
            ["unshare", "-m", "--propagation", "private", "sh", "-c", script],
            cwd=ROOT,
            stdout=f,
            stderr=subprocess.STDOUT,
        )
    staged: set[str] = set()
    deadline = time.monotonic() + 400
    while proc.poll() is None and time.monotonic() < deadline:
        staged |= {p.name for p in _staged(name) if (p / "events.jsonl").exists()}
        time.sleep(0.1)
    if proc.poll() is None:
        proc.kill()
    assert proc.wait() == 0, log.read_text()[-3000:]
    assert list(private.iterdir()) == []  # no node wrote where the driver's run dir is
    rows = read_rows(copied / "manifest.jsonl")
    cells = Counter(f"tiny-shop/reference/staged/{i}" for i in range(4))
    assert Counter(r.cell for r in rows) == cells
    assert {r.status for r in rows} == {"ok"}, [r.error for r in rows]
    for r in rows:
        cell = copied / "cells" / cell_dir_name(r.cell)
        kinds = [type(e).__name__ for e in read_events(cell / "events.jsonl")]
        assert kinds[0] == "Start" and kinds[-1] == "End", kinds
        shots = list((cell / "artifacts").glob("checkpoint-*/states/*.png"))
        assert shots, sorted(p.name for p in cell.rglob("*"))
        assert not (cell / "workspace").is_symlink()  # a node path: not shipped
    # The nodes staged the cells on their own disk (seen while they ran), then removed it.
    assert staged == {cell_dir_name(r.cell) for r in rows}, staged
    assert not list(staging_root().glob(f"{name}-*"))


def _hosts() -> dict[str, tuple[int, list[str]]]:
    """The live node hosts: name -> (process id, open sessions)."""
    out = {}
    for entry in ray.util.list_named_actors(all_namespaces=True):
        if entry["name"].startswith("pwb-node-"):
            try:
                host = ray.get_actor(entry["name"], namespace=entry["namespace"])
                out[entry["name"]] = ray.get([host.pid.remote(), host.open_sessions.remote()])
            except Exception:  # a host of a removed node, not yet forgotten
                continue
    return {k: (v[0], v[1]) for k, v in out.items()}


@pytest.mark.full
@pytest.mark.browser
@pytest.mark.anyio
async def test_sweeps_reuse_the_node_hosts(
    require_chromium: None, cluster: Any, tmp_path: Path
) -> None:
    """A sweep against a running cluster reuses the node hosts (their processes, with
    the harness imported) a previous sweep started, one per worker node, and leaves no
    session open on them."""
    config = bench(tmp_path, repeats=2, concurrency=2)
    first = (
        await run_sweep(_ray(config), SweepOptions(run_dir=tmp_path / "a", progress="quiet"))
    ).rows
    hosts = _hosts()
    workers = {n["NodeID"] for n in ray.nodes() if n["Alive"] and "pwb_cells" in n["Resources"]}
    assert {name.rsplit("-", 1)[1] for name in hosts} == workers, hosts
    assert all(not sessions for _, sessions in hosts.values()), hosts
    second = (
        await run_sweep(_ray(config), SweepOptions(run_dir=tmp_path / "b", progress="quiet"))
    ).rows
    assert {r.status for r in first + second} == {"ok"}
    assert _hosts() == hosts  # the same processes, nothing left open


@pytest.mark.full
@pytest.mark.browser
@pytest.mark.anyio
async def test_nodes_run_cells_from_their_package_cache(
    require_chromium: None, cluster: Any, tmp_path: Path
) -> None:
    """Task packages travel by contract hash: the nodes run every cell from their own
    cache (`<cache>/<contract_hash>/<task>/`), not from the driver's tasks_dir, which is
    moved away as soon as the first cell has started; cells reading the driver's copy
    would then fail."""
    config = bench(tmp_path, repeats=6, concurrency=4)
    tasks = tmp_path / "tasks"
    package = load_task(tasks / "tiny-shop")
    run_dir = _unique(tmp_path)

    async def move_tasks_away() -> None:
        while not _staged(run_dir.name):
            await anyio.sleep(0.05)
        tasks.rename(tmp_path / "tasks-gone")

    async with anyio.create_task_group() as tg:
        tg.start_soon(move_tasks_away)
        rows = (await run_sweep(_ray(config), SweepOptions(run_dir=run_dir, progress="quiet"))).rows
    assert not tasks.exists()
    on_disk = read_rows(run_dir / "manifest.jsonl")
    assert len(rows) == len(on_disk) == 6
    assert {r.status for r in on_disk} == {"ok"}, [r.error for r in on_disk]
    assert all(r.scores is not None and r.scores.whole_task for r in on_disk)
    cached = default_cache() / package.contract_hash / "tiny-shop"
    assert load_task(cached).contract_hash == package.contract_hash


def _llm_bench(tmp: Path, repeats: int, extra: str = "") -> Path:
    return bench(
        tmp,
        repeats=repeats,
        concurrency=repeats,
        solver="fake-llm",
        kind="llm",
        solver_extra='provider = "fake"',
        extra=extra,
        turns=3,
    )


@pytest.mark.full
@pytest.mark.browser
@pytest.mark.anyio
async def test_money_cap_holds_cluster_wide(
    require_chromium: None, cluster: Any, tmp_path: Path
) -> None:
    """A cap no node reaches alone but the cluster does: only one ledger for the whole
    cluster stops the sweep, at the cap plus the documented in-flight overshoot, and
    LLM calls stop on both nodes.

    4 cells on 2 nodes of 2 slots each: 2 cells per node. One full cell's spend is
    measured first (one uncapped cell on one host); the cap is 2.4 cells' worth, so a
    node alone (2 cells) stays under it, the cluster (4 cells) passes it. The run's
    `ledger.jsonl` shows every charge with its node, in the order the ledger took them."""
    (calib,) = (
        await run_sweep(
            load_config(_llm_bench(tmp_path / "calib", 1)),
            SweepOptions(run_dir=tmp_path / "calib" / "run", progress="quiet"),
        )
    ).rows
    assert calib.status == "ok", calib.error
    cap = 2.4 * calib.spend.cost_usd
    config = _llm_bench(tmp_path / "sweep", 4, extra=f"max_usd = {cap}")
    out = await run_sweep(
        _ray(config), SweepOptions(run_dir=tmp_path / "sweep" / "run", progress="quiet")
    )
    run_dir, rows = out.run_dir, out.rows
    on_disk = read_rows(run_dir / "manifest.jsonl")
    assert len(rows) == len(on_disk) == 4 == len({r.cell for r in on_disk})
    charges = _charges(run_dir)
    spent = sum(r.spend.cost_usd for r in on_disk)
    assert spent == pytest.approx(sum(c["usd"] for c in charges))  # rows = the ledger
    by_node = Counter[str]()
    for c in charges:
        by_node[c["node"]] += c["usd"]
    assert len(by_node) == 2 and all(v < cap for v in by_node.values()), (by_node, cap)
    # The cluster's total stops at the cap: past it by at most the requests in flight,
    # one per running cell, as on one host. Per-node ledgers would stop no cell and let
    # the cells charge on, 4 cells' worth in all.
    total, crossed = 0.0, -1
    for i, c in enumerate(charges):
        total += c["usd"]
        if total >= cap:
            crossed = i
            break
    assert crossed >= 8, (crossed, len(charges))  # the cap is many requests, not one
    after = charges[crossed + 1 :]
    assert len(after) <= 3 and len({c["cell"] for c in after}) == len(after), after
    assert cap <= spent <= cap + 4 * max(c["usd"] for c in charges), (spent, cap)
    # LLM calls stopped on both nodes: cells on each were stopped by the cap mid-run.
    stopped = {r.cell for r in on_disk if r.status == "budget" and r.attempts > 0}
    assert all("money budget exceeded" in r.error for r in on_disk if r.cell in stopped), on_disk
    nodes_stopped = {c["node"] for c in charges if c["cell"] in stopped}
    assert nodes_stopped == set(by_node), (stopped, by_node)


def _charges(run_dir: Path) -> list[dict[str, Any]]:
    lines = (run_dir / "ledger.jsonl").read_text().splitlines()
    return [msgspec.json.decode(line) for line in lines]


# A stand-in CLI agent (stdlib Python; the local backend runs it as a host process): it
# calls the model through its gateway every 0.1 s and never stops on its own.
STANDIN = r"""
import json, os, time, urllib.error, urllib.request
def call():
    body = json.dumps({"model": "pwb-fake", "messages": [{"role": "user", "content": "hi"}]})
    req = urllib.request.Request(os.environ["BASE"] + "/chat/completions", data=body.encode(),
        headers={"authorization": "Bearer " + os.environ["TOKEN"],
                 "content-type": "application/json"})
    try:
        return urllib.request.urlopen(req, timeout=30).status
    except urllib.error.HTTPError as exc:
        return exc.code
while True:
    print("call", call(), flush=True)
    time.sleep(0.1)
"""


@pytest.mark.full
@pytest.mark.browser
@pytest.mark.anyio
async def test_scaffold_gateways_on_every_node_share_the_cluster_cap(
    require_chromium: None, cluster: Any, tmp_path: Path
) -> None:
    """The scaffold arm: each node's metering gateway charges the one cluster ledger as
    calls happen, and once the cluster's cap is reached every node's gateway refuses."""
    tasks = tmp_path / "tasks"
    make_tiny_task(tasks)
    fake = ProviderConfig(
        name="fake", kind="fake", model="pwb-fake", price_in_per_mtok=10.0, price_out_per_mtok=10.0
    )
    standin = SolverConfig(
        name="standin",
        kind="scaffold",
        provider="fake",
        scaffold=ScaffoldConfig(
            command=(sys.executable, "-c", STANDIN),
            env={"BASE": "{openai_base_url}", "TOKEN": "{token}"},
            stop_grace_s=1.0,
        ),
    )
    cap = 0.004
    cfg = BenchConfig(
        sweep=SweepConfig(
            name="ray-gateway",
            runs_dir=str(tmp_path / "runs"),
            tasks_dir=str(tasks),
            arms=("full-spec",),
            repeats=4,  # 2 per node
            concurrency=4,
            engine="ray",
            backend="local",
            baseline=False,
            infra_retries=0,
            max_usd=cap,
        ),
        providers=(fake,),
        solvers=(standin,),
    )
    out = await run_sweep(cfg, SweepOptions(run_dir=tmp_path / "run", progress="quiet"))
    run_dir, rows = out.run_dir, out.rows
    on_disk = read_rows(run_dir / "manifest.jsonl")
    assert len(rows) == len(on_disk) == 4 == len({r.cell for r in on_disk})
    # Every agent (both nodes) was stopped by the sweep's cap, none ran out of time.
    assert {r.status for r in on_disk} == {"budget"}, [r.error for r in on_disk]
    calls: list[RequestRecord] = []
    for r in on_disk:
        events = read_events(run_dir / "cells" / cell_dir_name(r.cell) / "events.jsonl")
        runs = [e.run for e in events if isinstance(e, Agent)]
        assert runs and runs[-1].killed, r.cell
        mine = [c for run in runs for c in run.requests if not c.refused]
        # The row carries what its node's gateway metered (settled from the cluster ledger).
        assert r.spend.cost_usd == pytest.approx(sum(c.cost_usd for c in mine)), r.cell
        assert any(c.refused and c.status == 429 for run in runs for c in run.requests)
        calls += mine
    # The cap took several calls to reach (it is not one call's worth) ...
    calls.sort(key=lambda c: c.t)  # a record's `t` is when the call was answered and metered
    total, crossed = 0.0, -1
    for i, c in enumerate(calls):
        total += c.cost_usd
        if total >= cap:
            crossed = i
            break
    assert crossed >= 8, (crossed, [c.cost_usd for c in calls[:3]])
    # ... and once it was reached, only calls already in flight went through on any node:
    # none started after the crossing call was metered (per-node ledgers would go on to
    # about twice the cap).
    at = calls[crossed].t
    late = [c for c in calls[crossed + 1 :] if c.t - c.duration_s > at + 0.5]
    assert not late, (len(calls), crossed, late[:3])
    assert len(calls) - crossed - 1 <= 3, (len(calls), crossed)
    spent = sum(r.spend.cost_usd for r in on_disk)
    assert cap <= spent <= cap + 4 * max(c.cost_usd for c in calls)
    # Both nodes' gateways charged the cluster ledger, and both were stopped.
    charges = _charges(run_dir)
    assert spent == pytest.approx(sum(c["usd"] for c in charges))
    assert len({c["node"] for c in charges}) == 2


@pytest.mark.full
@pytest.mark.browser
@pytest.mark.anyio
async def test_worker_node_lost_mid_sweep_retries_its_cells(
    require_chromium: None, cluster: Any, tmp_path: Path
) -> None:
    c, workers = cluster
    config = bench(tmp_path, repeats=6, concurrency=4, turns=3)
    run_dir = _unique(tmp_path)

    async def kill_one_node() -> None:
        while len(_staged(run_dir.name)) < 4:
            await anyio.sleep(0.1)
        await anyio.sleep(0.5)  # both nodes are mid-cell
        victim = workers.pop(0)
        await anyio.to_thread.run_sync(c.remove_node, victim)

    async with anyio.create_task_group() as tg:
        tg.start_soon(kill_one_node)
        rows = (await run_sweep(_ray(config), SweepOptions(run_dir=run_dir, progress="quiet"))).rows
    workers.append(add_worker(c))  # leave two workers for later tests
    on_disk = read_rows(run_dir / "manifest.jsonl")
    assert len(rows) == len(on_disk) == 6  # one row per cell, no retry wrote a row
    assert Counter(r.cell for r in on_disk) == Counter(
        f"tiny-shop/reference/staged/{i}" for i in range(6)
    )
    assert {r.status for r in on_disk} == {"ok"}, [r.error for r in on_disk]
    retried = [r for r in on_disk if r.attempts > 1]
    assert retried, "no cell was mid-flight on the lost node"
    for r in retried:
        events = read_events(run_dir / "cells" / cell_dir_name(r.cell) / "events.jsonl")
        lost = [e for e in events if isinstance(e, Error) and "lost mid-cell" in e.error]
        assert lost and lost[0].cause == "infra"


def _driver(config: Path, address: str, *extra: str) -> list[str]:
    """The sweep's driver as a user runs it, against the test's cluster."""
    return [*cli(config, "--engine", "ray", "--ray-address", address), *extra]


@pytest.mark.full
@pytest.mark.docker
@pytest.mark.browser
def test_sigint_cancels_remote_docker_cells_and_resume_finishes_them(
    require_docker: None, require_chromium: None, cluster: Any, tmp_path: Path
) -> None:
    """Ctrl-C on the driver: the cells running on the worker nodes are cancelled and
    their containers removed there, the driver exits 130 with a valid manifest, as on one
    host; `--resume` then runs the cells to the end on the cluster: real Docker sandboxes
    verified by real Chromium on the worker nodes."""
    c, _ = cluster
    config = bench(
        tmp_path, repeats=2, concurrency=2, backend="docker", solver="noop", kind="noop", turns=3
    )
    run_dir = _unique(tmp_path)
    proc = subprocess.Popen(
        _driver(config, c.address, "--run-dir", str(run_dir)),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if running := _containers(run_dir.name):
            break
        time.sleep(0.5)
    else:
        proc.kill()
        pytest.fail(f"the sweep never started a container: {proc.communicate()[1][-2000:]}")
    # A node's sandboxes carry its session's lock, on the node's own disk, held while the
    # session is open: `gc` on that node keeps them (the driver's lock is not the node's).
    for _, lock in running.values():
        assert Path(lock).parent.parent == staging_root(), running
        assert lock_held(lock), running
    for sweep in {sweep for sweep, _ in running.values()}:  # `gc --sweep` of the node's own
        removed = anyio.run(partial(collect_garbage, sweep=sweep), backend="asyncio")
        assert [r for r in removed if r.kind == "container"] == [], removed
    os.kill(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=90)
    assert proc.returncode == 130, err[-2000:]
    assert "resume with:" in out
    assert _containers(run_dir.name) == {}  # removed on their nodes, not left to the TTL
    rows = read_rows(run_dir / "manifest.jsonl")
    cells = Counter(f"tiny-shop/noop/staged/{i}" for i in range(2))
    assert Counter(r.cell for r in rows) == cells
    assert "cancelled" in {r.status for r in rows}
    # What the cancelled attempts wrote on their nodes came back when their sessions
    # closed: their events (begun on the node) and their work trees, as on one host.
    for r in rows:
        cell = run_dir / "cells" / cell_dir_name(r.cell)
        kinds = [type(e).__name__ for e in read_events(cell / "events.jsonl")]
        assert kinds and kinds[0] == "Start", (r.cell, r.status, kinds)
        assert (cell / "workspace.patch").is_file(), sorted(p.name for p in cell.iterdir())
    assert not list(staging_root().glob(f"{run_dir.name}-*"))
    done = subprocess.run(
        _driver(config, c.address, "--resume", str(run_dir)),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    final = [r for r in read_rows(run_dir / "manifest.jsonl") if r.status in FINAL_STATUSES]
    assert Counter(r.cell for r in final) == cells
    assert {r.status for r in final} == {"ok"} and {r.backend for r in final} == {"docker"}
    assert all(r.result is not None and r.result.units for r in final)
    assert _containers(run_dir.name) == {}


# A static file server for the test's own stack-`vite` task (no python3 needed).
SERVE_JS = """
const http = require("http"), fs = require("fs"), path = require("path");
http.createServer((req, res) => {
  let p = decodeURIComponent(req.url.split("?")[0]);
  if (p.endsWith("/")) p += "index.html";
  fs.readFile(path.join(__dirname, path.normalize(p)), (err, data) => {
    if (err) { res.writeHead(404); res.end(); return; }
    res.writeHead(200, {"content-type": p.endsWith(".html") ? "text/html" : "text/plain"});
    res.end(data);
  });
}).listen(Number(process.env.PORT), "0.0.0.0");
"""


def _task_on_its_own_image(tasks: Path, nonce: str) -> None:
    """The tiny task on stack `vite` with a package.json of its own: its task image
    (`pwb-task-vite:<hash>`, the stack image plus the repo's dependencies) has a content
    hash no other test or run shares, so it does not exist until a node builds it."""
    root = tasks / "tiny-shop"
    toml = (root / "task.toml").read_text()
    toml = toml.replace('stack = "static"', 'stack = "vite"')
    toml = toml.replace(
        'start = "python3 -m http.server $PORT --bind 0.0.0.0"', 'start = "node serve.js"'
    )
    (root / "task.toml").write_text(toml)
    (root / "repo" / "serve.js").write_text(SERVE_JS)
    package = {"name": "tiny-shop", "private": True, "description": f"ray test {nonce}"}
    (root / "repo" / "package.json").write_text(msgspec.json.encode(package).decode())


def _images(repo: str) -> set[str]:
    ls = subprocess.run(
        ["docker", "images", repo, "--format", "{{.Repository}}:{{.Tag}}"],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(ls.stdout.split())


@pytest.mark.full
@pytest.mark.docker
@pytest.mark.browser
@pytest.mark.anyio
async def test_a_docker_cell_on_the_cluster_builds_its_image_on_the_node(
    require_docker: None, require_chromium: None, cluster: Any, tmp_path: Path
) -> None:
    """A plain Docker cell on the cluster: its node builds the task image on first use,
    named by content hash, and the rows are a single-host sweep's, image tag included (the
    single-host sweep after it finds the node's image by the same hash)."""
    config = bench(tmp_path, repeats=2, concurrency=2, backend="docker")
    _task_on_its_own_image(tmp_path / "tasks", secrets.token_hex(8))
    before = _images("pwb-task-vite")
    image = ""
    try:
        out = await run_sweep(
            _ray(config), SweepOptions(run_dir=_unique(tmp_path), progress="quiet")
        )
        run_dir, rows = out.run_dir, out.rows
        on_disk = read_rows(run_dir / "manifest.jsonl")
        assert len(rows) == len(on_disk) == 2
        assert Counter(r.cell for r in on_disk) == Counter(
            f"tiny-shop/reference/staged/{i}" for i in range(2)
        )
        assert {r.status for r in on_disk} == {"ok"}, [r.error for r in on_disk]
        assert {r.backend for r in on_disk} == {"docker"}
        (image,) = {r.image for r in on_disk}
        assert image.startswith("pwb-task-vite:") and image not in before, (image, before)
        assert image in _images("pwb-task-vite")  # built by a node: the driver builds none
        local = (
            await run_sweep(
                load_config(config), SweepOptions(run_dir=tmp_path / "local", progress="quiet")
            )
        ).rows
        by_cell = {r.cell: r for r in local}
        for r in on_disk:
            assert r.scores is not None and r.scores.whole_task
            assert _same(r, by_cell[r.cell]) == _same(by_cell[r.cell], by_cell[r.cell])
    finally:
        if image.startswith("pwb-task-vite:") and image not in before:  # this test's own
            subprocess.run(["docker", "rmi", image], capture_output=True)


def _containers(run_name: str) -> dict[str, tuple[str, str]]:
    """The containers of the sweeps of run directory `run_name` on this host's daemon:
    id -> their `pwb.sweep` and `pwb.lock` labels."""
    ps = subprocess.run(
        [
            "docker",
            "ps",
            "-a",
            "--filter",
            "label=pwb.sweep",
            "--format",
            '{{.ID}}\t{{.Label "pwb.sweep"}}\t{{.Label "pwb.lock"}}',
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    rows = [line.split("\t") for line in ps.stdout.splitlines() if line.strip()]
    return {r[0]: (r[1], r[2]) for r in rows if r[1].startswith(f"{run_name}-")}


@pytest.mark.full
@pytest.mark.browser
def test_driver_killed_mid_sweep_then_resume_loses_and_duplicates_nothing(
    require_chromium: None, cluster: Any, tmp_path: Path
) -> None:
    """SIGKILL of the driver (its actors die with it): `--resume` on the cluster finishes
    the sweep exactly as on one host, one final row per cell."""
    c, _ = cluster
    config = bench(tmp_path, repeats=5, concurrency=4)
    run_dir = tmp_path / "run"
    proc = subprocess.Popen(
        _driver(config, c.address, "--run-dir", str(run_dir)),
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    manifest = run_dir / "manifest.jsonl"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and proc.poll() is None:
        if manifest.exists() and read_rows(manifest):
            break
        time.sleep(0.2)
    proc.kill()  # SIGKILL: no cleanup of any kind
    proc.wait()
    # The node hosts outlive the driver; each closes the dead driver's session (its cells
    # cancelled, its resources closed) once its ledger is gone with the driver.
    deadline = time.monotonic() + 60
    while any(sessions for _, sessions in _hosts().values()):
        assert time.monotonic() < deadline, _hosts()
        time.sleep(0.5)
    before = read_rows(manifest)
    assert 1 <= len(before) < 5, len(before)  # killed mid-sweep
    done = subprocess.run(
        _driver(config, c.address, "--resume", str(run_dir)),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    rows = read_rows(manifest)
    final = Counter(r.cell for r in rows if r.status in FINAL_STATUSES)
    assert final == Counter(f"tiny-shop/reference/staged/{i}" for i in range(5))
    kept = {r.cell: r for r in rows if r.status in FINAL_STATUSES}
    for r in before:  # what finished before the kill was kept, not run again
        if r.status in FINAL_STATUSES:
            assert kept[r.cell] == r


@pytest.mark.full
@pytest.mark.docker
def test_gc_runs_on_every_worker_node(require_docker: None, cluster: Any, tmp_path: Path) -> None:
    """`gc --engine ray` runs gc on each worker node (each its own Docker daemon on a real
    cluster; here they share this host's): a dead sweep's network is removed, and every
    worker node reports."""
    c, _ = cluster
    sweep = f"raygc-{os.getpid()}-{time.monotonic_ns() % 100000}"
    lock = tmp_path / ".lock"
    lock.touch()  # nobody holds it: the sweep is dead
    subprocess.run(
        [
            "docker",
            "network",
            "create",
            "--label",
            f"pwb.sweep={sweep}",
            "--label",
            f"pwb.lock={lock}",
            f"pwb-{sweep}",
        ],
        check=True,
        capture_output=True,
    )
    workers = {
        n["NodeID"][:12] for n in ray.nodes() if n.get("Alive") and "pwb_cells" in n["Resources"]
    }
    try:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "orchestrator",
                "gc",
                "--engine",
                "ray",
                "--ray-address",
                c.address,
                "--sweep",
                sweep,
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        reported = {
            line.split()[1].rstrip(":")
            for line in done.stdout.splitlines()
            if line.startswith("node ") and line.endswith(" removed")
        }
        assert reported == workers, done.stdout
        assert f"network   pwb-{sweep}" in done.stdout, done.stdout
        left = subprocess.run(
            ["docker", "network", "ls", "-q", "--filter", f"label=pwb.sweep={sweep}"],
            capture_output=True,
            text=True,
        )
        assert left.stdout.split() == []
    finally:
        subprocess.run(["docker", "network", "rm", f"pwb-{sweep}"], capture_output=True)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
