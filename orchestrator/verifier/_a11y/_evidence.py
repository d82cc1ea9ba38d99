"""The accessibility evidence of a task package: R0's and the reference's snapshot of
every state, frozen by `capture` into `evidence/a11y.json` (#53, #51's "work done once").

Where a task has it, it is the **base** of the accessibility continuity rules
(`_gate.py`) on every grading path — `verify`, a cell with or without the sweep's
baseline, a regrade, admission — and R0 and the reference are both bases (debt in either
is debt, a regression from either is charged). A live R0 run then needs no
accessibility snapshot of its own: the baseline's R0 suite (and admission's) replays
without one, so a sweep over tasks with this evidence does less browser work. Without
the file nothing changes: the live R0 run's snapshots are the base where there is one.

The snapshots are the ones the full suite's replay records (`capture_a11y` runs
`verify` with `a11y=True` on the served side), so the evidence says what a live R0 (or
reference) run at capture time said. The file is a msgspec record written in one
deterministic order (keys sorted, a rule's passes and violations sorted; the focus walk
keeps its Tab order; a main-thread figure a recapture measures within a step of the
one kept is not rewritten, `_a11y._perf_gate.recaptured`): a recapture of the same render is
byte-identical. A missing file
is no evidence; a malformed one (bad JSON, a wrong type, an unknown state, another
axe-core, no canary) is a `ContractError` of one line naming the file.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Literal

import anyio
import msgspec

from ...contract import CANARY, ContractError, TaskPackage, located_error, shown
from ...records import A11ySnapshot
from .._browser import BrowserPool
from .._core import RunHealth
from .._replay import AXE_VERSION
from .._verify import verify
from ._perf_gate import (
    coarse,
    coarse_shift,
    coarse_weight,
    recaptured,
    recaptured_shift,
    recaptured_weight,
)

A11Y_EVIDENCE = "a11y.json"
Side = Literal["r0", "reference"]
SIDES: tuple[Side, ...] = ("r0", "reference")
# How the continuity rules' messages name each side ("passed in R0 at this state").
LABELS: dict[Side, str] = {"r0": "R0", "reference": "the reference"}

A11yBases = tuple[tuple[str, Mapping[str, A11ySnapshot]], ...]


class A11yEvidence(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """`evidence/a11y.json`: each side's snapshots by state id (a side not captured yet:
    empty). `axe` is the axe-core that took them: another one reads other rules."""

    canary: str  # grader-only data (`contract._canary`)
    axe: str
    r0: dict[str, A11ySnapshot] = {}
    reference: dict[str, A11ySnapshot] = {}

    def side(self, side: Side) -> dict[str, A11ySnapshot]:
        return self.r0 if side == "r0" else self.reference

    def bases(self) -> A11yBases:
        """The continuity rules' bases: R0's snapshots, then the reference's."""
        return tuple((LABELS[s], self.side(s)) for s in SIDES if self.side(s))


def a11y_evidence_path(task: TaskPackage) -> Path:
    return task.evidence / A11Y_EVIDENCE


def decode_a11y_evidence(data: bytes, task: TaskPackage, where: str) -> A11yEvidence:
    """The evidence in `data`, checked against the task (states) and this grader (axe)."""
    try:
        ev = msgspec.json.decode(data, type=A11yEvidence)
    except msgspec.ValidationError as exc:
        raise ContractError([located_error(exc, where)]) from exc
    except msgspec.DecodeError as exc:
        raise ContractError([f"{where}: expected JSON, got a malformed file: {exc}"]) from exc
    if ev.canary != CANARY:
        raise ContractError([f"{where}:canary: expected {CANARY!r}, got {shown(ev.canary)}"])
    if ev.axe != AXE_VERSION:
        raise ContractError(
            [f"{where}:axe: expected axe-core {AXE_VERSION} (re-capture), got {shown(ev.axe)}"]
        )
    states = {s.id for s in task.contract.states}
    for side in SIDES:
        unknown = sorted(set(ev.side(side)) - states)
        if unknown:
            raise ContractError(
                [f"{where}:{side}: expected state ids of task.toml, got {shown(unknown[0])}"]
            )
    return ev


