"""The offline `mixed` solver (#37): seeded, one action per unit (the reference through
that unit, one of the task's negatives, a revert of earlier units, or nothing), now and
then out of turns. Driven on a real workspace; what it leaves is compared with a tree
built independently from the same patches."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest

from orchestrator.budget import BudgetExceeded
from orchestrator.contract import TaskPackage, load_task
from orchestrator.solvers import MixedSolver, UserMessage, offline_solver
from orchestrator.workspace import PatchError, Workspace
from tests.fixtures.tinytask import make_tiny_task

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # git subprocesses: one event loop is enough to drive them


@pytest.fixture
def tiny(tmp_path: Path) -> TaskPackage:
    return load_task(make_tiny_task(tmp_path / "tasks"))


def _message(task: TaskPackage, i: int) -> UserMessage:
    unit = task.contract.units[i]
    return UserMessage(kind="reveal", text=unit.request, unit_id=unit.id, unit_index=i)


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.parts
    }


async def _expected(task: TaskPackage, actions: Sequence[tuple[int, str]], home: Path) -> Workspace:
    """The tree the recorded actions should leave, replayed with patches by hand."""
    ws = await Workspace.create(task.repo, home, task.contract.allowed_paths)
    applied = 0
    for unit, action in actions:
        if action == "reference":
            for u in task.contract.units[applied : unit + 1]:
                try:
                    await ws.apply_patch(task.reference_patch(u.id))
                except PatchError:
                    break
                applied += 1
        elif action == "negative":
            await ws.apply_patch(task.negative_patch(task.contract.negatives[0].name))
    return ws


async def _play(task: TaskPackage, name: str, home: Path) -> tuple[MixedSolver, Workspace, str]:
    solver = offline_solver(name, task)
    assert isinstance(solver, MixedSolver)
    ws = await Workspace.create(task.repo, home, task.contract.allowed_paths)
    stopped = ""
    try:
        for i in range(len(task.contract.units)):
            await solver.respond(_message(task, i), ws)
            await solver.respond(_message(task, i), ws)  # a follow-up: no second action
    except BudgetExceeded as exc:
        stopped = str(exc)
    return solver, ws, stopped


async def test_mixed_is_seeded_and_does_what_it_records(tiny: TaskPackage, tmp_path: Path) -> None:
    seen: Counter[str] = Counter()
    stops = 0
    for n in range(16):
        name = f"mixed-{n}"
        a, ws_a, stop_a = await _play(tiny, name, tmp_path / f"{n}a")
        b, ws_b, stop_b = await _play(tiny, name, tmp_path / f"{n}b")
        assert a.actions == b.actions and stop_a == stop_b  # seeded: the same cell again
        assert _tree(ws_a.root) == _tree(ws_b.root)
        units = [u for u, _ in a.actions]
        assert units == sorted(set(units))  # one action per unit, in order
        seen.update(act for _, act in a.actions)
        stops += bool(stop_a)
        if "revert" not in {act for _, act in a.actions}:
            # Without a revert the tree is the reference through the furthest unit it
            # played, plus the negative if it applied one.
            want = await _expected(tiny, a.actions, tmp_path / f"{n}want")
            assert _tree(ws_a.root) == _tree(want.root), (name, a.actions)
    assert set(seen) == {"reference", "negative", "revert", "nothing"}, seen
    assert seen["reference"] > seen["nothing"]
    assert 0 < stops < 16  # some cells run out of turns, most do not


async def test_a_revert_goes_back_to_an_earlier_unit(tiny: TaskPackage, tmp_path: Path) -> None:
    solver = MixedSolver(tiny, "mixed")
    ws = await Workspace.create(tiny.repo, tmp_path / "ws", tiny.contract.allowed_paths)
    assert await solver._act("reference", 2, ws)  # all three units
    full = _tree(ws.root)
    assert await solver._act("revert", 2, ws)
    assert 0 <= solver._player.applied < 3 and _tree(ws.root) != full
    assert await solver._act("reference", 2, ws)  # the reference restores it
    assert _tree(ws.root) == full
    # A negative that no longer applies changes nothing instead of failing the cell.
    fresh = MixedSolver(tiny, "mixed")
    ws = await Workspace.create(tiny.repo, tmp_path / "neg", tiny.contract.allowed_paths)
    assert await fresh._act("negative", 0, ws)  # drop-about applies on R0
    with pytest.raises(PatchError):
        await ws.apply_patch(tiny.negative_patch("drop-about"))
    assert not await fresh._act("negative", 1, ws)


async def test_full_spec_draws_an_action_per_unit_in_one_turn(
    tiny: TaskPackage, tmp_path: Path
) -> None:
    solver = MixedSolver(tiny, "mixed-7")
    ws = await Workspace.create(tiny.repo, tmp_path / "ws", tiny.contract.allowed_paths)
    msg = UserMessage(kind="full_spec", text="all of it", unit_id="", unit_index=0)
    try:
        await solver.respond(msg, ws)
    except BudgetExceeded:
        pass
    assert [u for u, _ in solver.actions] == list(range(len(solver.actions)))
    assert len(solver.actions) >= 1


def test_mixed_is_a_model_on_its_card_and_an_offline_solver_by_name(tiny: TaskPackage) -> None:
    from orchestrator.config import BenchConfig, SolverConfig
    from orchestrator.solver_cards import card_for

    s = SolverConfig(name="mixed-a", kind="mixed")
    card = card_for(BenchConfig(solvers=(s,)), s)
    assert (card.role, card.kind, card.backbone) == ("model", "mixed", "mixed-a")
    with pytest.raises(ValueError, match="unknown offline solver 'mixd'"):
        offline_solver("mixd", tiny)
