"""WorkspaceSolver solvers: `reference`, `negative:<name>`, `noop`, `thrash` and `mixed`.

They are grader-side controls (admission, tests, the default sweep), so unlike a real
solver they are handed the task package; they still act only through the workspace.
`mixed` is not a control: a seeded stand-in for a model that makes a realistic
population without a model (see `MixedSolver`).
"""

from __future__ import annotations

import hashlib
import random
from typing import Literal

from ..budget import BudgetExceeded
from ..contract import TaskPackage
from ..workspace import PatchError, Workspace
from ._lifecycle import WorkspaceSolver
from ._protocol import SolverTurn, UserMessage


class _ReferencePlayer:
    """Applies reference patches in order, remembering how far it got."""

    def __init__(self, task: TaskPackage) -> None:
        self.task = task
        self.applied = 0

    async def play_through(self, ws: Workspace, unit_index: int) -> bool:
        units = self.task.contract.units
        changed = False
        while self.applied <= unit_index:
            await ws.apply_patch(self.task.reference_patch(units[self.applied].id))
            self.applied += 1
            changed = True
        return changed


class ReferenceSolver(WorkspaceSolver):
    def __init__(self, task: TaskPackage) -> None:
        self.name = "reference"
        self._player = _ReferencePlayer(task)

    async def respond(self, message: UserMessage, workspace: Workspace) -> SolverTurn:
        last = len(self._player.task.contract.units) - 1
        target = last if message.kind == "full_spec" else message.unit_index
        changed = await self._player.play_through(workspace, target)
        return SolverTurn(end="edited" if changed else "done")

    async def aclose(self) -> None:
        return None


class NoopSolver(WorkspaceSolver):
    def __init__(self) -> None:
        self.name = "noop"

    async def respond(self, message: UserMessage, workspace: Workspace) -> SolverTurn:
        return SolverTurn(end="done", note="no changes")

    async def aclose(self) -> None:
        return None


class NegativeSolver(WorkspaceSolver):
    """Plays the reference through the negative's `after_unit`, then applies the negative."""

    def __init__(self, task: TaskPackage, name: str) -> None:
        self.name = f"negative:{name}"
        self.task = task
        self.negative = next(n for n in task.contract.negatives if n.name == name)
        ids = [u.id for u in task.contract.units]
        self._through = ids.index(self.negative.after_unit) if self.negative.after_unit else -1
        self._player = _ReferencePlayer(task)
        self._done = False

    async def respond(self, message: UserMessage, workspace: Workspace) -> SolverTurn:
        if self._done:
            return SolverTurn(end="done")
        if self._through >= 0:
            await self._player.play_through(workspace, self._through)
        await workspace.apply_patch(self.task.negative_patch(self.negative.name))
        self._done = True
        return SolverTurn(end="edited")

    async def aclose(self) -> None:
        return None


class ThrashSolver(WorkspaceSolver):
    """Reference at unit 0, reverts everything during unit 1, restores at unit 2.

    Unit 0's cleared checks flip at unit 1's checkpoint and are repaired at unit 2's:
    a clean endpoint (final suite passes) with breaks > 0. Needs at least three units.
    """

    def __init__(self, task: TaskPackage) -> None:
        if len(task.contract.units) < 3:
            raise ValueError(f"{task.contract.id}: thrash needs at least 3 units")
        self.name = "thrash"
        self.task = task
        self._player = _ReferencePlayer(task)

    async def respond(self, message: UserMessage, workspace: Workspace) -> SolverTurn:
        if message.unit_index == 1:
            if self._player.applied > 0:
                await workspace.reset_to_r0()
                self._player.applied = 0
                return SolverTurn(end="edited", note="reverted everything")
            return SolverTurn(end="done")
        last = len(self.task.contract.units) - 1
        target = last if message.kind == "full_spec" else message.unit_index
        changed = await self._player.play_through(workspace, target)
        return SolverTurn(end="edited" if changed else "done")

    async def aclose(self) -> None:
        return None


MixedAction = Literal["reference", "negative", "revert", "nothing"]
# How often `mixed` takes each action on a unit, and how often it runs out of turns
# after one (a budget stop: the cell ends `budget` with its final checkpoint).
MIXED_WEIGHTS: dict[MixedAction, float] = {
    "reference": 0.6,
    "negative": 0.15,
    "revert": 0.1,
    "nothing": 0.15,
}
MIXED_STOP = 0.04


def mixed_seed(name: str, task_id: str) -> int:
    """The seed of one `mixed` solver on one task: the same cell always plays the same."""
    return int.from_bytes(hashlib.sha256(f"{name}\0{task_id}".encode()).digest()[:8], "big")


class MixedSolver(WorkspaceSolver):
    """A seeded stand-in for a model: per unit it applies the reference (through that
    unit, so it also restores what it reverted), one of the task's negatives, a revert of
    earlier units (back to R0, then the reference through an earlier unit), or nothing;
    now and then it then runs out of turns (`BudgetExceeded`). A sweep of it over the
    suite gives completions with and without breaks, flips repaired and not, baseline
    regressions and budget stops, with no model. The full-spec arm draws an action per
    unit, in order, in its one turn. `actions` records what it did, per unit."""

    def __init__(self, task: TaskPackage, name: str = "mixed") -> None:
        self.name = name
        self.task = task
        self._rng = random.Random(mixed_seed(name, task.contract.id))
        self._player = _ReferencePlayer(task)
        self._done: set[int] = set()
        self.actions: list[tuple[int, MixedAction]] = []

    async def respond(self, message: UserMessage, workspace: Workspace) -> SolverTurn:
        last = len(self.task.contract.units) - 1
        todo = range(last + 1) if message.kind == "full_spec" else [message.unit_index]
        changed = False
        for unit in todo:
            if unit in self._done:
                continue  # one action per unit: a follow-up gets no new edit
            self._done.add(unit)
            action = self._rng.choices(list(MIXED_WEIGHTS), list(MIXED_WEIGHTS.values()))[0]
            acted = await self._act(action, unit, workspace)
            self.actions.append((unit, action if acted else "nothing"))
            changed |= acted
            if self._rng.random() < MIXED_STOP:
                raise BudgetExceeded("turns", f"{self.name}: out of turns at unit {unit}")
        return SolverTurn(end="edited" if changed else "done")

    async def _act(self, action: MixedAction, unit: int, ws: Workspace) -> bool:
        """Whether the work tree changed; a patch that no longer applies (the tree holds
        a negative) changes nothing."""
        try:
            match action:
                case "reference":
                    before = self._player.applied
                    try:
                        return await self._player.play_through(ws, unit)
                    except PatchError:  # stopped at a patch the tree no longer takes
                        return self._player.applied > before
                case "negative":
                    negatives = self.task.contract.negatives
                    if not negatives:
                        return False
                    pick = negatives[self._rng.randrange(len(negatives))]
                    await ws.apply_patch(self.task.negative_patch(pick.name))
                    return True
                case "revert":
                    if self._player.applied == 0:
                        return False
                    keep = self._rng.randrange(self._player.applied)  # units kept: 0..keep-1
                    await ws.reset_to_r0()
                    self._player.applied = 0
                    if keep:
                        await self._player.play_through(ws, keep - 1)
                    return True
                case "nothing":
                    return False
        except PatchError:
            return False

    async def aclose(self) -> None:
        return None
