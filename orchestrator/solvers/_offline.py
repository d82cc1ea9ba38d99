"""Offline solvers: `reference`, `negative:<name>`, `noop` and `thrash`.

They are grader-side controls (admission, tests, the default sweep), so unlike a real
solver they are handed the task package; they still act only through the workspace.
"""

from __future__ import annotations

from ..contract import TaskPackage
from ..workspace import Workspace
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


class ReferenceSolver:
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


class NoopSolver:
    def __init__(self) -> None:
        self.name = "noop"

    async def respond(self, message: UserMessage, workspace: Workspace) -> SolverTurn:
        return SolverTurn(end="done", note="no changes")

    async def aclose(self) -> None:
        return None


class NegativeSolver:
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


class ThrashSolver:
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
