"""The staged loop's rules in milliseconds (issue #18): whole cells through `run_cell`
with a fake sandbox and a scripted site behind the Verifier Protocol, so each rule —
clearing, reworks, flips, the baseline channel, budget stops — is checked against a
verdict we choose, with no Docker and no browser.

The site (`tests/fixtures/staged.py`): every check reads the work tree. A unit check
passes once `fix:<id>` is in it; a preservation check passes from R0 on; `break:<id>`
fails either. The solver writes those markers to `css/state.css`, one script line per
turn.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import msgspec
import pytest

from orchestrator.budget import cell_deadline
from orchestrator.cell import BaselineCache, CellContext, CellReport, run_cell
from orchestrator.cell._baseline import BaselineResult, baseline_key
from orchestrator.cell._staged import _how, summarize
from orchestrator.contract import Faq, TaskPackage
from orchestrator.events import Edit, EventLog, Pushback, read_events
from orchestrator.faults import TaskProblem
from orchestrator.persona import NOT_SPECIFIED, SimulatedUser
from orchestrator.records import BaselineRegression, CheckResult, Flip, StateRun, VerifyReport
from orchestrator.scoring import Weights
from orchestrator.solvers import CellBinding, SolverTurn, Usage, UserMessage
from orchestrator.verifier._core._gates import gate_results
from orchestrator.workspace import Workspace
from sandbox import Labels
from tests.fakes import FakeSandbox
from tests.fixtures.staged import NAV, A, G, P, Scripted, Site, fix, tiny_task

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


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
    **options: Any,
) -> CellReport:
    site = site or Site()
    ctx = CellContext(
        task=task,
        backend=site,
        cell_dir=tmp / "cell",
        labels=Labels(sweep="s", cell="c"),
        baseline=BaselineCache(tmp / "baseline") if baseline else None,
        verifier=site,
        **options,
    )
    return await run_cell(ctx, solver, arm)  # type: ignore[arg-type]


def _units(report: CellReport) -> list[tuple[str, bool, bool, int, int | None]]:
    return [(u.id, u.cleared, u.capped, u.turns, u.cleared_at) for u in report.result.units]


# ---------------------------------------------------------------- clearing


async def test_each_stage_clears_at_the_checkpoint_its_checks_pass(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    solver = Scripted((fix(G), "done"), (fix(G, A), "done"), (fix(G, A, P), "done"))
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
    assert res.broken == "" and r.ended == "" and (r.stopped, r.stopped_by) == ("", "wall_time")
    assert r.usage == Usage(input_tokens=1 + 2 + 3, output_tokens=3, cost_usd=0.75)
    assert [h.index for h in r.history] == [1, 2, 3, 4]
    assert all(isinstance(h.duration_s, float) and h.duration_s >= 0 for h in r.history)
    assert r.image == ""
    # Gates without an applicable check are n/a with the reason (here: a static site).
    assert res.not_applicable == {
        "build": "not applicable: the stack has no install or build command",
        "serve": "not applicable: a static file server cannot fail on the workspace",
    }
    # The cell's layout, which exports and the report read.
    assert set(solver.roots) == {(tmp_path / "cell" / "workspace").resolve()}
    assert (tmp_path / "cell" / "events.jsonl").is_file()
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
    solver = Scripted(("nothing", "edited"), ("still", "edited"), ("no", "done"), (fix(A), "done"))
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
    solver = Scripted((fix(G), "done"), (fix(A), "done"), (fix(A, P), "done"))
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
        (fix(G), "done"),
        (fix(A), "done"),
        (fix(G, A, brk=(NAV,)), "done"),
        (fix(G, A, P), "done"),
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
    solver = Scripted((fix(G), "done"), (fix(A), "done"), (fix(A), "edited"), (fix(A, P), "done"))
    r = await _cell(tmp_path, solver, _task(tiny, turns=2, rework=True))
    assert _units(r)[1] == ("u2", False, True, 2, None)
    assert r.result.units[1].kind == "rework"
    # u2's second turn left the tree as it was: no checkpoint, so u3 clears at the third.
    assert _units(r)[2] == ("u3", True, False, 1, 3)


async def test_checkpoints_verify_the_unit_protected_and_preservation_checks(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    site = Site()
    await _cell(tmp_path, Scripted((fix(G), "done"), (fix(G, A), "done")), tiny, site=site)
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
    solver = Scripted((fix(G), "done"), (fix(A), "done"), (fix(G, A, P), "done"))
    r = await _cell(tmp_path, solver, tiny)
    assert r.result.flips == (Flip(check=G, gate="text", passed_at=1, failed_at=2, repaired_at=3),)
    assert r.result.scores.breaks == 1 and not r.result.scores.whole_task
    assert r.result.scores.wcs == pytest.approx(1.0 - 0.05)


async def test_a_preservation_check_that_breaks_is_a_flip(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    solver = Scripted((fix(G), "done"), (fix(G, A, brk=(NAV,)), "done"), (fix(G, A, P), "done"))
    r = await _cell(tmp_path, solver, tiny)
    assert r.result.flips == (
        Flip(check=NAV, gate="navigation", passed_at=1, failed_at=2, repaired_at=3),
    )


async def test_a_check_of_a_unit_not_yet_cleared_does_not_flip(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    # A passes by accident during u1, then breaks before u2 arms it: no flip.
    solver = Scripted((fix(G, A), "done"), (fix(G), "edited"), (fix(G, A), "done"))
    r = await _cell(tmp_path, solver, tiny)
    assert r.result.flips == ()


# ---------------------------------------------------------------- baseline channel


async def test_baseline_channel_reports_a_gate_r0_passes_and_the_final_breaks(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    solver = Scripted((fix(G), "done"), (fix(G, A), "done"), (fix(G, A, P, brk=(NAV,)), "done"))
    r = await _cell(tmp_path, solver, tiny, baseline=True)
    res = r.result
    assert res.baseline_covered
    assert res.baseline_regressions == (
        BaselineRegression(gate="navigation", failed_checks=(NAV,)),
    )
    assert res.final_gates["navigation"] == "fail"
    clean_lines = ((fix(G), "done"), (fix(G, A), "done"), (fix(G, A, P), "done"))
    clean = await _cell(tmp_path / "clean", Scripted(*clean_lines), tiny, baseline=True)
    assert clean.result.baseline_covered and clean.result.baseline_regressions == ()


async def test_baseline_channel_is_silent_when_off_and_r0_down_is_a_task_problem(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    lines = ((fix(G), "done"), (fix(G, A), "done"), (fix(G, A, P, brk=(NAV,)), "done"))
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
    solver = Scripted((fix(G), "done"), (fix(G, P), "edited"), raise_at=3)
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
    assert [u.kind for u in r.result.units] == ["stage", "stage", "stage"]


async def test_full_spec_clears_units_on_the_final_checkpoint_only(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    site = Site()
    solver = Scripted((fix(G, P), "edited"), (None, "done"))
    r = await _cell(tmp_path, solver, tiny, site=site, arm="full-spec")
    assert [(u.id, u.cleared) for u in r.result.units] == [
        ("u1", True),
        ("u2", False),
        ("u3", True),
    ]
    assert [c[1] for c in site.calls] == [None]  # one checkpoint: the final one
    assert all(u.turns == 2 for u in r.result.units)
    assert all(u.kind == "stage" and u.capped is False for u in r.result.units)


async def test_full_spec_clears_a_unit_only_when_every_one_of_its_checks_passes(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    """Issue #35: a full-spec unit with one check passing and one failing is not cleared
    (it was counted as cleared when any one passed)."""
    owns = {"u1": (G, A), "u2": (A,), "u3": (G, P)}
    units = tuple(msgspec.structs.replace(u, checks=owns[u.id]) for u in tiny.contract.units)
    task = dataclasses.replace(tiny, contract=msgspec.structs.replace(tiny.contract, units=units))
    solver = Scripted((fix(G, P), "done"))
    r = await _cell(tmp_path, solver, task, arm="full-spec")
    assert [(u.id, u.cleared) for u in r.result.units] == [
        ("u1", False),  # greeting passes, the tagline does not
        ("u2", False),
        ("u3", True),  # both pass
    ]
    assert r.result.scores.stage == pytest.approx(1 / 3)
    assert not r.result.scores.whole_task


# ---------------------------------------------------------------- the conversation


def _faq_task(task: TaskPackage) -> TaskPackage:
    """u1 and u2 each answer one question; the answer to u2's is not u1's business."""
    faqs = {
        "u1": (Faq(question="Which greeting wording?", answer="Say: Welcome back."),),
        "u2": (Faq(question="Since which year do we sell fruit?", answer="Since 1999."),),
    }
    units = tuple(msgspec.structs.replace(u, faq=faqs.get(u.id, ())) for u in task.contract.units)
    return _task(
        dataclasses.replace(task, contract=msgspec.structs.replace(task.contract, units=units))
    )


class Asking(Scripted):
    """Asks `questions[i]` at turn i + 1 (ends the turn with a question)."""

    def __init__(self, questions: list[str], *lines: tuple[str | None, str]) -> None:
        super().__init__(*lines)
        self.questions = questions

    async def respond(self, message: UserMessage, workspace: Workspace) -> SolverTurn:
        turn = await super().respond(message, workspace)
        if turn.end == "question":
            return SolverTurn(end="question", question=self.questions[self.turns - 1])
        return turn


async def test_answers_draw_only_on_units_already_revealed(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    # During u1 the user knows nothing about u2 (a later unit): asking about it gets
    # "not specified", not u2's answer. Once u2 is revealed, u1's and u2's answers are known.
    solver = Asking(
        ["Since which year do we sell fruit?", "", "Which greeting wording?"],
        (None, "question"),
        (fix(G), "done"),
        (None, "question"),
    )
    await _cell(tmp_path, solver, _faq_task(tiny))
    m = solver.messages
    assert (m[1].kind, m[1].text) == ("answer", NOT_SPECIFIED)
    assert (m[3].kind, m[3].text) == ("answer", "Say: Welcome back.")
    # Follow-ups name the unit under way.
    assert [(x.unit_id, x.unit_index) for x in m[:4]] == [
        ("u1", 0),
        ("u1", 0),
        ("u2", 1),
        ("u2", 1),
    ]


async def test_an_answer_after_a_failed_checkpoint_comes_with_the_pushback(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    solver = Asking(["", "Which greeting wording?"], ("nothing", "edited"), ("still", "question"))
    r = await _cell(tmp_path, solver, _faq_task(tiny))
    user = SimulatedUser(tiny.contract)
    failed = [c for c in r.history[1].checks if not c.passed]
    pushback = user.pushback(failed)
    assert [c.id for c in failed] == [G]
    # Turn 1 failed u1's check: a pushback. Turn 2 asked and failed again: the answer,
    # then the pushback, as one `answer` message.
    assert (solver.messages[1].kind, solver.messages[1].text) == ("pushback", pushback)
    assert solver.messages[2].kind == "answer"
    assert solver.messages[2].text == "Say: Welcome back.\n\n" + pushback
    pushbacks = [
        e for e in read_events(tmp_path / "cell" / "events.jsonl") if isinstance(e, Pushback)
    ]
    assert [e.text for e in pushbacks][:1] == [pushback]  # an answer is not logged as pushback


async def test_a_turn_with_nothing_to_say_is_nudged(tmp_path: Path, tiny: TaskPackage) -> None:
    # No edit, no question, nothing verified yet: the user nudges; an answer alone needs none.
    solver = Asking(["", "Which greeting wording?"], (None, "edited"), (None, "question"))
    await _cell(tmp_path, solver, _faq_task(tiny))
    nudge = SimulatedUser(tiny.contract).nudge()
    assert (solver.messages[1].kind, solver.messages[1].text) == ("pushback", nudge)
    assert (solver.messages[2].kind, solver.messages[2].text) == ("answer", "Say: Welcome back.")
    kinds = [e.kind for e in read_events(tmp_path / "cell" / "events.jsonl")]
    assert kinds.count("pushback") == 1 + kinds[kinds.index("answer") :].count("pushback")


async def test_done_on_an_unverified_tree_makes_a_checkpoint_once(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    site = Site()
    solver = Scripted((None, "done"), (None, "done"), (None, "edited"))
    r = await _cell(tmp_path, solver, _task(tiny, turns=3), site=site)
    assert len([c for c in site.calls if c[1] is not None and G in c[1]]) == 1
    assert _units(r)[0] == ("u1", False, True, 3, None)


async def test_follow_ups_show_the_last_checkpoints_screenshots(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    solver = Scripted(("nothing", "edited"), (None, "edited"))
    r = await _cell(tmp_path, solver, tiny, site=Site(shots=True))
    assert solver.messages[0].screenshots == ()
    shots = (tmp_path / "cell" / "artifacts" / "checkpoint-001" / "home.png",)
    assert solver.messages[1].screenshots == shots
    assert solver.messages[2].screenshots == shots  # no new checkpoint: the same ones
    assert r.history[0].screenshots == {"home": "checkpoint-001/home.png"}
    assert r.history[-1].screenshots == {"home": f"checkpoint-{len(r.history):03d}-final/home.png"}


async def test_a_work_tree_the_solver_breaks_ends_the_cell_with_the_reason(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    r = await _cell(tmp_path, Scripted((fix(G), "done"), ("MOVE", "edited")), tiny)
    assert r.result.broken == "cannot read the work tree: No such file or directory"
    assert r.ended == "" and r.result.not_applicable == {}
    kinds = [e.kind for e in read_events(tmp_path / "cell" / "events.jsonl")]
    assert "broken" in kinds and "checkpoint" in kinds
    assert set(r.result.final_gates.values()) == {"fail"}
    assert _units(r) == [
        ("u1", True, False, 1, 1),
        ("u2", False, False, 0, None),
        ("u3", False, False, 0, None),
    ]


class Attached(Scripted):
    """A solver that runs in the sandbox: bound to it (`Solver.bind`) before its first turn."""

    def __init__(self, *lines: tuple[str | None, str]) -> None:
        super().__init__(*lines)
        self.attached: list[tuple[object, object, int]] = []

    @asynccontextmanager
    async def bind(self, cell: CellBinding) -> AsyncIterator[None]:
        self.attached.append((cell.sandbox, cell.log, self.turns))
        yield


async def test_a_sandboxed_solver_is_attached_to_the_cells_sandbox_and_log(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    solver = Attached((fix(G), "done"))
    await _cell(tmp_path, solver, tiny)
    ((sandbox, log, turns),) = solver.attached
    assert turns == 0
    assert (
        isinstance(sandbox, FakeSandbox)
        and sandbox.root == (tmp_path / "cell" / "workspace").resolve()
    )
    assert isinstance(log, EventLog)


async def test_refused_and_applied_edits_are_counted(tmp_path: Path, tiny: TaskPackage) -> None:
    solver = Scripted(("REFUSED", "edited"), (fix(G), "done"))
    r = await _cell(tmp_path, solver, tiny)
    assert (r.result.edits_refused, r.result.edits_applied) == (2, 1)
    edits = [e for e in read_events(tmp_path / "cell" / "events.jsonl") if isinstance(e, Edit)]
    assert [(e.path, e.applied) for e in edits] == [
        ("server.py", False),
        (".git/config", False),
        ("css/state.css", True),
    ]


async def test_a_retried_attempt_starts_from_r0_in_the_same_cell_folder(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    first = await _cell(tmp_path, Scripted((fix(G), "done")), tiny)
    assert _units(first)[0] == ("u1", True, False, 1, 1)
    again = await _cell(tmp_path, Scripted((None, "done")), _task(tiny, turns=1))
    # The first attempt's fix is gone: u1 does not clear on an untouched tree.
    assert _units(again)[0] == ("u1", False, True, 1, None)


async def test_a_work_tree_over_the_disk_limit_ends_the_cell_unverified(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    solver = Scripted((fix(G), "done"), ("BIG", "edited"))
    r = await _cell(tmp_path, solver, tiny, disk_limit_mb=1)
    assert r.ended == "workspace disk limit exceeded: 2 MiB used, limit 1 MiB"
    assert r.result.broken == r.ended and r.stopped == ""
    assert set(r.result.final_gates.values()) == {"fail"}
    assert r.result.checkpoints == 1 and not r.result.scores.final_pass
    assert _units(r)[0] == ("u1", True, False, 1, 1)


async def test_the_wall_time_budget_stops_the_solver_and_keeps_the_final_checkpoint(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    solver = Scripted((fix(G), "done"), ("SLEEP", "edited"))
    with cell_deadline(2.0, grace_s=60.0):  # the solver works 2 s
        r = await _cell(tmp_path, solver, tiny)
    assert r.stopped == "wall_time budget exceeded: the solver ran out of cell time"
    assert r.stopped_by == "wall_time" and r.ended == "" and r.result.broken == ""
    assert r.result.checkpoints == 2 and [h.unit for h in r.history] == ["u1", ""]
    assert _units(r) == [
        ("u1", True, False, 1, 1),
        ("u2", False, False, 0, None),
        ("u3", False, False, 0, None),
    ]


async def test_the_cells_weights_score_it(tmp_path: Path, tiny: TaskPackage) -> None:
    solver = Scripted((fix(G), "done"), (fix(A), "done"), (fix(G, A, P), "done"))
    w = Weights(per_break=0.2)
    r = await _cell(tmp_path, solver, tiny, weights=w)
    assert r.result.scores.breaks == 1 and r.result.scores.wcs == pytest.approx(1.0 - 0.2)


async def test_the_literal_wording_reaches_the_solver(tmp_path: Path, tiny: TaskPackage) -> None:
    solver = Scripted((fix(G), "done"))
    await _cell(tmp_path, solver, tiny, wording="literal")
    assert solver.messages[0].text.startswith("Requirement 1 of 3:")


async def test_the_baseline_is_cached_per_contract_backend_and_image(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    lines = ((fix(G), "done"), (fix(G, A), "done"), (fix(G, A, P), "done"))
    r = await _cell(tmp_path, Scripted(*lines), tiny, baseline=True, image="pwb-task:aaaa")
    assert r.result.baseline_covered
    key = baseline_key(tiny.contract_hash, "local", "pwb-task:aaaa")
    first = tmp_path / "baseline" / f"{key}.json"
    assert [p.name for p in (tmp_path / "baseline").iterdir()] == [first.name]
    assert first.name.startswith(f"{tiny.contract_hash[:16]}-local-")
    # A cached R0 verdict for another image is never reused: planted here as an R0 that
    # does not build (a task problem if it were read), image bbbb misses and runs R0.
    planted = BaselineResult(key="planted", gates={"build": "fail"})
    first.write_bytes(msgspec.json.encode(planted))
    r = await _cell(tmp_path, Scripted(*lines), tiny, baseline=True, image="pwb-task:bbbb")
    assert r.result.baseline_covered
    assert len(list((tmp_path / "baseline").iterdir())) == 2
    # The same image hits the cache: the planted verdict comes back.
    with pytest.raises(TaskProblem):
        await _cell(tmp_path, Scripted(*lines), tiny, baseline=True, image="pwb-task:aaaa")


def test_the_baseline_key_names_the_image() -> None:
    a, b = "pwb-task:aaaa", "pwb-task:bbbb"
    assert baseline_key("c" * 64, "docker", a) != baseline_key("c" * 64, "docker", b)
    assert baseline_key("c" * 64, "docker", a) != baseline_key("c" * 64, "local", a)
    assert baseline_key("c" * 64, "docker", a) != baseline_key("d" * 64, "docker", a)
    assert "/" not in baseline_key("c" * 64, "docker", "registry.io/pwb/task:1")
    assert ":" not in baseline_key("c" * 64, "docker", "registry.io/pwb/task:1")


async def test_r0_that_neither_builds_nor_serves_is_named_in_the_task_problem(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    lines = ((fix(G), "done"), (fix(G, A), "done"), (fix(G, A, P), "done"))
    want = "the task's untouched R0 cannot build or serve: a task problem, not graded"
    with pytest.raises(TaskProblem) as info:
        await _cell(tmp_path, Scripted(*lines), tiny, site=Site(r0_unbuildable=True), baseline=True)
    assert str(info.value) == want


async def test_the_cell_reports_the_image_it_ran(tmp_path: Path, tiny: TaskPackage) -> None:
    r = await _cell(tmp_path, Scripted((fix(G), "done")), tiny, image="pwb-task:0123")
    assert r.image == "pwb-task:0123"


async def test_a_work_tree_broken_before_the_final_checkpoint_is_the_solvers(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    r = await _cell(tmp_path, Scripted((fix(G), "done"), ("MOVE, BUDGET", "edited")), tiny)
    assert r.stopped == "tokens budget exceeded: scripted"
    # Measuring its disk use finds no tree: the solver's doing (it was once a bare
    # WorkspaceError out of the cell, an error row never graded).
    assert r.result.broken == "file operation failed: No such file or directory"
    assert set(r.result.final_gates.values()) == {"fail"}


# ---------------------------------------------------------------- checkpoint summaries


def _run(state: str, **kw: str) -> StateRun:
    return StateRun(state=state, route="/", viewport="desktop", duration_s=0.1, **kw)


@pytest.mark.parametrize(
    ("fields", "how"),
    [
        ({"reused": "unchanged", "shared_with": "a", "context": "warm"}, "reused"),
        ({"reused": "unchanged"}, "reused"),
        ({"shared_with": "home", "context": "warm"}, "shared"),
        ({"shared_with": "home"}, "shared"),
        ({"context": "warm"}, "warm"),
        ({"context": "fresh", "replayed": "full replay"}, "fresh"),
        ({"replayed": "full replay"}, "failed"),
        ({}, "failed"),
    ],
)
def test_how_a_state_was_obtained(fields: dict[str, str], how: str) -> None:
    """Issue #35: `_how` (reused before shared before the context; no context: failed)."""
    assert _how(_run("s", **fields)) == how


