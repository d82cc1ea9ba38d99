"""`Checkpointer.run` without Docker or a browser (issue #35): what the sandbox's install,
build and serve results become in `RunHealth`, and when a checkpoint installs, builds
and (re)starts the server.

The sandbox is `tests.fakes.FakeSandbox` (its `install`/`build` fault point makes a
command fail); the workspace is a stand-in with a settable tree id; the verifier
records what it was asked and grades with the real `run_health`/`gate_results`.
"""

from __future__ import annotations

import dataclasses
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
import pytest

from orchestrator.checkpoint import Checkpointer, _exec_detail, _serve_detail
from orchestrator.contract import TaskPackage
from orchestrator.records import VerifyReport
from orchestrator.verifier import RunHealth, VerifyRequest
from orchestrator.verifier._core._gates import gate_results, run_health
from sandbox import ExecResult, ServeOutcome
from tests.fakes import CommandFails, FakeSandbox, FakeVerifierBase, Faults, Point
from tests.fixtures.staged import tiny_task

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> TaskPackage:
    return tiny_task(tmp_path_factory.mktemp("tasks"))


def _stack(
    task: TaskPackage,
    *,
    install: str = "npm ci",
    build: str = "npm run build",
    rebuild: bool = True,
    restart: bool = True,
    stack: str = "vite",
) -> TaskPackage:
    """The tiny task on a stack that installs, builds and serves a process."""
    serve = msgspec.structs.replace(
        task.contract.serve,
        install=install,
        build=build,
        rebuild_on_change=rebuild,
        restart_on_change=restart,
    )
    contract = msgspec.structs.replace(task.contract, serve=serve, stack=stack)
    return dataclasses.replace(task, contract=contract)


@dataclass
class Tree:
    """The two things a checkpoint reads from the workspace."""

    tree: str = "t1"
    violations: tuple[str, ...] = ()

    async def tree_id(self) -> str:
        return self.tree

    async def scope_violations(self) -> tuple[str, ...]:
        return self.violations


@dataclass
class Recorder(FakeVerifierBase):
    """The verifier: records each call, grades the run gates like the real one."""

    calls: list[dict[str, Any]] = field(default_factory=list)

    async def grade(self, request: VerifyRequest) -> VerifyReport:
        self.calls.append(
            {
                "base_url": request.base_url,
                "check_ids": request.check_ids,
                "health": request.health,
                "artifacts": request.artifacts,
                "workspace": request.workspace,
                "server": request.server,
            }
        )
        checks = run_health(request.health)
        return VerifyReport(checks=tuple(checks), gates=gate_results(checks))


class Serving(FakeSandbox):
    """FakeSandbox whose server answers with scripted outcomes (then ready)."""

    outcomes: list[ServeOutcome]

    async def serve(self) -> ServeOutcome:
        await super().serve()
        if self.outcomes:
            return self.outcomes.pop(0)
        return ServeOutcome(ready=True, base_url="http://fake.invalid/c")


def _faults(**fail: dict[int, CommandFails]) -> Faults:
    """`fail[point][n]`: the n-th call at that point fails with that command result."""

    def inject(point: Point, cell: str, n: int) -> BaseException | None:
        return fail.get(point, {}).get(n)

    return Faults(inject=inject)


def _cp(
    tmp: Path,
    task: TaskPackage,
    faults: Faults | None = None,
    serves: list[ServeOutcome] | None = None,
) -> tuple[Checkpointer, Recorder, Tree, Faults]:
    faults = faults or Faults()
    box = Serving(root=tmp, cell="c", faults=faults)
    box.outcomes = list(serves or [])
    rec, ws = Recorder(), Tree()
    cp = Checkpointer(task, ws, box, rec, tmp / "artifacts")  # type: ignore[arg-type]
    return cp, rec, ws, faults


def _n(faults: Faults, point: Point) -> int:
    return faults.calls[(point, "c")]


def _server_id(server: object) -> bool:
    """A fresh server id: 32 hex digits."""
    return isinstance(server, str) and re.fullmatch(r"[0-9a-f]{32}", server) is not None


def _gates(report: VerifyReport) -> dict[str, str]:
    """The run gates' verdicts (every other gate is n/a: no check ran)."""
    return {g.gate: g.status for g in report.gates if g.gate in ("build", "serve", "scope")}


# ------------------------------------------------------------------ the planted bug


