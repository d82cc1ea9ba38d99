"""Greenfield twins against their Change sources (the paper's twin study, §5).

A twin (`twin_of` in its contract) is a build task that reaches a Change task's end
state from an empty baseline under the same checks, with as many stages and reworks.
Per solver and arm, every (twin, source) pair that solver ran in that arm is compared on
WCS, repeats averaged within a task; ΔWCS is twin minus source with a pair-clustered
bootstrap interval. Controls and scripted solvers keep their own rows, labelled by the
score tables' role column; infrastructure and harness failures are no result here.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

from ..records import UNSCORED, ManifestRow
from ._measures import mean
from ._model import ARM_ORDER, TwinRow


def _wcs(rows: Sequence[ManifestRow]) -> float:
    return sum(r.scores.wcs if r.scores else 0.0 for r in rows) / len(rows)


def twin_rows(rows: Sequence[ManifestRow], twins: Mapping[str, str]) -> tuple[TwinRow, ...]:
    """One row per (solver, arm) that ran at least one twin and its source (`twins`: twin
    task id -> source task id)."""
    cells: dict[tuple[str, str], dict[str, list[ManifestRow]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for r in rows:
        if r.status not in UNSCORED and r.status not in ("infra_error", "harness_error"):
            cells[(r.solver, r.arm)][r.task].append(r)
    out = []
    for (solver, arm), tasks in sorted(
        cells.items(), key=lambda kv: (ARM_ORDER.index(kv[0][1]), kv[0][0])
    ):
        pairs = sorted((t, s) for t, s in twins.items() if tasks.get(t) and tasks.get(s))
        if not pairs:
            continue
        ids = [t for t, _ in pairs]
        source = [_wcs(tasks[s]) for _, s in pairs]
        twin = [_wcs(tasks[t]) for t, _ in pairs]
        out.append(
            TwinRow(
                solver=solver,
                arm=arm,
                pairs=len(pairs),
                wcs_source=mean(source, ids),
                wcs_twin=mean(twin, ids),
                wcs_delta=mean([a - b for a, b in zip(twin, source, strict=True)], ids),
            )
        )
    return tuple(out)
