"""The staged loop's rules in milliseconds (issue #18): whole cells through `run_cell`
with a fake sandbox and a scripted site behind the Verifier Protocol, so each rule —
clearing, reworks, flips, the baseline channel, budget stops — is checked against a
verdict we choose, with no Docker and no browser.

The site: every check reads the work tree. A unit check passes once `fix:<id>` is in
it; a preservation check passes from R0 on; `break:<id>` fails either. The solver
writes those markers to `css/state.css`, one script line per turn.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Collection
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import msgspec
import pytest

from orchestrator.budget import BudgetExceeded
from orchestrator.cell import BaselineCache, CellContext, run_cell
from orchestrator.cell._context import CellReport
from orchestrator.contract import TaskPackage, load_task
from orchestrator.faults import TaskProblem
from orchestrator.records import BaselineRegression, Flip
from orchestrator.results import CheckResult, VerifyReport
from orchestrator.solvers import SolverTurn, UserMessage
from orchestrator.verifier import BrowserPool, RunHealth
from orchestrator.verifier._gates import gate_results, run_health
from orchestrator.workspace import Workspace
from sandbox import Labels, Limits, Sandbox, ServeSpec
from tests.fakes import FakeSandbox, Faults
from tests.fixtures.tinytask import make_tiny_task

pytestmark = pytest.mark.anyio

# The tiny task: u1 greeting-text, u2 about-tagline, u3 plums-listed (stages);
# nav-entries and items-order are preservation checks (no unit owns them).
G, A, P, NAV = "greeting-text", "about-tagline", "plums-listed", "nav-entries"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@dataclass
class Site:
    """Backend + verifier: sandboxes are the work tree; checks read it."""

    name: str = "local"
    roots: dict[str, Path] = field(default_factory=dict)
    calls: list[tuple[str, frozenset[str] | None]] = field(default_factory=list)
    r0_down: bool = False  # the baseline sandbox's server never comes up

    @asynccontextmanager
    async def open(
        self, workspace: Path, spec: ServeSpec, labels: Labels, limits: Limits | None = None
    ) -> AsyncIterator[Sandbox]:
        self.roots[labels.cell] = workspace
        yield FakeSandbox(root=workspace, cell=labels.cell, faults=Faults())

    async def verify(
        self,
        task: TaskPackage,
        base_url: str,
        *,
        check_ids: Collection[str] | None,
        health: RunHealth,
        artifacts: Path | None,
        workspace: object = None,
    ) -> VerifyReport:
        cell = base_url.rsplit("/", 1)[-1]
        self.calls.append((cell, None if check_ids is None else frozenset(check_ids)))
        text = "".join(
            p.read_text(errors="replace")
            for p in sorted(self.roots[cell].rglob("*"))
            if p.is_file()
        )
        preserved = set(task.contract.preservation_check_ids())
        checks = [
            CheckResult(
                id=c.id,
                gate=c.gate,
                state=c.state,
                passed=f"break:{c.id}" not in text and (c.id in preserved or f"fix:{c.id}" in text),
                message=c.describe,
            )
            for c in task.contract.checks
            if check_ids is None or c.id in check_ids
        ]
        if self.r0_down and cell.endswith("-baseline"):
            health = RunHealth(serve_ok=False, serve_detail="down")
        checks += run_health(health) if check_ids is None else []
        return VerifyReport(checks=tuple(checks), gates=gate_results(checks))


class Scripted:
    """One script line per turn: markers to write (None: no edit) and how the turn ends.
    After the script: `done` without an edit. `raise_at`: turn number that hits a budget."""

    name = "scripted"

    def __init__(self, *lines: tuple[str | None, str], raise_at: int = 0) -> None:
        self.lines = list(lines)
        self.raise_at = raise_at
        self.turns = 0
        self.messages: list[UserMessage] = []

    async def respond(self, message: UserMessage, workspace: Workspace) -> SolverTurn:
        self.turns += 1
        self.messages.append(message)
        if self.turns == self.raise_at:
            raise BudgetExceeded("tokens", "scripted")
        markers, end = self.lines.pop(0) if self.lines else (None, "done")
        if markers is not None:
            await workspace.write_file("css/state.css", f"/* {markers} */\n")
        return SolverTurn(end=end, question="What wording?" if end == "question" else "")  # type: ignore[arg-type]

    async def aclose(self) -> None:
        return None


def _fix(*ids: str, brk: tuple[str, ...] = ()) -> str:
    return " ".join([*(f"fix:{i}" for i in ids), *(f"break:{i}" for i in brk)])


_TASKS: dict[Path, TaskPackage] = {}


def tiny_task(parent: Path) -> TaskPackage:
    """The tiny task, built once per folder (building it runs git 16 times)."""
    if parent not in _TASKS:
        _TASKS[parent] = load_task(make_tiny_task(parent, turns=3))
    return _TASKS[parent]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> TaskPackage:
    return tiny_task(tmp_path_factory.mktemp("tasks"))


def _task(task: TaskPackage, turns: int = 3, rework: bool = False) -> TaskPackage:
    units = tuple(
        msgspec.structs.replace(u, kind="rework") if rework and u.id == "u2" else u
        for u in task.contract.units
    )
    contract = msgspec.structs.replace(task.contract, units=units, turns_per_unit=turns)
    return dataclasses.replace(task, contract=contract)


async def _cell(
    tmp: Path,
    solver: Scripted,
    task: TaskPackage,
    *,
    site: Site | None = None,
    baseline: bool = False,
    arm: str = "staged",
) -> CellReport:
    site = site or Site()
    ctx = CellContext(
        task=task,
        backend=site,
        pool=BrowserPool(),  # never entered: the site verifies
        cell_dir=tmp / "cell",
        labels=Labels(sweep="s", cell="c"),
        baseline=BaselineCache(tmp / "baseline") if baseline else None,
        verifier=site,
    )
    return await run_cell(ctx, solver, arm)  # type: ignore[arg-type]


def _units(report: CellReport) -> list[tuple[str, bool, bool, int, int | None]]:
    return [(u.id, u.cleared, u.capped, u.turns, u.cleared_at) for u in report.result.units]


# ---------------------------------------------------------------- clearing


async def test_each_stage_clears_at_the_checkpoint_its_checks_pass(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    solver = Scripted((_fix(G), "done"), (_fix(G, A), "done"), (_fix(G, A, P), "done"))
    r = await _cell(tmp_path, solver, tiny)
    assert _units(r) == [
        ("u1", True, False, 1, 1),
        ("u2", True, False, 1, 2),
        ("u3", True, False, 1, 3),
    ]
    res = r.result
    assert res.checkpoints == 4 and res.turns == 3 and res.flips == ()
    assert res.scores.stage == 1.0 and res.scores.final_pass and res.scores.whole_task
    assert res.scores.wcs == 1.0 and res.edits_applied == 3 and res.edits_refused == 0
    # Each unit is revealed with its own request, id and index; checkpoints name the unit.
    assert [(m.kind, m.unit_id, m.unit_index) for m in solver.messages] == [
        ("reveal", "u1", 0),
        ("reveal", "u2", 1),
        ("reveal", "u3", 2),
    ]
    assert "greeting" in solver.messages[0].text and "1999" in solver.messages[1].text
    assert [h.unit for h in r.history] == ["u1", "u2", "u3", ""]


async def test_a_stage_that_never_passes_is_capped_after_its_turns(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    solver = Scripted(("nothing", "edited"), ("still", "edited"), ("no", "done"), (_fix(A), "done"))
    r = await _cell(tmp_path, solver, tiny)
    assert _units(r)[0] == ("u1", False, True, 3, None)
    assert _units(r)[1] == ("u2", True, False, 1, 4)
    assert r.result.scores.stage == pytest.approx(1 / 3)
    assert not r.result.scores.whole_task and not r.result.scores.final_pass
    # Pushback names the failing check after each failed checkpoint.
    assert [m.kind for m in solver.messages[:3]] == ["reveal", "pushback", "pushback"]
    assert "Welcome back" in solver.messages[1].text


async def test_a_stage_clears_on_its_own_checks_while_a_protected_one_is_broken(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    solver = Scripted((_fix(G), "done"), (_fix(A), "done"), (_fix(A, P), "done"))
    r = await _cell(tmp_path, solver, tiny)
    assert _units(r) == [
        ("u1", True, False, 1, 1),
        ("u2", True, False, 1, 2),
        ("u3", True, False, 1, 3),
    ]


async def test_rework_clears_only_with_every_protected_check(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    # u2 is a rework: its own check passing is not enough while u1's (protected) check is
    # broken, where a stage would clear. Preservation checks are not part of its rule (a
    # later Build stage may create what they describe): a broken one does not block it.
    solver = Scripted(
        (_fix(G), "done"),
        (_fix(A), "done"),
        (_fix(G, A, brk=(NAV,)), "done"),
        (_fix(G, A, P), "done"),
    )
    r = await _cell(tmp_path, solver, _task(tiny, rework=True))
    assert _units(r) == [
        ("u1", True, False, 1, 1),
        ("u2", True, False, 2, 3),
        ("u3", True, False, 1, 4),
    ]
    assert [u.kind for u in r.result.units] == ["stage", "rework", "stage"]


async def test_rework_that_never_restores_a_protected_check_is_capped(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    solver = Scripted(
        (_fix(G), "done"), (_fix(A), "done"), (_fix(A), "edited"), (_fix(A, P), "done")
    )
    r = await _cell(tmp_path, solver, _task(tiny, turns=2, rework=True))
    assert _units(r)[1] == ("u2", False, True, 2, None)
    # u2's second turn left the tree as it was: no checkpoint, so u3 clears at the third.
    assert _units(r)[2] == ("u3", True, False, 1, 3)


async def test_checkpoints_verify_the_unit_protected_and_preservation_checks(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    site = Site()
    await _cell(tmp_path, Scripted((_fix(G), "done"), (_fix(G, A), "done")), tiny, site=site)
    preservation = {NAV, "items-order"}
    assert site.calls[0] == ("c", frozenset({G} | preservation))
    assert site.calls[1] == ("c", frozenset({G, A} | preservation))
    assert site.calls[-1] == ("c", None)  # the final checkpoint runs every check


async def test_no_checkpoint_without_a_change_unless_the_solver_is_done(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    site = Site()
    solver = Scripted((None, "question"), (None, "edited"), (None, "idle"), (None, "done"))
    r = await _cell(tmp_path, solver, _task(tiny, turns=4), site=site)
    # u1: a question and an unchanged tree make no checkpoint; the first `idle` on an
    # unverified tree does; a `done` on the same tree does not.
    assert len([c for c in site.calls if c[1] is not None and G in c[1]]) == 1
    assert _units(r)[0] == ("u1", False, True, 4, None)
    kinds = [m.kind for m in solver.messages[:4]]
    assert kinds == ["reveal", "answer", "pushback", "pushback"]
    assert "not there yet" not in solver.messages[1].text  # nothing verified yet
    assert "not there yet" not in solver.messages[2].text
    assert "not there yet" in solver.messages[3].text  # after the `idle` checkpoint


# ---------------------------------------------------------------- flips


async def test_a_protected_check_that_breaks_is_a_flip_with_provenance(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    solver = Scripted((_fix(G), "done"), (_fix(A), "done"), (_fix(G, A, P), "done"))
    r = await _cell(tmp_path, solver, tiny)
    assert r.result.flips == (Flip(check=G, gate="text", passed_at=1, failed_at=2, repaired_at=3),)
    assert r.result.scores.breaks == 1 and not r.result.scores.whole_task
    assert r.result.scores.wcs == pytest.approx(1.0 - 0.05)


async def test_a_preservation_check_that_breaks_is_a_flip(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    solver = Scripted((_fix(G), "done"), (_fix(G, A, brk=(NAV,)), "done"), (_fix(G, A, P), "done"))
    r = await _cell(tmp_path, solver, tiny)
    assert r.result.flips == (
        Flip(check=NAV, gate="navigation", passed_at=1, failed_at=2, repaired_at=3),
    )


async def test_a_check_of_a_unit_not_yet_cleared_does_not_flip(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    # A passes by accident during u1, then breaks before u2 arms it: no flip.
    solver = Scripted((_fix(G, A), "done"), (_fix(G), "edited"), (_fix(G, A), "done"))
    r = await _cell(tmp_path, solver, tiny)
    assert r.result.flips == ()


# ---------------------------------------------------------------- baseline channel


async def test_baseline_channel_reports_a_gate_r0_passes_and_the_final_breaks(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    solver = Scripted((_fix(G), "done"), (_fix(G, A), "done"), (_fix(G, A, P, brk=(NAV,)), "done"))
    r = await _cell(tmp_path, solver, tiny, baseline=True)
    res = r.result
    assert res.baseline_covered
    assert res.baseline_regressions == (
        BaselineRegression(gate="navigation", failed_checks=(NAV,)),
    )
    assert res.final_gates["navigation"] == "fail"
    clean_lines = ((_fix(G), "done"), (_fix(G, A), "done"), (_fix(G, A, P), "done"))
    clean = await _cell(tmp_path / "clean", Scripted(*clean_lines), tiny, baseline=True)
    assert clean.result.baseline_covered and clean.result.baseline_regressions == ()


async def test_baseline_channel_is_silent_when_off_and_r0_down_is_a_task_problem(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    lines = ((_fix(G), "done"), (_fix(G, A), "done"), (_fix(G, A, P, brk=(NAV,)), "done"))
    off = await _cell(tmp_path / "off", Scripted(*lines), tiny)
    assert not off.result.baseline_covered and off.result.baseline_regressions == ()
    # An R0 that cannot serve: the task's problem, never graded as the solver's.
    with pytest.raises(TaskProblem, match="R0 cannot serve"):
        await _cell(
            tmp_path / "down", Scripted(*lines), tiny, site=Site(r0_down=True), baseline=True
        )


# ---------------------------------------------------------------- budget stops


async def test_budget_stop_keeps_the_final_checkpoint_and_scores_what_was_delivered(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    solver = Scripted((_fix(G), "done"), (_fix(G, P), "edited"), raise_at=3)
    r = await _cell(tmp_path, solver, tiny)
    assert r.stopped == "tokens budget exceeded: scripted" and r.stopped_by == "tokens"
    # u1 cleared; u2 was under way when the budget ran out; u3 never reached (its check
    # passes in the final tree, but it never cleared at a checkpoint).
    assert _units(r) == [
        ("u1", True, False, 1, 1),
        ("u2", False, False, 0, None),
        ("u3", False, False, 0, None),
    ]
    assert r.result.checkpoints == 3  # u1, u2's edit, the final one
    assert r.result.final_gates["text"] == "fail" and r.result.final_gates["dom"] == "pass"
    assert r.result.scores.stage == pytest.approx(1 / 3) and not r.result.scores.final_pass


async def test_full_spec_clears_units_on_the_final_checkpoint_only(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    site = Site()
    solver = Scripted((_fix(G, P), "edited"), (None, "done"))
    r = await _cell(tmp_path, solver, tiny, site=site, arm="full-spec")
    assert [(u.id, u.cleared) for u in r.result.units] == [
        ("u1", True),
        ("u2", False),
        ("u3", True),
    ]
    assert [c[1] for c in site.calls] == [None]  # one checkpoint: the final one
    assert all(u.turns == 2 for u in r.result.units)