async def test_a_failing_build_fails_the_build_gate_and_is_never_served(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    """Issue #35: the sandbox's build result must reach `RunHealth` (not always ok)."""
    out = "step 1\nstep 2\nstep 3\nstep 4\nsrc/App.tsx(3): error TS2304\nbuild failed\n"
    fails = CommandFails(out, command="npm run build", exit_code=2)
    cp, rec, _, faults = _cp(tmp_path, _stack(tiny), _faults(build={1: fails}))
    t0 = time.monotonic()
    index, report, seconds = await cp.run("u1", {"greeting-text"})
    elapsed = time.monotonic() - t0
    health = rec.calls[0]["health"]
    assert health == RunHealth(
        build_ok=False,
        build_detail="`npm run build` exited 2: step 2 | step 3 | step 4 | "
        "src/App.tsx(3): error TS2304 | build failed",
        serve_ok=False,
        serve_detail="not started: the build failed",
        build_applicable=True,
        serve_applicable=True,
    )
    assert _gates(report) == {"build": "fail", "serve": "fail", "scope": "pass"}
    # Not served, and nothing to replay against.
    assert _n(faults, "serve") == 0 and rec.calls[0]["base_url"] == ""
    assert index == 1 and 0 <= seconds <= elapsed
    assert _server_id(rec.calls[0]["server"])


async def test_a_build_that_times_out_fails_the_build_gate(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    fails = CommandFails("still bundling", command="npm run build", exit_code=0, timed_out=True)
    cp, rec, _, _ = _cp(tmp_path, _stack(tiny), _faults(build={1: fails}))
    _, report, _ = await cp.run("u1", None)
    health = rec.calls[0]["health"]
    assert not health.build_ok
    assert health.build_detail == "`npm run build` timed out: still bundling"
    assert _gates(report)["build"] == "fail"


async def test_a_failing_install_is_the_build_result_and_the_build_never_runs(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    fails = CommandFails("ERESOLVE", command="npm ci", exit_code=1)
    cp, rec, _, faults = _cp(tmp_path, _stack(tiny), _faults(install={1: fails}))
    _, report, _ = await cp.run("u1", None)
    health = rec.calls[0]["health"]
    assert (health.build_ok, health.build_detail) == (False, "`npm ci` exited 1: ERESOLVE")
    assert (health.serve_ok, health.serve_detail) == (False, "not started: the build failed")
    assert _n(faults, "build") == 0 and _n(faults, "serve") == 0
    assert _gates(report)["build"] == "fail"


async def test_a_healthy_checkpoint_passes_build_and_serve(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    cp, rec, ws, _ = _cp(tmp_path, _stack(tiny))
    ws.violations = ("server.py",)
    index, report, _ = await cp.run("u1", {"greeting-text"}, label="-final")
    call = rec.calls[0]
    assert call["health"] == RunHealth(scope_violations=("server.py",))
    assert call["base_url"] == "http://fake.invalid/c"
    assert call["check_ids"] == {"greeting-text"}
    assert call["artifacts"] == tmp_path / "artifacts" / "checkpoint-001-final"
    assert call["workspace"] is ws
    assert _gates(report) == {"build": "pass", "serve": "pass", "scope": "fail"}
    assert index == 1 == cp.count
    await cp.run("u2", None)
    assert rec.calls[-1]["artifacts"] == tmp_path / "artifacts" / "checkpoint-002"


async def test_applicability_comes_from_the_contract(tmp_path: Path, tiny: TaskPackage) -> None:
    cp, rec, _, _ = _cp(tmp_path, _stack(tiny, install="", build="", stack="static"))
    _, report, _ = await cp.run("u1", None)
    health = rec.calls[0]["health"]
    assert (health.build_applicable, health.serve_applicable) == (False, False)
    assert _gates(report) == {"build": "n/a", "serve": "n/a", "scope": "pass"}


# ------------------------------------------------------------------ when to (re)build


async def test_a_changed_tree_is_rebuilt_and_restarted_when_the_stack_needs_it(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    fails = CommandFails("boom", command="npm run build", exit_code=1)
    cp, rec, ws, faults = _cp(tmp_path, _stack(tiny), _faults(build={1: fails}))
    await cp.run("u1", None)
    first = rec.calls[-1]["server"]
    # The same tree: the failed build stands, nothing runs again.
    _, report, _ = await cp.run("u1", None)
    assert (_n(faults, "install"), _n(faults, "build"), _n(faults, "serve")) == (1, 1, 0)
    assert _gates(report)["build"] == "fail" and rec.calls[-1]["server"] == first
    # A new tree: installed, built and served again; the build passes now.
    ws.tree = "t2"
    index, report, _ = await cp.run("u2", None)
    assert (_n(faults, "install"), _n(faults, "build"), _n(faults, "serve")) == (2, 2, 1)
    assert _gates(report)["build"] == "pass" and _gates(report)["serve"] == "pass"
    served = rec.calls[-1]["server"]
    assert served not in ("", first) and index == 3
    # Unchanged again: no rebuild, no restart, the same server.
    await cp.run("u2", None)
    assert (_n(faults, "install"), _n(faults, "build"), _n(faults, "serve")) == (2, 2, 1)
    assert rec.calls[-1]["server"] == served
    assert rec.calls[-1]["base_url"] == "http://fake.invalid/c"


async def test_a_stack_that_never_rebuilds_builds_and_serves_once(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    cp, rec, ws, faults = _cp(tmp_path, _stack(tiny, rebuild=False, restart=False))
    await cp.run("u1", None)
    server = rec.calls[-1]["server"]
    ws.tree = "t2"
    await cp.run("u2", None)
    assert (_n(faults, "install"), _n(faults, "build"), _n(faults, "serve")) == (1, 1, 1)
    assert rec.calls[-1]["server"] == server != ""


async def test_a_restart_only_stack_restarts_without_rebuilding(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    cp, rec, ws, faults = _cp(tmp_path, _stack(tiny, rebuild=False, restart=True))
    await cp.run("u1", None)
    server = rec.calls[-1]["server"]
    ws.tree = "t2"
    await cp.run("u2", None)
    assert (_n(faults, "install"), _n(faults, "build"), _n(faults, "serve")) == (1, 1, 2)
    assert rec.calls[-1]["server"] != server


async def test_a_rebuild_only_stack_rebuilds_without_restarting(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    cp, rec, ws, faults = _cp(tmp_path, _stack(tiny, rebuild=True, restart=False))
    await cp.run("u1", None)
    server = rec.calls[-1]["server"]
    ws.tree = "t2"
    await cp.run("u2", None)
    assert (_n(faults, "install"), _n(faults, "build"), _n(faults, "serve")) == (2, 2, 1)
    # A rebuilt bundle is a new server as far as replay reuse is concerned.
    assert _server_id(rec.calls[-1]["server"]) and rec.calls[-1]["server"] != server


async def test_a_server_that_was_not_ready_is_started_again(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    down = ServeOutcome(ready=False, base_url="", detail="port 5173 never answered")
    cp, rec, _, faults = _cp(tmp_path, _stack(tiny, restart=False), serves=[down])
    _, report, _ = await cp.run("u1", None)
    health = rec.calls[-1]["health"]
    assert (health.serve_ok, health.serve_detail) == (False, "port 5173 never answered")
    assert health.build_ok and rec.calls[-1]["base_url"] == ""
    assert _gates(report)["serve"] == "fail"
    first = rec.calls[-1]["server"]
    # The same tree, but the server was down: started again (a new server).
    _, report, _ = await cp.run("u1", None)
    assert _n(faults, "serve") == 2 and _gates(report)["serve"] == "pass"
    assert rec.calls[-1]["server"] != first


async def test_the_sandbox_is_checked_alive_before_and_after_each_checkpoint(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    cp, _, _, faults = _cp(tmp_path, _stack(tiny))
    await cp.run("u1", None)
    await cp.run("u1", None)
    assert _n(faults, "alive") == 4


# ------------------------------------------------------------------ the details


def test_exec_detail_names_the_command_how_it_ended_and_the_last_five_lines() -> None:
    lines = "\n".join(f"l{i}" for i in range(8))
    done = ExecResult(command="make", exit_code=3, output_tail=f"  {lines}\n\n", duration_s=1.0)
    assert _exec_detail(done) == "`make` exited 3: l3 | l4 | l5 | l6 | l7"
    late = ExecResult(command="make", exit_code=0, output_tail="x", duration_s=1, timed_out=True)
    assert _exec_detail(late) == "`make` timed out: x"


def test_serve_detail() -> None:
    built = ExecResult(command="make", exit_code=1, output_tail="", duration_s=0.0)
    assert _serve_detail(None, built) == "not started: the build failed"
    assert _serve_detail(None, None) == "not started"
    up = ServeOutcome(ready=True, base_url="http://x", detail="log line")
    assert _serve_detail(up, None) == ""
    down = ServeOutcome(ready=False, base_url="", detail="crashed")
    assert _serve_detail(down, None) == "crashed"
