"""Gates that cannot fail here are not applicable: they neither pass nor fail Gate%."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from orchestrator.records import VerifyReport
from orchestrator.verifier import (
    BrowserPool,
    RunHealth,
    applicability,
    gate_results,
    run_health,
    verify,
)

from .conftest import check, make_task

pytestmark = [pytest.mark.anyio]


def _statuses(report: VerifyReport) -> dict[str, str]:
    return {g.gate: g.status for g in report.gates}


def test_static_stack_without_build_has_no_build_or_serve_gate(tmp_path: Path) -> None:
    task = make_task(tmp_path, [{"id": "home", "route": "/"}], [])
    kw = applicability(task.contract)
    assert kw == {"build_applicable": False, "serve_applicable": False}
    gates = {g.gate: g.status for g in gate_results(run_health(RunHealth(**kw)))}
    assert gates["build"] == "n/a" and gates["serve"] == "n/a" and gates["scope"] == "pass"
    reasons = {c.gate: c.observed for c in run_health(RunHealth(**kw))}
    assert "no install or build command" in reasons["build"]
    assert "static file server" in reasons["serve"]


def test_a_failure_of_an_inapplicable_gate_is_still_a_failure(tmp_path: Path) -> None:
    # A static server that did not come up failed; it is not waved through as n/a.
    down = RunHealth(build_applicable=False, serve_applicable=False, serve_ok=False)
    gates = {g.gate: g.status for g in gate_results(run_health(down))}
    assert gates["serve"] == "fail" and gates["build"] == "n/a"


def test_stacks_with_a_build_or_a_real_server_keep_both_gates(tmp_path: Path) -> None:
    task = make_task(tmp_path, [{"id": "home", "route": "/"}], [])
    vite = task.contract.serve.__class__(install="npm ci", build="npm run build", start="x")
    contract = task.contract.__class__(
        **{f: getattr(task.contract, f) for f in task.contract.__struct_fields__}
        | {"stack": "vite", "serve": vite}
    )
    assert applicability(contract) == {"build_applicable": True, "serve_applicable": True}
    gates = {
        g.gate: g.status for g in gate_results(run_health(RunHealth(**applicability(contract))))
    }
    assert gates["build"] == "pass" and gates["serve"] == "pass"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.browser
async def test_a_state_that_never_loads_fails_routes_and_its_health_is_not_applicable(
    pool: BrowserPool, tmp_path: Path
) -> None:
    task = make_task(
        tmp_path,
        [{"id": "home", "route": "/"}],
        [check("h1", "dom", "home", kind="exists", selector="h1")],
    )
    base = f"http://127.0.0.1:{_closed_port()}"  # nothing listens: navigation fails
    report = await verify(pool, task, base, health=RunHealth(**applicability(task.contract)))
    gates = _statuses(report)
    assert gates["routes"] == "fail" and gates["dom"] == "fail"
    for gate in ("layout_overflow", "console", "network", "assets"):
        assert gates[gate] == "n/a", gate
        c = report.check(f"{gate}@home")
        assert c is not None and not c.applicable and "did not load" in c.observed
    assert all(c.applicable for c in report.failed)
    assert {c.id for c in report.failed} == {"h1", "routes@home"}