def load_a11y_evidence(task: TaskPackage) -> A11yEvidence | None:
    """The task's accessibility evidence; None when it has none (blocking: a preflight
    or a worker thread; on the event loop, `read_a11y_evidence`)."""
    path = a11y_evidence_path(task)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    return decode_a11y_evidence(data, task, str(path))


async def read_a11y_evidence(task: TaskPackage) -> A11yEvidence | None:
    return await anyio.to_thread.run_sync(load_a11y_evidence, task)


def _stable(snap: A11ySnapshot) -> A11ySnapshot:
    """One order for what is a set to the rules (passes, violations); the focus walk,
    the fields and the live regions keep the order the replay read them in; the
    main-thread figure to the nearest half second (`_a11y._perf_gate.coarse`)."""
    return msgspec.structs.replace(
        snap,
        main_thread=coarse(snap.main_thread) if snap.main_thread is not None else None,
        weight=coarse_weight(snap.weight) if snap.weight is not None else None,
        layout_shift=(coarse_shift(snap.layout_shift) if snap.layout_shift is not None else None),
        passes=tuple(sorted(set(snap.passes))),
        violations=tuple(
            sorted(snap.violations, key=lambda v: (v.rule, v.target, v.markup, v.measured))
        ),
    )


def encode_a11y_evidence(ev: A11yEvidence) -> bytes:
    """The file's bytes: one per evidence (sorted keys, `_stable` snapshots, indented)."""
    stable = msgspec.structs.replace(
        ev,
        r0={k: _stable(v) for k, v in ev.r0.items()},
        reference={k: _stable(v) for k, v in ev.reference.items()},
    )
    raw = msgspec.json.encode(stable, order="deterministic")
    return msgspec.json.format(raw, indent=1) + b"\n"


def _timed_again(old: A11ySnapshot | None, new: A11ySnapshot) -> A11ySnapshot:
    """`new`, with the main-thread figure the file already keeps for its state when the
    new one agrees with it (`_a11y._perf_gate.recaptured`)."""
    if new.main_thread is not None:
        kept = old.main_thread if old is not None else None
        new = msgspec.structs.replace(new, main_thread=recaptured(kept, new.main_thread))
    if new.weight is not None:
        weighed = old.weight if old is not None else None
        new = msgspec.structs.replace(new, weight=recaptured_weight(weighed, new.weight))
    if new.layout_shift is not None:
        shifted = old.layout_shift if old is not None else None
        new = msgspec.structs.replace(new, layout_shift=recaptured_shift(shifted, new.layout_shift))
    return new


def _write_side(task: TaskPackage, side: Side, snaps: Mapping[str, A11ySnapshot]) -> Path:
    """Replace `side`'s snapshots in the file, keeping the other side's (states the
    contract still has) unless the file is unreadable or from another axe-core."""
    try:
        old = load_a11y_evidence(task)
    except ContractError:
        old = None
    states = {s.id for s in task.contract.states}
    kept = {
        s: {k: v for k, v in (old.side(s) if old else {}).items() if k in states} for s in SIDES
    }
    before = kept[side]
    kept[side] = {k: _timed_again(before.get(k), v) for k, v in snaps.items() if k in states}
    ev = A11yEvidence(canary=CANARY, axe=AXE_VERSION, r0=kept["r0"], reference=kept["reference"])
    path = a11y_evidence_path(task)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{A11Y_EVIDENCE}.tmp")
    tmp.write_bytes(encode_a11y_evidence(ev))
    tmp.replace(path)
    return path


async def write_a11y_side(task: TaskPackage, side: Side, snaps: Mapping[str, A11ySnapshot]) -> Path:
    return await anyio.to_thread.run_sync(_write_side, task, side, snaps)


async def capture_a11y(
    pool: BrowserPool, task: TaskPackage, base_url: str, health: RunHealth
) -> dict[str, A11ySnapshot]:
    """Every state's snapshot on the served side, exactly as the full suite records it."""
    report = await verify(pool, task, base_url, health=health, a11y=True)
    return dict(report.a11y)
