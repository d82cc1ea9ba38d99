"""What a cell page shows, read from the row and `RUN_DIR/cells/<dir>/events.jsonl`.

Screenshot paths come from the log, relative to the cell directory; a path that resolves
outside it is ignored rather than followed.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from .. import events as ev
from ..contract import ContractError, Gate, Visual, load_task
from ..events import CheckpointSummary, Event, read_events
from ..records import CheckResult, ManifestRow, cell_dir_name

_TEXT_LIMIT = 240
BARE_SUFFIX = "~bare"  # the verifier's key for a state's action-free load


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


class DiffRegion(msgspec.Struct, frozen=True, kw_only=True):
    """Where a failing visual check's render differs from its reference."""

    check: str
    state: str
    box: tuple[int, int, int, int]  # x, y, width, height
    reference: Path | None  # the image the check compared against
    final: Path | None  # the final screenshot, when it is the same kind of image


class StateCheck(msgspec.Struct, frozen=True, kw_only=True):
    """One check of a state on the final checkpoint, with its verdict."""

    id: str
    gate: str
    verdict: str  # "pass", "fail" or "n/a" (did not apply: never a failure)
    message: str  # the grounded message (fail), or why it did not apply (n/a)
    region: int | None = None  # index into `CellView.regions`: its cropped diff


class StateEvidence(msgspec.Struct, frozen=True, kw_only=True):
    """A state's reference and final screenshots with the verdict of each of its checks.
    The reference verdict is the admission's: a task is admitted only when its reference
    passes every check (`admit`); the final verdicts are this cell's final checkpoint."""

    state: str  # "" : the site-wide checks (build, serve, scope, ...), not one state
    reference: Path | None
    final: Path | None
    checks: tuple[StateCheck, ...]

    @property
    def failing(self) -> bool:
        return any(c.verdict == "fail" for c in self.checks)


class CellView(msgspec.Struct, frozen=True, kw_only=True):
    row: ManifestRow
    dir: str
    timeline: tuple[TimelineItem, ...]
    checkpoints: tuple[CheckpointSummary, ...]
    failing: tuple[FailingGate, ...]
    shots: tuple[ShotPair, ...]
    regions: tuple[DiffRegion, ...] = ()
    # Failing states first (the page opens on the first one), then the passing ones, then
    # the site-wide checks.
    states: tuple[StateEvidence, ...] = ()


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _TEXT_LIMIT else text[: _TEXT_LIMIT - 1] + "…"


def _detail(e: Event) -> str:
    match e:
        case ev.Checkpoint(checkpoint=cp):
            bad = sorted(g for g, s in cp.gates.items() if s == "fail")
            build = "" if cp.build_ok and cp.serve_ok else " (build/serve failed)"
            return _clip(
                f"checkpoint #{cp.index}: {cp.passed} passed, {cp.failed} failed{build}"
                + (f"; failing gates: {', '.join(bad)}" if bad else "")
            )
        case ev.Edit():
            return _clip(f"{e.path} {'applied' if e.applied else 'refused'} {e.text}")
        case ev.FlipEvent() | ev.Repair():
            return _clip(f"{e.check}: passed at #{e.passed_at}, failed at #{e.failed_at}")
        case ev.Final(gates=gates) | ev.Baseline(gates=gates):
            bad = sorted(g for g, s in gates.items() if s == "fail")
            return _clip(f"failing gates: {', '.join(bad) or 'none'}")
        case ev.Error():
            return _clip(f"{e.cause}: {e.error}")
        case ev.Agent(run=r):
            calls = sum(not q.refused for q in r.requests)
            return _clip(
                f"agent exit {r.exit_code}, {calls} model calls, ${r.cost_usd:.4f}"
                + (f"; {r.verdict}" if r.verdict else "")
            )
        case ev.Cleared() | ev.Cap():
            return ""
        case ev.Slip(what=what, text=text):  # the model's own mistake, by kind
            return _clip(f"{what}: {text}")
    return _clip(e.text)


def _turn(e: Event) -> int:
    return e.turn if isinstance(e, ev.Turn | ev.Slip | ev.Cleared | ev.Cap) else 0


def final_checkpoint(events: list[Event]) -> CheckpointSummary | None:
    """The last checkpoint without a unit (the final one), else the last one."""
    cps = [e.checkpoint for e in events if isinstance(e, ev.Checkpoint)]
    unitless = [c for c in cps if c.unit == ""]
    for chosen in (unitless, cps):
        if chosen:
            return chosen[-1]
    return None


def _inside(base: Path, rel: str) -> Path | None:
    path = (base / rel).resolve()
    return path if path.is_relative_to(base.resolve()) and path.is_file() else None


def final_shots(cell_dir: Path, final: CheckpointSummary | None) -> dict[str, Path]:
    """State id -> the final checkpoint's screenshot. Paths in the log are relative to the
    checkpoint's artifact directory (`artifacts/checkpoint-NNN<label>/`); a path that
    resolves outside the cell directory is ignored."""
    if final is None:
        return {}
    out: dict[str, Path] = {}
    bases = sorted((cell_dir / "artifacts").glob(f"checkpoint-{final.index:03d}*"))
    for state, rel in final.screenshots.items():
        if state.endswith(BARE_SUFFIX):
            continue  # the bare load behind `require_interaction`, not a state of its own
        for base in [*bases, cell_dir]:
            path = _inside(base, rel)
            if path is not None and path.is_relative_to(cell_dir.resolve()):
                out[state] = path
                break
    return out


