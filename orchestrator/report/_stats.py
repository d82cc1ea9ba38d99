"""Interval estimates and rank correlation. Pure functions over numbers: no I/O, no records.

- `wilson(k, n)`: Wilson score interval for a binomial rate;
- `cluster_bootstrap(values, clusters)`: percentile interval for a mean, resampling whole
  clusters (tasks) with replacement, so runs of one task do not count as independent;
- `spearman(x, y)`: rank correlation with average ranks for ties;
- `permutation_p(x, y)`: two-sided p-value of Spearman's rho by permutation.

Every random draw comes from a `numpy.random.Generator` seeded by the caller (default 0),
so the same inputs always give the same report.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Sequence

import numpy as np
import numpy.typing as npt

Z95 = 1.959963984540054  # two-sided 95% normal quantile

FloatArray = npt.NDArray[np.float64]


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for `k` successes in `n` trials; (0, 1) when n == 0."""
    if n < 0 or k < 0 or k > n:
        raise ValueError(f"expected 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def cluster_bootstrap(
    values: Sequence[float],
    clusters: Sequence[Hashable],
    *,
    n_boot: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[float, float, float]:
    """(mean, lo, hi): percentile interval of the pooled mean over resampled clusters.

    Each replicate draws as many clusters as there are, with replacement, and takes the
    mean of every value in the drawn clusters. With one cluster the interval collapses
    to the mean; with no values everything is NaN.
    """
    if len(values) != len(clusters):
        raise ValueError(f"expected one cluster per value, got {len(values)} vs {len(clusters)}")
    if not values:
        return (math.nan, math.nan, math.nan)
    v = np.asarray(values, dtype=np.float64)
    mean = float(v.mean())
    keys: dict[Hashable, int] = {}
    ids = np.array([keys.setdefault(c, len(keys)) for c in clusters], dtype=np.intp)
    sums = np.bincount(ids, weights=v, minlength=len(keys))
    counts = np.bincount(ids, minlength=len(keys)).astype(np.float64)
    if len(keys) == 1:
        return (mean, mean, mean)
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(keys), size=(n_boot, len(keys)))
    reps = sums[draws].sum(axis=1) / counts[draws].sum(axis=1)
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(reps, [alpha, 1.0 - alpha])
    return (mean, float(lo), float(hi))


def rankdata(x: Sequence[float]) -> FloatArray:
    """1-based ranks; tied values share the average of the ranks they span."""
    a = np.asarray(x, dtype=np.float64)
    order = np.argsort(a, kind="mergesort")
    ranks = np.empty(len(a), dtype=np.float64)
    sorted_a = a[order]
    i = 0
    while i < len(a):
        j = i
        while j + 1 < len(a) and sorted_a[j + 1] == sorted_a[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2.0 + 1.0
        i = j + 1
    return ranks


def _pearson(a: FloatArray, b: FloatArray) -> float:
    da, db = a - a.mean(), b - b.mean()
    denom = math.sqrt(float((da * da).sum()) * float((db * db).sum()))
    return math.nan if denom == 0.0 else float((da * db).sum()) / denom


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rho (Pearson correlation of average ranks); NaN if either side is constant."""
    if len(x) != len(y):
        raise ValueError(f"expected equal lengths, got {len(x)} and {len(y)}")
    if len(x) < 2:
        return math.nan
    return _pearson(rankdata(x), rankdata(y))


def permutation_p(
    x: Sequence[float], y: Sequence[float], *, n_perm: int = 10000, seed: int = 0
) -> float:
    """Two-sided p-value of Spearman's rho: exact over all orderings for n <= 8, else sampled."""
    rho = spearman(x, y)
    if math.isnan(rho):
        return math.nan
    rx, ry = rankdata(x), rankdata(y)
    if len(rx) <= 8:
        perms: list[FloatArray] = [ry[list(p)] for p in itertools.permutations(range(len(ry)))]
    else:
        rng = np.random.default_rng(seed)
        perms = [rng.permutation(ry) for _ in range(n_perm)]
    # Every permutation's rho at once (a paper-scale report has many): the same draws
    # and the same tolerance as one `_pearson` per permutation.
    da = rx - rx.mean()
    db = np.stack(perms)
    db = db - db.mean(axis=1, keepdims=True)
    denom = np.sqrt(float((da * da).sum()) * (db * db).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        rhos = (db @ da) / denom
    hits = int(np.count_nonzero(np.abs(rhos) >= abs(rho) - 1e-12))
    return hits / len(perms)