def test_a_checkpoint_summary_counts_how_its_states_were_obtained() -> None:
    states = (
        _run("a", reused="unchanged", context="warm"),
        _run("b", shared_with="a", context="warm"),
        _run("c", context="warm", screenshot="cp/c.png"),
        _run("d", context="fresh", replayed="full replay"),
        _run("e", context="warm"),
        _run("f"),
    )
    checks = (
        CheckResult(id="x", gate="text", state="a", passed=True),
        CheckResult(id="y", gate="text", state="a", passed=False),
        CheckResult(id="z", gate="text", state="a", passed=False, applicable=False),
        CheckResult(id="build@run", gate="build", state="run", passed=False),
    )
    report = VerifyReport(
        checks=checks,
        gates=gate_results(checks),
        states=states,
        warm_discarded=("crashed", "crashed", "navigated away"),
    )
    s = summarize(4, "u2", report, 1.5)
    assert s.replays == {"reused": 1, "shared": 1, "warm": 2, "fresh": 1, "failed": 1}
    assert s.warm_fallbacks == {"crashed": 2, "navigated away": 1}
    assert (s.index, s.unit, s.duration_s) == (4, "u2", 1.5)
    assert (s.build_ok, s.serve_ok, s.passed, s.failed) == (False, True, 1, 2)
    assert s.screenshots == {"c": "cp/c.png"}
    assert s.reused == {"a": "unchanged"} and s.replayed == {"d": "full replay"}
    assert s.gates == {g.gate: g.status for g in report.gates}
    assert (s.gates["build"], s.gates["text"], s.gates["dom"]) == ("fail", "fail", "n/a")
    down = (CheckResult(id="serve@run", gate="serve", state="run", passed=False),)
    s = summarize(5, "", VerifyReport(checks=down, gates=gate_results(down)), 0.5)
    assert (s.build_ok, s.serve_ok, s.passed, s.failed) == (True, False, 0, 1)
