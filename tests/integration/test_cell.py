"""The staged cell end to end: real Docker sandbox, real Chromium, offline solvers."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.cell import BaselineCache, CellContext, run_cell
from orchestrator.contract import TaskPackage, load_task
from orchestrator.events import read_events
from orchestrator.solvers import (
    NegativeSolver,
    NoopSolver,
    ReferenceSolver,
    SolverTurn,
    ThrashSolver,
    UserMessage,
)
from orchestrator.verifier import BrowserPool
from orchestrator.workspace import Workspace, WorkspaceError
from sandbox import DockerBackend, Labels
from tests.fixtures.tinytask import make_tiny_task

pytestmark = [pytest.mark.anyio, pytest.mark.docker, pytest.mark.browser]
ROOT = Path(__file__).resolve().parents[2]


def ctx_for(task: TaskPackage, pool: BrowserPool, tmp: Path, name: str) -> CellContext:
    return CellContext(
        task=task,
        backend=DockerBackend(),
        pool=pool,
        cell_dir=tmp / name,
        labels=Labels(sweep="pytest-cell", cell=name),
        baseline=BaselineCache(tmp / "baseline"),
    )


@pytest.fixture
def tiny(tmp_path: Path) -> TaskPackage:
    return load_task(make_tiny_task(tmp_path / "tasks", turns=2))


async def test_reference_clears_every_unit_at_its_first_checkpoint(
    require_docker: None, pool: BrowserPool, tiny: TaskPackage, tmp_path: Path
) -> None:
    report = await run_cell(ctx_for(tiny, pool, tmp_path, "ref"), ReferenceSolver(tiny))
    assert [(u.cleared, u.cleared_at) for u in report.units] == [(True, 1), (True, 2), (True, 3)]
    assert report.scores.whole_task and report.scores.wcs == 1.0
    assert report.baseline_covered and report.baseline_regressions == ()
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
    assert not any(u.cleared for u in report.units)
    assert all(u.capped and u.turns == 2 for u in report.units)  # the budget ran out; next unit ran
    assert report.baseline_covered and report.baseline_regressions == ()
    assert report.flips == () and not report.scores.whole_task
    events = read_events(tmp_path / "noop" / "events.jsonl")
    assert [e.unit for e in events if e.kind == "cap"] == ["u1", "u2", "u3"]
    pushback = next(e.text for e in events if e.kind == "pushback")
    assert "The greeting reads 'Welcome back'." in pushback  # grounded: describe + observed


async def test_thrash_flips_with_provenance_and_ends_clean(
    require_docker: None, pool: BrowserPool, tiny: TaskPackage, tmp_path: Path
) -> None:
    report = await run_cell(ctx_for(tiny, pool, tmp_path, "thrash"), ThrashSolver(tiny))
    flipped = {f.check: (f.passed_at, f.failed_at, f.repaired_at) for f in report.flips}
    # u1 cleared at checkpoint 1; thrash reverts during u2 (checkpoint 2); u3 restores (3).
    assert flipped == {"greeting-text": (1, 2, 3)}
    assert [u.cleared for u in report.units] == [True, False, True]
    assert report.scores.final_pass and not report.scores.whole_task
    assert report.scores.breaks == 1


async def test_negative_breaking_what_r0_passed_is_a_baseline_regression(
    require_docker: None, pool: BrowserPool, tiny: TaskPackage, tmp_path: Path
) -> None:
    report = await run_cell(
        ctx_for(tiny, pool, tmp_path, "neg"), NegativeSolver(tiny, "drop-about")
    )
    assert [b.gate for b in report.baseline_regressions] == ["navigation"]
    assert report.baseline_regressions[0].failed_checks == ("nav-entries",)


class _OutsideWriter:
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
    assert report.edits_refused >= 1 and report.units[0].cleared
    assert not (tmp_path / "out" / "workspace" / "server.py").exists()
    assert report.final_gates["scope"] == "pass"
    refused = [
        e
        for e in read_events(tmp_path / "out" / "events.jsonl")
        if e.kind == "edit" and e.applied is False
    ]
    assert refused and refused[0].path == "server.py"


async def test_admission_with_repeat_replays_the_reference_and_finds_no_flaky_check(
    require_docker: None, pool: BrowserPool, tiny: TaskPackage, tmp_path: Path
) -> None:
    from orchestrator.admission import Admitter

    result = await Admitter(DockerBackend(), pool, tmp_path / "adm", "pytest-admit").admit(
        tiny, repeat=2
    )
    assert result.admitted, result.controls
    assert result.flaky_checks == ()
    assert (tmp_path / "adm" / "tiny-shop" / "reference-1" / "events.jsonl").is_file()
    controls = {c.control: c for c in result.controls}
    assert "navigation" in controls["negative:drop-about"].failing_gates
    assert "text" in controls["r0"].failing_gates
