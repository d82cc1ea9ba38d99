"""What a cell's delivery hands its grading (`_grade`): one frozen value, built once
where the delivery ends (`_deliver.deliver`)."""

from __future__ import annotations

import msgspec

from ..events import CheckpointSummary
from ..records import Flip, UnitOutcome, VerifyReport
from ..usage import Usage
from ._end import CellEnd


class Delivery(msgspec.Struct, frozen=True, kw_only=True):
    """The solver's delivery: how it ended, what it reached and its final checkpoint."""

    end: CellEnd
    units: tuple[UnitOutcome, ...]  # staged: the units reached, in order; full-spec: ()
    final: VerifyReport | None  # None: the tree is not verified (a flood, a breakage)
    flips: tuple[Flip, ...]
    history: tuple[CheckpointSummary, ...]  # every checkpoint, in order
    checkpoints: int
    turns: int
    usage: Usage
    edits_applied: int
    edits_refused: int
