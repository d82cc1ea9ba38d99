"""Category effects controlled for task size (the paper's Figure 14) and the
smallest-quartile check.

Population: rows of the models under test in the regression arm, every regime (infra
faults and bugs of ours left out). The manifest does not record the size of the
reference edit, so a task's size is its plan length (units per task, `_trajectory`).

- Controlled effects: ordinary least squares of WCS on the capability categories (one
  indicator each, `edit` the baseline), the task's size and one indicator per model (the
  first model the baseline). Each category's coefficient is its WCS difference from
  `edit` at equal size and model, with a task-clustered bootstrap 95% interval. A term
  the population cannot separate from the others has none (NaN, shown as "not
  separable"): when every task of a category has one size, that category's indicator
  and the size are tied, and least squares would print an arbitrary split of their
  effect (the minimum-norm one). A term is separable when its column is not spanned by
  the others (dropping it lowers the design's rank);
- smallest quartile: the categories' mean WCS over the tasks whose size is at most the
  25th percentile of task sizes, against their mean over every task; Spearman's rho
  between the two orderings says whether the ordering holds on small tasks.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from ..records import ManifestRow
from ._analyses import Cards
from ._measures import N_BOOT, SEED
from ._model import Effect
from ._stats import spearman

BASELINE = "edit"


def _population(rows: Sequence[ManifestRow], arm: str, cards: Cards) -> list[ManifestRow]:
    return [
        r
        for r in rows
        if r.arm == arm
        and r.result is not None
        and r.status not in ("infra_error", "harness_error")
        and cards(r.solver).role == "model"
    ]


def task_sizes(rows: Sequence[ManifestRow]) -> dict[str, int]:
    return {r.task: len(r.result.units) for r in rows if r.result is not None}


def _fit(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    coef, *_ = np.linalg.lstsq(x, y, rcond=None)
    return np.asarray(coef, dtype=np.float64)


def _design(
    rs: Sequence[ManifestRow], cols: Sequence[str], sizes: dict[str, int]
) -> tuple[np.ndarray, np.ndarray]:
    """(y, X): WCS, and an intercept, one indicator per category and model, the size."""
    x = np.zeros((len(rs), len(cols) + 1), dtype=np.float64)
    x[:, 0] = 1.0
    for i, r in enumerate(rs):
        for j, c in enumerate(cols, 1):
            if c == "size":
                x[i, j] = sizes[r.task]
            elif c in (r.labels.capability, r.solver):
                x[i, j] = 1.0
    y = np.asarray([r.scores.wcs if r.scores else 0.0 for r in rs], dtype=np.float64)
    return y, x


def separable(x: np.ndarray) -> list[bool]:
    """Per column of the design: whether its coefficient is identified (module docstring)."""
    rank = np.linalg.matrix_rank(x)
    return [bool(np.linalg.matrix_rank(np.delete(x, j, axis=1)) < rank) for j in range(x.shape[1])]


def _bootstrap(pop: Sequence[ManifestRow], y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The task-clustered bootstrap replicates of the fit, one row each."""
    by_task: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(pop):
        by_task[r.task].append(i)
    # A replicate's fit from per-task cross products: resampling whole tasks sums their
    # X'X and X'y, so no replicate touches the rows again.
    members = [np.asarray(by_task[t], dtype=np.intp) for t in sorted(by_task)]
    xtx = np.stack([x[m].T @ x[m] for m in members])
    xty = np.stack([x[m].T @ y[m] for m in members])
    rng = np.random.default_rng(SEED)
    draws = rng.integers(0, len(members), size=(N_BOOT, len(members)))
    counts = np.stack([np.bincount(d, minlength=len(members)) for d in draws]).astype(np.float64)
    return np.stack(
        [_fit(np.tensordot(c, xty, axes=1), np.tensordot(c, xtx, axes=1)) for c in counts]
    )


def effects(rows: Sequence[ManifestRow], arm: str, cards: Cards) -> tuple[Effect, ...]:
    pop = _population(rows, arm, cards)
    sizes = task_sizes(pop)
    cats = sorted({r.labels.capability for r in pop} - {BASELINE})
    models = sorted({r.solver for r in pop})
    if not pop or BASELINE not in {r.labels.capability for r in pop} or not cats:
        return ()
    cols = [*cats, "size", *models[1:]]
    y, x = _design(pop, cols, sizes)
    coef = _fit(y, x)
    boot = _bootstrap(pop, y, x)
    small = _smallest_quartile(pop, sizes)
    identified = separable(x)
    out = []
    for j, c in enumerate(cols, 1):
        if c not in cats and c != "size":
            continue
        lo, hi = np.quantile(boot[:, j], [0.025, 0.975])
        if not identified[j]:
            coef[j] = lo = hi = math.nan
        out.append(
            Effect(
                term=c,
                rows=sum(r.labels.capability == c for r in pop) if c != "size" else len(pop),
                coef=float(coef[j]),
                lo=float(lo),
                hi=float(hi),
                mean_all=_mean_wcs(pop, c),
                mean_small=_mean_wcs(small, c),
            )
        )
    out.append(_baseline_effect(pop, small))
    return tuple(out)


def _baseline_effect(pop: Sequence[ManifestRow], small: Sequence[ManifestRow]) -> Effect:
    return Effect(
        term=BASELINE,
        rows=sum(r.labels.capability == BASELINE for r in pop),
        coef=0.0,
        lo=0.0,
        hi=0.0,
        mean_all=_mean_wcs(pop, BASELINE),
        mean_small=_mean_wcs(small, BASELINE),
    )


def _smallest_quartile(pop: Sequence[ManifestRow], sizes: dict[str, int]) -> list[ManifestRow]:
    cut = float(np.quantile(sorted(sizes.values()), 0.25))
    return [r for r in pop if sizes[r.task] <= cut]


def _mean_wcs(rows: Sequence[ManifestRow], category: str) -> float:
    got = [r.scores.wcs for r in rows if r.labels.capability == category and r.scores]
    return statistics.fmean(got) if got else math.nan


def quartile_rho(rows: Sequence[Effect]) -> tuple[int, float]:
    """(categories, rho) between the orderings by mean WCS on all tasks and on the
    smallest quartile, over the categories present in both."""
    both = [e for e in rows if e.term != "size" and not math.isnan(e.mean_small)]
    if len(both) < 2:
        return len(both), math.nan
    return len(both), spearman([e.mean_all for e in both], [e.mean_small for e in both])
