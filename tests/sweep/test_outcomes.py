"""Every failure lands in its class: whole cells through the sweep's attempt and the
scheduler, with a fake sandbox and a fake verifier at their Protocol seams."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from orchestrator import events as ev
from orchestrator.events import read_events
from orchestrator.llm import ProviderOutage
from orchestrator.records import HarnessError, ManifestRow
from orchestrator.solvers import SolverTurn, UserMessage, WorkspaceSolver
from orchestrator.sweep import SweepResources
from orchestrator.verifier import VerifierInfraError
from orchestrator.workspace import Workspace
from sandbox import ContainerError
from tests.fakes import Injector, Point
from tests.fixtures.cellsweep import cell_sweep

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class _BreaksWorkTree(WorkspaceSolver):
    """A solver whose work tree can no longer be read back (here: it moved it away; a
    scaffold agent with a shell can do worse). Its own doing, so it is its result."""

    name = "breaks-work-tree"

    async def respond(self, message: UserMessage, workspace: Workspace) -> SolverTurn:
        workspace.root.rename(workspace.root.with_name("elsewhere"))
        return SolverTurn(end="done")

    async def aclose(self) -> None:
        return None


def _at(point: Point, exc: BaseException, *, calls: tuple[int, ...] = (1,)) -> Injector:
    return lambda p, cell, n: exc if p == point and n in calls else None


def _errors(res: SweepResources, row: ManifestRow) -> list[ev.Error]:
    events = read_events(res.cell_dir(row.cell) / "events.jsonl")
    return [e for e in events if isinstance(e, ev.Error)]


def test_healthy_fakes_give_ok_with_checkpoint_durations(tmp_path: Path) -> None:
    rows, res = cell_sweep(tmp_path, lambda p, c, n: None)
    assert [(r.status, r.attempts, r.backend) for r in rows] == [("ok", 1, "")]
    assert rows[0].result is not None and rows[0].result.scores.whole_task
    events = read_events(res.cell_dir(rows[0].cell) / "events.jsonl")
    cps = [e.checkpoint for e in events if isinstance(e, ev.Checkpoint)]
    assert len(cps) == rows[0].result.checkpoints and all(c.duration_s > 0 for c in cps)


def test_a_misspelled_event_field_cannot_be_written() -> None:
    with pytest.raises(TypeError, match="unitt"):
        ev.Turn(unitt="u1", turn=1)  # type: ignore[call-arg]


def test_docker_timeout_in_serve_is_infra_retried_not_budget(tmp_path: Path) -> None:
    # What aiodocker raises when the daemon is slow: asyncio.TimeoutError.
    rows, res = cell_sweep(tmp_path, _at("serve", TimeoutError()))
    assert [(r.status, r.attempts) for r in rows] == [("ok", 2)]
    assert [e.cause for e in _errors(res, rows[0])] == ["infra"]


def test_sandbox_error_every_attempt_ends_infra_error(tmp_path: Path) -> None:
    rows, _ = cell_sweep(tmp_path, _at("open", ContainerError("gone"), calls=(1, 2, 3)))
    assert [(r.status, r.attempts) for r in rows] == [("infra_error", 3)]
    assert "ContainerError: gone" in rows[0].error


def test_solver_that_breaks_its_work_tree_is_its_own_ok_result(tmp_path: Path) -> None:
    rows, res = cell_sweep(tmp_path, lambda p, c, n: None, solver=_BreaksWorkTree())
    (row,) = rows
    assert (row.status, row.attempts) == ("ok", 1)  # graded, never retried or excluded
    assert row.result is not None and "work tree" in row.result.broken
    assert not row.result.scores.whole_task and row.result.final_gates["scope"] == "fail"
    assert not any(u.cleared for u in row.result.units)
    kinds = [e.kind for e in read_events(res.cell_dir(row.cell) / "events.jsonl")]
    assert "broken" in kinds


def test_a_bug_inside_an_exception_group_is_a_harness_error_not_retried_infra(
    tmp_path: Path,
) -> None:
    group = ExceptionGroup(
        "verify", [VerifierInfraError("browser gone"), KeyError("bug in a gate")]
    )
    rows, res = cell_sweep(tmp_path, _at("verify", group))
    (row,) = rows
    assert (row.status, row.attempts) == ("harness_error", 1)
    assert isinstance(row.outcome, HarnessError) and row.outcome.error.startswith("KeyError")
    assert row.outcome.log == f"cells/{row.cell.replace('/', '__')}/events.jsonl"
    logged = _errors(res, row)
    assert sorted(e.cause for e in logged) == ["harness", "infra"]  # every member logged
    assert all(e.traceback for e in logged)


def test_infra_only_exception_group_is_retried(tmp_path: Path) -> None:
    group = ExceptionGroup("tg", [VerifierInfraError("a"), ContainerError("b")])
    rows, res = cell_sweep(tmp_path, _at("verify", group))
    assert [(r.status, r.attempts) for r in rows] == [("ok", 2)]
    assert sorted(e.cause for e in _errors(res, rows[0])) == ["infra", "infra"]


def test_unexpected_exception_in_one_of_8_cells_gives_8_rows_1_harness_error(
    tmp_path: Path,
) -> None:
    def inject(point: Point, cell: str, n: int) -> BaseException | None:
        return RuntimeError("bug") if point == "serve" and cell.endswith("/3") else None

    rows, res = cell_sweep(tmp_path, inject, repeats=8)
    assert len(rows) == 8 and len({r.cell for r in rows}) == 8
    assert Counter(r.status for r in rows) == Counter({"ok": 7, "harness_error": 1})
    (bad,) = [r for r in rows if r.status == "harness_error"]
    assert bad.cell.endswith("/3") and bad.attempts == 1
    (logged,) = _errors(res, bad)
    assert logged.cause == "harness" and "RuntimeError: bug" in logged.traceback


def test_an_unknown_stack_is_a_permanent_task_problem_not_retried(tmp_path: Path) -> None:
    from sandbox import UnknownStack

    rows, _ = cell_sweep(
        tmp_path, _at("open", UnknownStack("no stack image 'cobol'"), calls=(1, 2))
    )
    assert [(r.status, r.attempts) for r in rows] == [("task_error", 1)]
    assert rows[0].error.startswith("task package:")


def test_daemon_loss_waits_for_the_daemon_then_retries(tmp_path: Path) -> None:
    """A lost daemon (socket gone: aiodocker asserts, translated) costs an attempt, and
    the retry waits for the daemon, boundedly, instead of 0.5 s."""
    from sandbox import BackendUnavailable

    waited: list[float] = []

    async def fake_wait(self: SweepResources) -> None:
        waited.append(self.daemon_wait_s)

    original = SweepResources._await_daemon
    SweepResources._await_daemon = fake_wait  # type: ignore[method-assign]
    try:
        rows, _ = cell_sweep(tmp_path, _at("open", BackendUnavailable("no Docker daemon socket")))
    finally:
        SweepResources._await_daemon = original  # type: ignore[method-assign]
    assert [(r.status, r.attempts) for r in rows] == [("ok", 2)]
    assert waited == [90.0]


class _AgentInOutage(WorkspaceSolver):
    """A scaffold agent whose calls the gateway held past the outage bound (#16)."""

    name = "agent-in-outage"

    async def respond(self, message: UserMessage, workspace: Workspace) -> SolverTurn:
        return SolverTurn(end="done")

    async def aclose(self) -> None:
        return None

    def verdict(self) -> ProviderOutage:
        return ProviderOutage("provider 'p': outage longer than the 900 s pause bound")


def test_an_agent_held_through_an_outage_ends_outage_for_resume_not_llm_error(
    tmp_path: Path,
) -> None:
    rows, _ = cell_sweep(tmp_path, lambda *a: None, solver=_AgentInOutage())
    assert [r.status for r in rows] == ["outage"], [(r.status, r.error) for r in rows]
    assert "pause bound" in (rows[0].error or "")
