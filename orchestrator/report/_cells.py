"""What a cell page shows, read from the row and `RUN_DIR/cells/<dir>/events.jsonl`.

Screenshot paths come from the log, relative to the cell directory; a path that resolves
outside it is ignored rather than followed.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from ..events import CheckpointSummary, Event, read_events
from ..records import ManifestRow
from ._model import cell_dir_name

_TEXT_LIMIT = 240


class TimelineItem(msgspec.Struct, frozen=True, kw_only=True):
    t: float  # seconds since the first event
    kind: str
    unit: str
    turn: int
    detail: str


class FailingGate(msgspec.Struct, frozen=True, kw_only=True):
    gate: str
    messages: tuple[str, ...]  # grounded messages of the failing checks


class ShotPair(msgspec.Struct, frozen=True, kw_only=True):
    state: str
    reference: Path | None
    final: Path | None


class CellView(msgspec.Struct, frozen=True, kw_only=True):
    row: ManifestRow
    dir: str
    timeline: tuple[TimelineItem, ...]
    checkpoints: tuple[CheckpointSummary, ...]
    failing: tuple[FailingGate, ...]
    shots: tuple[ShotPair, ...]


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _TEXT_LIMIT else text[: _TEXT_LIMIT - 1] + "…"


def _detail(e: Event) -> str:
    cp = e.checkpoint
    if cp is not None:
        bad = sorted(g for g, s in cp.gates.items() if s == "fail")
        build = "" if cp.build_ok and cp.serve_ok else " (build/serve failed)"
        return _clip(
            f"checkpoint #{cp.index}: {cp.passed} passed, {cp.failed} failed{build}"
            + (f"; failing gates: {', '.join(bad)}" if bad else "")
        )
    if e.kind == "edit":
        return _clip(f"{e.path} {'applied' if e.applied else 'refused'} {e.text}")
    if e.kind in ("flip", "repair"):
        return _clip(f"{e.check}: passed at #{e.passed_at}, failed at #{e.failed_at} {e.text}")
    return _clip(" ".join(x for x in (e.path, e.check, e.text) if x))


def final_checkpoint(events: list[Event]) -> CheckpointSummary | None:
    """The `final` event's checkpoint, else the last one without a unit, else the last one."""
    cps = [e.checkpoint for e in events if e.checkpoint is not None]
    finals = [e.checkpoint for e in events if e.checkpoint is not None and e.kind == "final"]
    unitless = [c for c in cps if c.unit == ""]
    for chosen in (finals, unitless, cps):
        if chosen:
            return chosen[-1]
    return None


def _inside(base: Path, rel: str) -> Path | None:
    path = (base / rel).resolve()
    return path if path.is_relative_to(base.resolve()) and path.is_file() else None


def _failing(row: ManifestRow, final: CheckpointSummary | None) -> tuple[FailingGate, ...]:
    msgs: dict[str, list[str]] = {g: [] for g, s in row.final_gates.items() if s == "fail"}
    for c in final.checks if final else ():
        if not c.passed:
            msgs.setdefault(c.gate, []).append(c.message or f"{c.id} ({c.state}): {c.observed}")
    return tuple(FailingGate(gate=g, messages=tuple(m)) for g, m in sorted(msgs.items()))


def cell_view(row: ManifestRow, run_dir: Path, task_root: Path | None) -> CellView:
    name = cell_dir_name(row.cell)
    cell_dir = run_dir / "cells" / name
    log = cell_dir / "events.jsonl"
    events = read_events(log) if log.is_file() else []
    t0 = events[0].t if events else 0.0
    final = final_checkpoint(events)
    shots = final.screenshots if final else {}
    finals = {s: p for s, rel in shots.items() if (p := _inside(cell_dir, rel))}
    refs: dict[str, Path] = {}
    if task_root is not None:
        ref_dir = task_root / "evidence" / "reference"
        refs = {p.stem: p for p in sorted(ref_dir.glob("*.png"))} if ref_dir.is_dir() else {}
    pairs = tuple(
        ShotPair(state=s, reference=refs.get(s), final=finals.get(s))
        for s in sorted(set(finals) | set(refs))
    )
    return CellView(
        row=row,
        dir=name,
        timeline=tuple(
            TimelineItem(t=e.t - t0, kind=e.kind, unit=e.unit, turn=e.turn, detail=_detail(e))
            for e in events
        ),
        checkpoints=tuple(
            sorted(
                {e.checkpoint.index: e.checkpoint for e in events if e.checkpoint}.values(),
                key=lambda c: c.index,
            )
        ),
        failing=_failing(row, final),
        shots=pairs,
    )