def reference_shots(task_root: Path | None) -> dict[str, Path]:
    """State id -> its reference render: one image per state, the viewport `<state>.png`
    (the `<state>.full.png` capture only when no viewport one exists)."""
    if task_root is None:
        return {}
    ref_dir = task_root / "evidence" / "reference"
    if not ref_dir.is_dir():
        return {}
    out: dict[str, Path] = {}
    for p in sorted(ref_dir.glob("*.png")):
        state = p.name.removesuffix(".png").removesuffix(".full")
        if state not in out or not p.name.endswith(".full.png"):
            out[state] = p
    return out


def _full_page(task_root: Path | None) -> dict[str, bool]:
    """Visual check id -> whether it compares a full-page render."""
    if task_root is None:
        return {}
    try:
        contract = load_task(task_root).contract
    except ContractError:
        return {}
    return {c.id: c.assert_.full_page for c in contract.checks if isinstance(c.assert_, Visual)}


def _regions(
    final: CheckpointSummary | None, finals: dict[str, Path], task_root: Path | None
) -> tuple[DiffRegion, ...]:
    failing = [c for c in final.checks if c.region is not None and c.failed] if final else []
    if not failing:
        return ()
    full = _full_page(task_root)
    ref_dir = task_root / "evidence" / "reference" if task_root is not None else None
    out = []
    for c in failing:
        assert c.region is not None
        suffix = ".full.png" if full.get(c.id) else ".png"
        ref = ref_dir / f"{c.state}{suffix}" if ref_dir is not None else None
        out.append(
            DiffRegion(
                check=c.id,
                state=c.state,
                box=c.region,
                reference=ref if ref is not None and ref.is_file() else None,
                final=None if full.get(c.id) else finals.get(c.state),
            )
        )
    return tuple(out)


def _failing(row: ManifestRow, final: CheckpointSummary | None) -> tuple[FailingGate, ...]:
    """Gates that failed, with their failing checks' grounded messages. A check that was
    not applicable (`passed = False, applicable = False`: a moot `build` or `serve`, the
    health checks of a state that never loaded) is not a failure and is never listed."""
    msgs: dict[Gate, list[str]] = {g: [] for g, s in row.final_gates.items() if s == "fail"}
    for c in final.checks if final else ():
        if c.failed:
            msgs.setdefault(c.gate, []).append(c.message or f"{c.id} ({c.state}): {c.observed}")
    return tuple(FailingGate(gate=g, messages=tuple(m)) for g, m in sorted(msgs.items()))


def _verdict(c: CheckResult) -> str:
    return "n/a" if not c.applicable else ("pass" if c.passed else "fail")


def _states(
    final: CheckpointSummary | None,
    finals: dict[str, Path],
    refs: dict[str, Path],
    regions: tuple[DiffRegion, ...],
) -> tuple[StateEvidence, ...]:
    region_of = {(r.check, r.state): n for n, r in enumerate(regions)}
    checks: dict[str, list[StateCheck]] = {}
    for c in final.checks if final else ():
        # build/serve/scope are checks of the whole run (`<gate>@run` on the pseudo-state
        # `run`, verifier `run_health`): shown as the site-wide checks, not as a state.
        run_wide = not c.authored and c.id == f"{c.gate}@run"
        state = "" if run_wide else c.state.removesuffix(BARE_SUFFIX)
        verdict = _verdict(c)
        message = c.message or c.observed if verdict == "fail" else ""
        if verdict == "n/a":
            message = c.observed  # why it did not apply
        checks.setdefault(state, []).append(
            StateCheck(
                id=c.id,
                gate=c.gate,
                verdict=verdict,
                message=message,
                region=region_of.get((c.id, c.state)) if verdict == "fail" else None,
            )
        )
    names = sorted((set(finals) | set(refs) | set(checks)) - {""})
    shown = [
        StateEvidence(
            state=s,
            reference=refs.get(s),
            final=finals.get(s),
            checks=tuple(sorted(checks.get(s, ()), key=lambda c: (c.verdict != "fail", c.id))),
        )
        for s in names
    ]
    site = (
        [StateEvidence(state="", reference=None, final=None, checks=tuple(checks[""]))]
        if "" in checks
        else []
    )
    return (
        *(s for s in shown if s.failing),
        *(s for s in shown if not s.failing),
        *site,
    )


def cell_view(row: ManifestRow, run_dir: Path, task_root: Path | None) -> CellView:
    name = cell_dir_name(row.cell)
    cell_dir = run_dir / "cells" / name
    log = cell_dir / "events.jsonl"
    events = read_events(log) if log.is_file() else []
    t0 = events[0].t if events else 0.0
    final = final_checkpoint(events)
    finals = final_shots(cell_dir, final)
    refs = reference_shots(task_root)
    pairs = tuple(
        ShotPair(state=s, reference=refs.get(s), final=finals.get(s))
        for s in sorted(set(finals) | set(refs))
    )
    regions = _regions(final, finals, task_root)
    return CellView(
        row=row,
        dir=name,
        regions=regions,
        timeline=tuple(
            TimelineItem(t=e.t - t0, kind=e.kind, unit=e.unit, turn=_turn(e), detail=_detail(e))
            for e in events
        ),
        checkpoints=tuple(
            sorted(
                {
                    e.checkpoint.index: e.checkpoint for e in events if isinstance(e, ev.Checkpoint)
                }.values(),
                key=lambda c: c.index,
            )
        ),
        failing=_failing(row, final),
        shots=pairs,
        states=_states(final, finals, refs, regions),
    )
