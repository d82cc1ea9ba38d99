"""`ReplaySolver`: plays a recorded trajectory back, turn by turn, without the solver.

The cell runs as it always does (`orchestrator.cell.run_cell`: the same staged protocol,
checkpoints, flips, baseline and scores), and each turn this solver applies the patch the
recorded turn left and ends it the way the recording says. So a regrade and a sweep
cannot drift apart: there is one protocol.

When the verdicts of today differ from the recorded ones the protocol may ask for a turn
the solver never played (a unit now clears earlier, or not at all): from there the replay
has nothing to play. It answers `idle` with no edit, and says where it diverged
(`divergence`); the regrade's diff names it.
"""

from __future__ import annotations

import anyio

from ..budget import BudgetExceeded
from ..records.trajectory import Message, Trajectory, Turn
from ..solvers import SolverTurn, UserMessage, WorkspaceSolver
from ..workspace import Workspace
from ._patches import PatchRefused, check_patch


class ReplaySolver(WorkspaceSolver):
    def __init__(
        self, trajectory: Trajectory, allowed_paths: tuple[str, ...], *, strict: bool
    ) -> None:
        """`allowed_paths`: the task's own (never the trajectory's header: a submission
        could widen it)."""
        self.trajectory = trajectory
        self.allowed_paths = allowed_paths
        self.name = trajectory.header.solver
        self.strict = strict
        self._turns: dict[int, Turn] = {t.turn: t for t in trajectory.turns()}
        self._stop = trajectory.stop()
        self._played = 0
        self.divergence = ""  # the first turn the protocol asked for that was not recorded
        self.tree_mismatches: list[int] = []  # turns whose tree differs from the recording
        self.changed_messages = 0  # turns opened by a message worded differently than then
        self._messages = {
            (m.turn, m.type): m.text for m in trajectory.records if isinstance(m, Message)
        }

    async def aclose(self) -> None:
        pass

    async def respond(self, message: UserMessage, workspace: Workspace) -> SolverTurn:
        self._played += 1
        n = self._played
        if self.divergence:
            return SolverTurn(end="idle", note="replay: diverged earlier")
        recorded = self._turns.get(n)
        if self._messages.get((n, message.kind), message.text) != message.text:
            self.changed_messages += 1
        stop = self._stop if self._stop is not None and self._stop.turn == n else None
        if recorded is None and stop is None:
            self.divergence = f"turn {n} ({message.unit_id}): the recording has no such turn"
            return SolverTurn(end="idle", note="replay: not recorded")
        if recorded is not None and recorded.unit not in ("", message.unit_id):
            self.divergence = (
                f"turn {n}: the protocol is at unit {message.unit_id!r}, "
                f"the recording at {recorded.unit!r}"
            )
            return SolverTurn(end="idle", note="replay: diverged")
        if recorded is not None and recorded.patch:
            await self._apply(recorded, workspace)
        if stop is not None:  # the budget that stopped the solver in this turn
            detail = stop.text.removeprefix(f"{stop.budget} budget exceeded").lstrip(": ")
            raise BudgetExceeded(stop.budget, detail)  # worded as the recorded stop
        assert recorded is not None
        return SolverTurn(
            end=recorded.end,
            question=recorded.question,
            note=recorded.note,
            usage=recorded.usage,
            messages=recorded.messages,
        )

    async def _apply(self, turn: Turn, ws: Workspace) -> None:
        allowed = self.allowed_paths
        try:
            await anyio.to_thread.run_sync(
                lambda: check_patch(turn.patch, allowed, strict=self.strict)
            )
        except PatchRefused as exc:
            raise PatchRefused(f"turn {turn.turn}: {exc}") from None
        await ws.apply_bytes(turn.patch, f"turn {turn.turn}")
        if await ws.tree_id() != turn.tree_after:
            self.tree_mismatches.append(turn.turn)
