"""The staged cell end to end: real Docker sandbox, real Chromium, offline solvers."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from orchestrator.budget import BudgetExceeded, cell_deadline
from orchestrator.cell import BaselineCache, CellContext, run_cell
from orchestrator.contract import TaskPackage, load_task
from orchestrator.events import Checkpoint, Edit, Pushback, read_events
from orchestrator.solvers import (
    NegativeSolver,
    NoopSolver,
    ReferenceSolver,
    SolverTurn,
    ThrashSolver,
    UserMessage,
    WorkspaceSolver,
)
from orchestrator.verifier import BrowserPool, BrowserVerifier
from orchestrator.workspace import Workspace, WorkspaceError
from sandbox import AdhocSweep, DockerBackend, Labels
from tests.fixtures.tinytask import make_tiny_task
from tests.sweeps import new_sweep

SWEEP = new_sweep("pytest-cell")  # unique; collected at the session end

pytestmark = [pytest.mark.anyio, pytest.mark.docker, pytest.mark.browser]
ROOT = Path(__file__).resolve().parents[2]


def ctx_for(task: TaskPackage, pool: BrowserPool, tmp: Path, name: str) -> CellContext:
    return CellContext(
        task=task,
        backend=DockerBackend(),
        verifier=BrowserVerifier(pool),
        browser=pool,
        cell_dir=tmp / name,
        labels=Labels(sweep=SWEEP, cell=name),
        baseline=BaselineCache(tmp / "baseline"),
    )


@pytest.fixture
def tiny(tmp_path: Path) -> TaskPackage:
    return load_task(make_tiny_task(tmp_path / "tasks", turns=2))


async def test_reference_clears_every_unit_at_its_first_checkpoint(
    require_docker: None, pool: BrowserPool, tiny: TaskPackage, tmp_path: Path
) -> None:
    report = await run_cell(ctx_for(tiny, pool, tmp_path, "ref"), ReferenceSolver(tiny))
    assert [(u.cleared, u.cleared_at) for u in report.result.units] == [
        (True, 1),
        (True, 2),
        (True, 3),
    ]
    assert report.result.scores.whole_task and report.result.scores.wcs == 1.0
    assert report.result.baseline_covered and report.result.baseline_regressions == ()
    for path in (tmp_path / "ref").rglob("*"):  # the grader's canary never reaches the cell
        if path.is_file() and ".git" not in path.parts:
            assert b"5b1f0c7e-pwb-grader-only" not in path.read_bytes(), path
    kinds = [e.kind for e in read_events(tmp_path / "ref" / "events.jsonl")]
    assert kinds[0] == "start" and kinds[-1] == "end"
    assert kinds.count("reveal") == 3 and kinds.count("cleared") == 3 and "final" in kinds


async def test_noop_clears_nothing_and_has_no_baseline_regression(
    require_docker: None, pool: BrowserPool, tiny: TaskPackage, tmp_path: Path
) -> None:
    report = await run_cell(ctx_for(tiny, pool, tmp_path, "noop"), NoopSolver())
    assert not any(u.cleared for u in report.result.units)
    assert all(
        u.capped and u.turns == 2 for u in report.result.units
    )  # the budget ran out; next unit ran
    assert report.result.baseline_covered and report.result.baseline_regressions == ()
    assert report.result.flips == () and not report.result.scores.whole_task
    events = read_events(tmp_path / "noop" / "events.jsonl")
    assert [e.unit for e in events if e.kind == "cap"] == ["u1", "u2", "u3"]
    pushback = next(e.text for e in events if isinstance(e, Pushback))
    assert "The greeting reads 'Welcome back'." in pushback  # grounded: describe + observed


async def test_thrash_flips_with_provenance_and_ends_clean(
    require_docker: None, pool: BrowserPool, tiny: TaskPackage, tmp_path: Path
) -> None:
    report = await run_cell(ctx_for(tiny, pool, tmp_path, "thrash"), ThrashSolver(tiny))
    flipped = {f.check: (f.passed_at, f.failed_at, f.repaired_at) for f in report.result.flips}
    # u1 cleared at checkpoint 1; thrash reverts during u2 (checkpoint 2); u3 restores (3).
    assert flipped == {"greeting-text": (1, 2, 3)}
    assert [u.cleared for u in report.result.units] == [True, False, True]
    assert report.result.scores.final_pass and not report.result.scores.whole_task
    assert report.result.scores.breaks == 1


async def test_negative_breaking_what_r0_passed_is_a_baseline_regression(
    require_docker: None, pool: BrowserPool, tiny: TaskPackage, tmp_path: Path
) -> None:
    report = await run_cell(
        ctx_for(tiny, pool, tmp_path, "neg"), NegativeSolver(tiny, "drop-about")
    )
    assert [b.gate for b in report.result.baseline_regressions] == ["navigation"]
    assert report.result.baseline_regressions[0].failed_checks == ("nav-entries",)


class _OutsideWriter(WorkspaceSolver):
    """Tries to write outside allowed paths, then does the work properly."""

    name = "outside-writer"

    def __init__(self) -> None:
        self.told: list[str] = []

    async def respond(self, message: UserMessage, workspace: Workspace) -> SolverTurn:
        try:
            await workspace.write_file("server.py", "import os")
        except WorkspaceError as exc:
            self.told.append(str(exc))
        html = await workspace.read_file("index.html")
        await workspace.write_file("index.html", html.replace(">Welcome<", ">Welcome back<"))
        return SolverTurn(end="edited")

    async def aclose(self) -> None:
        return None


async def test_writes_outside_allowed_paths_are_refused_and_the_solver_is_told(
    require_docker: None, pool: BrowserPool, tiny: TaskPackage, tmp_path: Path
) -> None:
    solver = _OutsideWriter()
    report = await run_cell(ctx_for(tiny, pool, tmp_path, "out"), solver)
    assert solver.told and "outside allowed paths" in solver.told[0]
    assert report.result.edits_refused >= 1 and report.result.units[0].cleared
    assert not (tmp_path / "out" / "workspace" / "server.py").exists()
    assert report.result.final_gates["scope"] == "pass"
    refused = [
        e
        for e in read_events(tmp_path / "out" / "events.jsonl")
        if isinstance(e, Edit) and e.applied is False
    ]
    assert refused and refused[0].path == "server.py"


async def test_admission_with_repeat_replays_the_reference_and_finds_no_flaky_check(
    require_docker: None, pool: BrowserPool, tiny: TaskPackage, tmp_path: Path
) -> None:
    from orchestrator.admission import Admitter

    result = await Admitter(
        DockerBackend(), pool, tmp_path / "adm", AdhocSweep(sweep=SWEEP, lock="")
    ).admit(tiny, repeat=2)
    assert result.admitted, result.controls
    assert result.flaky_checks == ()
    assert (tmp_path / "adm" / "tiny-shop" / "reference-1" / "events.jsonl").is_file()
    controls = {c.control: c for c in result.controls}
    assert "navigation" in controls["negative:drop-about"].failing_gates
    assert "text" in controls["r0"].failing_gates


class _Scripted(WorkspaceSolver):
    """Plays the reference for the first `ref_units` units, then calls `then`."""

    name = "scripted"

    def __init__(self, task: TaskPackage, ref_units: int, then: str) -> None:
        self._ref = ReferenceSolver(task)
        self._ref_units = ref_units
        self._then = then

    async def respond(self, message: UserMessage, workspace: Workspace) -> SolverTurn:
        if message.unit_index < self._ref_units:
            return await self._ref.respond(message, workspace)
        if self._then == "tokens":
            raise BudgetExceeded("tokens", "cell spent 900 of 800 tokens")
        if self._then == "hang":
            await anyio.sleep(3600)
        # "rework": do the rework's own change, but undo u1's greeting on the way.
        html = await workspace.read_file("index.html")
        html = html.replace("<li>Pears</li></ul>", "<li>Pears</li><li>Plums</li></ul>")
        await workspace.write_file("index.html", html.replace(">Welcome back<", ">Welcome<"))
        return SolverTurn(end="edited")

    async def aclose(self) -> None:
        return None


async def test_a_rework_clears_only_when_every_protected_check_passes_with_it(
    require_docker: None, pool: BrowserPool, tmp_path: Path
) -> None:
    root = make_tiny_task(tmp_path / "tasks", turns=1)
    toml = root / "task.toml"
    toml.write_text(toml.read_text().replace('id = "u3"\n', 'id = "u3"\nkind = "rework"\n'))
    task = load_task(root)
    assert task.contract.units[2].kind == "rework"
    report = await run_cell(ctx_for(task, pool, tmp_path, "rw"), _Scripted(task, 2, "rework"))
    events = read_events(tmp_path / "rw" / "events.jsonl")
    last = [e.checkpoint for e in events if isinstance(e, Checkpoint) and e.unit == "u3"][-1]
    assert last is not None
    own = {c.id: c.passed for c in last.checks}
    assert own["plums-listed"] and not own["greeting-text"]  # its own check passes...
    assert [u.cleared for u in report.result.units] == [True, True, False]  # ...it does not clear
    assert report.result.units[2].capped
    assert [f.check for f in report.result.flips] == ["greeting-text"]
    # The reference, which keeps every earlier stage, clears the same rework.
    ref = await run_cell(ctx_for(task, pool, tmp_path, "rw-ref"), ReferenceSolver(task))
    assert [u.cleared for u in ref.result.units] == [True, True, True]


async def test_a_budget_stop_still_gets_a_final_checkpoint_and_scores(
    require_docker: None, pool: BrowserPool, tiny: TaskPackage, tmp_path: Path
) -> None:
    report = await run_cell(ctx_for(tiny, pool, tmp_path, "tok"), _Scripted(tiny, 1, "tokens"))
    assert "tokens budget exceeded" in report.stopped
    assert [u.cleared for u in report.result.units] == [True, False, False]
    assert report.result.checkpoints == 2  # u1's, then the final one despite the stop
    assert (
        report.result.final_gates["text"] == "fail"
        and report.result.final_gates["navigation"] == "pass"
    )
    assert report.result.scores.stage == pytest.approx(1 / 3) and report.result.scores.wcs > 0
    kinds = [e.kind for e in read_events(tmp_path / "tok" / "events.jsonl")]
    assert kinds.index("budget") < kinds.index("final")


async def test_wall_time_stops_the_solver_and_the_grace_time_takes_the_final_checkpoint(
    require_docker: None, pool: BrowserPool, tiny: TaskPackage, tmp_path: Path
) -> None:
    ctx = ctx_for(tiny, pool, tmp_path, "wall")
    ctx.baseline = None
    with cell_deadline(20.0, grace_s=120.0):
        report = await run_cell(ctx, _Scripted(tiny, 1, "hang"))
    assert "wall_time budget exceeded" in report.stopped
    assert [u.cleared for u in report.result.units] == [True, False, False]
    assert report.result.checkpoints == 2 and report.result.final_gates["text"] == "fail"


async def test_literal_wording_reaches_the_solver(
    require_docker: None, pool: BrowserPool, tiny: TaskPackage, tmp_path: Path
) -> None:
    ctx = ctx_for(tiny, pool, tmp_path, "lit")
    ctx.wording, ctx.baseline = "literal", None
    seen: list[str] = []

    class Recorder(NoopSolver):
        async def respond(self, message: UserMessage, workspace: Workspace) -> SolverTurn:
            seen.append(message.text)
            return await super().respond(message, workspace)

    await run_cell(ctx, Recorder())
    assert seen[0] == f"Requirement 1 of 3:\n\n{tiny.contract.units[0].request.strip()}"
    assert any(t.startswith("These requirements are not met yet:") for t in seen)
