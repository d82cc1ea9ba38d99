"""Trajectory length (the paper's Table 12 and Figure 9): how long each regime's plans
are, and how turns relate to stages cleared on long Build plans.

- Plan lengths: per regime group (Change, Build, greenfield twins apart), the number of
  units (stages and reworks) of each task, read off the rows that delivered a result;
- turns vs stages cleared: staged-arm runs of the models under test on Build tasks (twins
  apart), bucketed by the plan's number of units; per bucket, Spearman's rho between the
  run's turns and its units cleared, with a permutation p-value. The paper reads the
  buckets of at least `LONG` units (median rho -0.91) and calls the relation
  endogenous: a failed unit burns its whole turn budget.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Callable, Sequence

from ..records import ManifestRow
from ._analyses import Cards
from ._model import PlanRow, TurnsRow
from ._stats import permutation_p, spearman

LONG = 7  # units: the paper's long Build plans (Figure 9)


def _scored(rows: Sequence[ManifestRow]) -> list[ManifestRow]:
    return [
        r for r in rows if r.result is not None and r.status not in ("infra_error", "harness_error")
    ]


def plan_lengths(
    rows: Sequence[ManifestRow], group: Callable[[ManifestRow], str]
) -> tuple[PlanRow, ...]:
    units: dict[str, dict[str, int]] = defaultdict(dict)
    for r in _scored(rows):
        assert r.result is not None
        units[group(r)][r.task] = len(r.result.units)
    out = []
    for g, per_task in sorted(units.items()):
        n = sorted(per_task.values())
        out.append(
            PlanRow(
                group=g,
                tasks=len(n),
                mean=statistics.fmean(n),
                median=statistics.median(n),
                shortest=n[0],
                longest=n[-1],
            )
        )
    return tuple(out)


def turns_vs_stages(
    rows: Sequence[ManifestRow], twins: set[str], cards: Cards
) -> tuple[TurnsRow, ...]:
    buckets: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for r in _scored(rows):
        if (
            r.arm == "staged"
            and r.labels.regime == "build"
            and r.task not in twins
            and cards(r.solver).role == "model"
        ):
            assert r.result is not None
            cleared = sum(u.cleared for u in r.result.units)
            buckets[len(r.result.units)].append((r.result.turns, cleared))
    out = []
    for units, pts in sorted(buckets.items()):
        xs, ys = [float(t) for t, _ in pts], [float(c) for _, c in pts]
        rho = spearman(xs, ys) if len(pts) >= 3 else math.nan
        p = permutation_p(xs, ys) if not math.isnan(rho) else math.nan
        out.append(TurnsRow(units=units, runs=len(pts), rho=rho, p=p))
    return tuple(out)


def long_median(rows: Sequence[TurnsRow]) -> float:
    """Median rho over the buckets of at least `LONG` units that have one."""
    rhos = [r.rho for r in rows if r.units >= LONG and not math.isnan(r.rho)]
    return statistics.median(rhos) if rhos else math.nan
