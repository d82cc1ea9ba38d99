"""Performance continuity, main-thread part (#53): the final against its bases, state by
state. A pure function of the snapshots' `MainThread` figures (`_replay/_perf.py`); no
browser.

`perf-main-thread@S` (gate `routes`): the state's *total blocking time* (the sum of each
long task's time over 50 ms, as the renderer timed it) exceeds the highest a base (R0;
in admission also the reference run) showed at the state by more than
`BLOCKING_ALLOWANCE_MS`. A site that already blocked there is measured from its own
debt, so a solver is charged only for blocking it added; the allowance is generous on
purpose: long tasks are wall time, and host load stretches them (`_replay/_perf.py` says
by how much a page must work for load alone to cross it, and why a state over the
allowance is measured again and keeps its least figure). The message names the
metric, the base's value and the final's.

Why `routes`: the gate of a route that must load and render; a page that now holds its
main thread a second or more longer while it loads (or after the state's actions) is a
route that loads, but that a user cannot use for that time — the same failure, measured
in time. A page that never yields fails `routes` too, as a state that did not load
(`_replay/_state.py`).

`perf-bytes@S` (gate `assets`): the state's document and its same-origin resources
weigh more than twice what the heaviest base's did at the state *and* more than
`BYTES_ALLOWANCE` above it (transfer size, `_replay/_perf.py`): a requested image or
script passes, a page that now ships megabytes more does not. The weight is the
browser's count of bytes, not a timing, so load does not move it.

`perf-layout-shift@S` (gate `visual_anchors`): the state's cumulative layout shift (CLS,
`_replay/_perf.py`) is *poor* by Core Web Vitals' bounds (over `SHIFT_POOR`) *and* more
than `SHIFT_ALLOWANCE` above the highest a base showed at the state: content that now
jumps after it was painted, which a user sees and misclicks on. Why `visual_anchors`:
where the page's content is drawn is what that gate guards. The margin is generous on
purpose: what shifts depends partly on when a resource arrived (an image without a
size, landing after the first paint), so a small difference can be timing.

The base is the same state when a base observed it, else the nearest one
(`_base.py`: the closest ancestor through `from`, then the same route and
viewport), named as such in the message. A state the final did not reach, or without a
figure in the final or in every base (a base cached before #53), gets no check.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from ...contract import Contract
from ...records import A11ySnapshot, CheckResult, MainThread, PageWeight
from .._core import grounded, summarize_state
from .._replay import BLOCKING_ALLOWANCE_MS
from ._base import Base, bases_for

PERF_ID = re.compile(r"perf-(main-thread|bytes|layout-shift)@")
# What `evidence/a11y.json` keeps of a figure: its times to the nearest step, no count
# (a timing is never the same twice, and a recapture of the same render must be the
# same bytes); within a quarter of the allowance of what was measured. A recapture
# keeps the figure already there when its own measurement is within a step of it
# (`recaptured`): rounding alone still flips on a figure near a boundary.
EVIDENCE_STEP_MS = 500.0
DESCRIBE = (
    "The page must not block its main thread much longer than before: its total blocking"
    " time (long tasks' time over 50 ms, as the renderer timed them) may exceed the"
    f" base's by at most {BLOCKING_ALLOWANCE_MS:.0f} ms."
)


BYTES_ALLOWANCE = 512 * 1024
# What the evidence keeps of a weight: its bytes to the nearest step (a response that
# carries a date or a count varies by a few bytes), kept on a recapture within a step.
WEIGHT_STEP = 4096
DESCRIBE_BYTES = (
    "The page must not become much heavier: its document and same-origin resources may"
    f" weigh up to twice the base's, or up to {BYTES_ALLOWANCE // 1024} KB more,"
    " whichever is more."
)


SHIFT_POOR = 0.25
SHIFT_ALLOWANCE = 0.1
# What the evidence keeps of a layout shift: to the nearest step, kept on a recapture
# within a step (an image landing before or after the first paint moves it a little).
SHIFT_STEP = 0.05
DESCRIBE_SHIFT = (
    "The page's content must not jump after it is shown much more than before: its"
    f" cumulative layout shift may be up to {SHIFT_POOR} (Core Web Vitals' bound of"
    f" 'poor'), or up to {SHIFT_ALLOWANCE} above the base's, whichever is more."
)


def coarse_shift(cls: float) -> float:
    """The layout shift as the evidence keeps it (`SHIFT_STEP`)."""
    return round(round(cls / SHIFT_STEP) * SHIFT_STEP, 2)


def recaptured_shift(kept: float | None, measured: float) -> float:
    """Like `recaptured`: the kept shift when the new one is within a step of it."""
    if kept is not None and abs(measured - kept) <= SHIFT_STEP:
        return coarse_shift(kept)
    return coarse_shift(measured)


def coarse_weight(w: PageWeight) -> PageWeight:
    """The weight as the evidence keeps it (`WEIGHT_STEP`)."""
    return PageWeight(bytes=round(w.bytes / WEIGHT_STEP) * WEIGHT_STEP, requests=w.requests)


def recaptured_weight(kept: PageWeight | None, measured: PageWeight) -> PageWeight:
    """Like `recaptured`: the kept weight when the new one is within a step of it."""
    if kept is not None and abs(measured.bytes - kept.bytes) <= WEIGHT_STEP:
        return coarse_weight(kept)
    return coarse_weight(measured)


def coarse(m: MainThread) -> MainThread:
    """The figure as the evidence keeps it (`EVIDENCE_STEP_MS`)."""

    def step(ms: float) -> float:
        return float(round(ms / EVIDENCE_STEP_MS) * EVIDENCE_STEP_MS)

    return MainThread(blocking_ms=step(m.blocking_ms), longest_ms=step(m.longest_ms))


def recaptured(kept: MainThread | None, measured: MainThread) -> MainThread:
    """The figure a recapture writes: the one the evidence already keeps when the new
    measurement is within `EVIDENCE_STEP_MS` of it in both times (the same render,
    timed again under another load), else the new one, `coarse`.

    Rounding alone is not enough: a static page's figure is 0 ms on a quiet host and
    250-300 ms under CI's steal (its renderer's tasks stretch), and 250 ms rounds to
    500 ms. Like Playwright's `--update-snapshots=changed`, what still matches within its
    tolerance is not rewritten; a change larger than a step (a page that now blocks)
    is."""
    if kept is not None and (
        abs(measured.blocking_ms - kept.blocking_ms) <= EVIDENCE_STEP_MS
        and abs(measured.longest_ms - kept.longest_ms) <= EVIDENCE_STEP_MS
    ):
        return coarse(kept)
    return coarse(measured)


def _figure(m: MainThread) -> str:
    tasks = f"{m.long_tasks} long task(s), " if m.long_tasks else ""
    return f"total blocking time {m.blocking_ms:.0f} ms ({tasks}the longest {m.longest_ms:.0f} ms)"


def _verdict(final: MainThread, near: list[Base]) -> tuple[bool, str]:
    measured = [(b, b.snap.main_thread) for b in near if b.snap.main_thread is not None]
    base, most = max(measured, key=lambda bm: bm[1].blocking_ms)
    over = final.blocking_ms - most.blocking_ms
    said = f"{_figure(final)}; {base.where}: {_figure(most)}"
    if over > BLOCKING_ALLOWANCE_MS:
        return False, f"{said}: {over:.0f} ms more (allowed {BLOCKING_ALLOWANCE_MS:.0f} ms)"
    return True, said


def _kb(n: int) -> str:
    return f"{n / 1024:.0f} KB" if n < 1024 * 1024 else f"{n / 1024 / 1024:.1f} MB"


def _weight(w: PageWeight) -> str:
    return f"{_kb(w.bytes)} in {w.requests} request(s)"


def _weight_verdict(final: PageWeight, near: list[Base]) -> tuple[bool, str]:
    measured = [(b, b.snap.weight) for b in near if b.snap.weight is not None]
    base, most = max(measured, key=lambda bw: bw[1].bytes)
    said = f"transferred {_weight(final)}; {base.where}: {_weight(most)}"
    over = final.bytes - most.bytes
    if over > BYTES_ALLOWANCE and final.bytes > 2 * most.bytes:
        allowed = f"allowed twice the base, or {_kb(BYTES_ALLOWANCE)} more"
        return False, f"{said}: {_kb(over)} more ({allowed})"
    return True, said


def _shift_verdict(final: float, near: list[Base]) -> tuple[bool, str]:
    measured = [(b, b.snap.layout_shift) for b in near if b.snap.layout_shift is not None]
    base, most = max(measured, key=lambda bs: bs[1])
    said = f"cumulative layout shift {final:.2f}; {base.where}: {most:.2f}"
    if final > SHIFT_POOR and final - most > SHIFT_ALLOWANCE:
        allowed = f"allowed up to {SHIFT_POOR}, or {SHIFT_ALLOWANCE} more than the base"
        return False, f"{said}: {final - most:.2f} more ({allowed})"
    return True, said


def layout_shift_continuity(
    contract: Contract,
    final: Mapping[str, A11ySnapshot],
    bases: Sequence[tuple[str, Mapping[str, A11ySnapshot]]],
) -> list[CheckResult]:
    """`perf-layout-shift@S` for every state the final and a base measured."""
    out = []
    for state in contract.states:
        snap = final.get(state.id)
        if snap is None or not snap.reached or snap.layout_shift is None:
            continue
        near = [b for b in bases_for(contract, state, bases) if b.snap.layout_shift is not None]
        if not near:
            continue
        ok, observed = _shift_verdict(snap.layout_shift, near)
        out.append(
            CheckResult(
                id=f"perf-layout-shift@{state.id}",
                gate="visual_anchors",
                state=state.id,
                passed=ok,
                observed=observed,
                message=grounded(DESCRIBE_SHIFT, summarize_state(contract, state), observed),
                authored=False,
            )
        )
    return out


def weight_continuity(
    contract: Contract,
    final: Mapping[str, A11ySnapshot],
    bases: Sequence[tuple[str, Mapping[str, A11ySnapshot]]],
) -> list[CheckResult]:
    """`perf-bytes@S` for every state the final and a base weighed."""
    out = []
    for state in contract.states:
        snap = final.get(state.id)
        if snap is None or not snap.reached or snap.weight is None:
            continue
        near = [b for b in bases_for(contract, state, bases) if b.snap.weight is not None]
        if not near:
            continue
        ok, observed = _weight_verdict(snap.weight, near)
        out.append(
            CheckResult(
                id=f"perf-bytes@{state.id}",
                gate="assets",
                state=state.id,
                passed=ok,
                observed=observed,
                message=grounded(DESCRIBE_BYTES, summarize_state(contract, state), observed),
                authored=False,
            )
        )
    return out


def main_thread_continuity(
    contract: Contract,
    final: Mapping[str, A11ySnapshot],
    bases: Sequence[tuple[str, Mapping[str, A11ySnapshot]]],
) -> list[CheckResult]:
    """`perf-main-thread@S` for every state the final and a base measured."""
    out = []
    for state in contract.states:
        snap = final.get(state.id)
        if snap is None or not snap.reached or snap.main_thread is None:
            continue
        near = [b for b in bases_for(contract, state, bases) if b.snap.main_thread is not None]
        if not near:
            continue
        ok, observed = _verdict(snap.main_thread, near)
        out.append(
            CheckResult(
                id=f"perf-main-thread@{state.id}",
                gate="routes",
                state=state.id,
                passed=ok,
                observed=observed,
                message=grounded(DESCRIBE, summarize_state(contract, state), observed),
                authored=False,
            )
        )
    return out
