"""Greenfield twins against their Change sources (the paper's twin study, §5).

A twin (`twin_of` in its contract) is a build task that reaches a Change task's end
state from an empty baseline under the same checks, with as many stages and reworks.
Per solver and arm, every (twin, source) pair that solver ran in that arm is compared on
WCS, repeats averaged within a task; ΔWCS is twin minus source with a pair-clustered
bootstrap interval and a paired t statistic. Controls and scripted solvers keep their own
rows, labelled by the score tables' role column; the "all" row of an arm pools the paired
cells of the models under test (the paper's 105 paired cells, −11.82 points, t = −4.74).
Infrastructure and harness failures are no result here.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence

from ..records import ManifestRow
from ._measures import mean, no_result
from ._model import ARM_ORDER, TwinRow

TWIN = "build twin"  # the regime breakdown's group for greenfield twins


def _wcs(rows: Sequence[ManifestRow]) -> float:
    return sum(r.scores.wcs if r.scores else 0.0 for r in rows) / len(rows)


def paired_t(deltas: Sequence[float]) -> float:
    """One-sample t statistic of paired differences (NaN under two pairs or no spread)."""
    if len(deltas) < 2:
        return math.nan
    sd = statistics.stdev(deltas)
    return statistics.fmean(deltas) / (sd / math.sqrt(len(deltas))) if sd > 0 else math.nan


def _row(solver: str, arm: str, cells: list[tuple[str, float, float]]) -> TwinRow:
    """`cells`: (twin task, source WCS, twin WCS), one per paired cell."""
    ids = [t for t, _, _ in cells]
    source = [s for _, s, _ in cells]
    twin = [t for _, _, t in cells]
    delta = [b - a for a, b in zip(source, twin, strict=True)]
    return TwinRow(
        solver=solver,
        arm=arm,
        pairs=len(cells),
        wcs_source=mean(source, ids),
        wcs_twin=mean(twin, ids),
        wcs_delta=mean(delta, ids),
        t=paired_t(delta),
    )


def twin_rows(
    rows: Sequence[ManifestRow], twins: Mapping[str, str], pooled: Callable[[str], bool]
) -> tuple[TwinRow, ...]:
    """One row per (solver, arm) that ran at least one twin and its source (`twins`: twin
    task id -> source task id), then per arm an "all" row over the paired cells of the
    solvers `pooled` admits (the models under test), clustered by twin."""
    cells: dict[tuple[str, str], dict[str, list[ManifestRow]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for r in rows:
        if not no_result(r) and r.status not in ("infra_error", "harness_error"):
            cells[(r.solver, r.arm)][r.task].append(r)
    out = []
    everyone: dict[str, list[tuple[str, float, float]]] = defaultdict(list)
    for (solver, arm), tasks in sorted(
        cells.items(), key=lambda kv: (ARM_ORDER.index(kv[0][1]), kv[0][0])
    ):
        pairs = sorted((t, s) for t, s in twins.items() if tasks.get(t) and tasks.get(s))
        if not pairs:
            continue
        paired = [(t, _wcs(tasks[s]), _wcs(tasks[t])) for t, s in pairs]
        out.append(_row(solver, arm, paired))
        if pooled(solver):
            everyone[arm] += paired
    for arm in ARM_ORDER:
        if everyone.get(arm):
            out.append(_row("all", arm, everyone[arm]))
    return tuple(out)
