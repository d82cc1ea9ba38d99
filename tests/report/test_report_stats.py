"""`_stats`: Wilson bounds, clustered bootstrap and Spearman against known values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from orchestrator.report import cluster_bootstrap, mean, permutation_p, rankdata, spearman, wilson


def test_wilson_known_bounds() -> None:
    lo, hi = wilson(0, 10)
    assert lo == 0.0
    assert hi == pytest.approx(0.2775, abs=1e-4)
    assert wilson(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert wilson(10, 10) == pytest.approx((1 - 0.2775, 1.0), abs=1e-4)
    assert wilson(1, 3) == pytest.approx((0.0615, 0.7923), abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)


def test_wilson_rejects_impossible_counts() -> None:
    with pytest.raises(ValueError):
        wilson(3, 2)


def test_bootstrap_is_deterministic_and_brackets_the_mean() -> None:
    values = [0.1, 0.4, 0.9, 0.5, 0.7, 0.2, 1.0, 0.0]
    clusters = ["a", "a", "b", "b", "c", "c", "d", "d"]
    first = cluster_bootstrap(values, clusters)
    assert first == cluster_bootstrap(values, clusters)
    mean, lo, hi = first
    assert mean == pytest.approx(np.mean(values))
    assert lo < mean < hi
    assert 0.0 <= lo and hi <= 1.0


def test_bootstrap_resamples_clusters_not_values() -> None:
    # Every cluster has the same mean: any resample of whole clusters gives that mean.
    mean, lo, hi = cluster_bootstrap([0.0, 1.0, 1.0, 0.0, 0.5, 0.5], ["x", "x", "y", "y", "z", "z"])
    assert (mean, lo, hi) == pytest.approx((0.5, 0.5, 0.5))


def test_bootstrap_degenerate_inputs() -> None:
    assert cluster_bootstrap([0.2, 0.4], ["t", "t"]) == pytest.approx((0.3, 0.3, 0.3))
    assert all(math.isnan(x) for x in cluster_bootstrap([], []))
    with pytest.raises(ValueError):
        cluster_bootstrap([1.0], [])


def _binomial_quantile(k: int, q: float) -> int:
    """Smallest x with P(Binomial(k, 1/2) <= x) >= q, from the exact distribution."""
    total = 0.0
    for x in range(k + 1):
        total += math.comb(k, x) / 2**k
        if total >= q:
            return x
    return k


@pytest.mark.parametrize("via", ["cluster_bootstrap", "report mean"])
def test_bootstrap_interval_is_95_percent_of_a_known_distribution(via: str) -> None:
    """Issue #35: the report's interval is 95 %, not 90 %. With 100 one-value tasks, half
    0 and half 1, a resample's mean is Binomial(100, 1/2) / 100: its 2.5 % and 97.5 %
    quantiles are 0.40 and 0.60 (at 90 %: 0.42 and 0.58)."""
    k = 100
    values = [float(i % 2) for i in range(k)]
    clusters = [f"t{i}" for i in range(k)]
    if via == "report mean":
        m = mean(values, clusters)
        value, lo, hi = m.value, m.lo, m.hi
    else:
        value, lo, hi = cluster_bootstrap(values, clusters)
    want_lo = _binomial_quantile(k, 0.025) / k
    want_hi = _binomial_quantile(k, 0.975) / k
    assert (want_lo, want_hi) == (0.40, 0.60)
    assert value == 0.5
    assert lo == pytest.approx(want_lo, abs=0.01)
    assert hi == pytest.approx(want_hi, abs=0.01)


def test_bootstrap_level_sets_the_width_like_the_normal_quantiles() -> None:
    """The default interval is the 95 % one: wider than the 90 % one by about
    z(0.975) / z(0.95) = 1.96 / 1.645 = 1.19 (many tasks: the bootstrap mean is normal)."""
    rng = np.random.default_rng(7)
    values = rng.uniform(0.0, 1.0, size=400).tolist()
    clusters = [f"t{i // 2}" for i in range(400)]
    _, lo95, hi95 = cluster_bootstrap(values, clusters, n_boot=4000)
    _, lo90, hi90 = cluster_bootstrap(values, clusters, n_boot=4000, level=0.90)
    assert (hi95 - lo95) / (hi90 - lo90) == pytest.approx(1.96 / 1.645, rel=0.05)
    assert cluster_bootstrap(values, clusters, n_boot=4000, level=0.95) == cluster_bootstrap(
        values, clusters, n_boot=4000
    )


def test_bootstrap_pools_values_over_unequal_tasks() -> None:
    """The mean is over every value (a task with more runs weighs more), and so is each
    resample's; an interval of one task's repeated draws is its own mean."""
    values = [1.0, 1.0, 1.0, 0.0]
    clusters = ["a", "a", "a", "b"]
    value, lo, hi = cluster_bootstrap(values, clusters)
    assert value == 0.75
    # Resamples: aaa+aaa (1.0), aaa+b (0.75), b+b (0.0): the extremes are reached.
    assert (lo, hi) == (0.0, 1.0)


def test_rankdata_averages_ties() -> None:
    assert rankdata([10, 20, 20, 30]).tolist() == [1.0, 2.5, 2.5, 4.0]
    assert rankdata([3, 1, 2]).tolist() == [3.0, 1.0, 2.0]
    assert rankdata([5, 5, 5]).tolist() == [2.0, 2.0, 2.0]


def test_spearman_known_values() -> None:
    assert spearman([1, 2, 3, 4, 5], [5, 6, 7, 8, 7.5]) == pytest.approx(0.9)
    assert spearman([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    # ties: ranks x=[3,1,2], y=[3,1.5,1.5] -> rho = 1.5 / sqrt(2 * 1.5)
    assert spearman([0.75, 0.375, 0.5], [2 / 3, 0, 0]) == pytest.approx(math.sqrt(3) / 2)
    assert math.isnan(spearman([1, 2, 3], [4, 4, 4]))


def test_permutation_p_exact_for_small_n() -> None:
    # n=3, rho=-1 is reached by 2 of the 6 orderings in absolute value (+1 and -1).
    assert permutation_p([1, 2, 3], [3, 2, 1]) == pytest.approx(2 / 6)
    assert permutation_p(range(10), range(10)) < 0.01


def test_permutation_p_is_exact_up_to_8_and_seeded_sampling_above() -> None:
    # n = 8: every one of the 8! orderings (184 reach |rho| of this pairing).
    x8, y8 = list(range(8)), [1, 0, 3, 2, 5, 4, 7, 6]
    assert permutation_p(x8, y8) * 40320 == pytest.approx(184, abs=1e-9)
    # n = 9: 10000 orderings drawn with seed 0, the same on every call.
    x9, y9 = list(range(9)), [1, 0, 3, 2, 5, 4, 8, 6, 7]
    p = permutation_p(x9, y9)
    assert p == permutation_p(x9, y9, n_perm=10000, seed=0) == 19 / 10000
    assert permutation_p(x9, y9, seed=1) != p


def test_bootstrap_defaults_are_2000_draws_seeded_0() -> None:
    values = [0.1, 0.9, 0.3, 0.35, 0.8, 0.0, 0.6]
    clusters = ["a", "b", "c", "c", "d", "e", "e"]
    got = cluster_bootstrap(values, clusters)
    assert got == cluster_bootstrap(values, clusters, n_boot=2000, seed=0, level=0.95)
    assert got != cluster_bootstrap(values, clusters, n_boot=2001)
    assert got != cluster_bootstrap(values, clusters, seed=1)


def test_bootstrap_refuses_values_without_a_cluster_each() -> None:
    with pytest.raises(ValueError, match=r"^expected one cluster per value, got 2 vs 1$"):
        cluster_bootstrap([1.0, 2.0], ["a"])


def test_wilson_bounds_stay_within_0_and_1() -> None:
    # k = n = 16: the unclamped upper bound is 1.0000000000000002 in floating point.
    assert wilson(16, 16)[1] == 1.0
    assert all(0.0 <= lo <= hi <= 1.0 for n in range(1, 70) for lo, hi in [wilson(n, n)])


@pytest.mark.parametrize(("k", "n"), [(-1, 3), (4, 3), (0, -1), (-2, -1)])
def test_wilson_refuses_every_impossible_count(k: int, n: int) -> None:
    with pytest.raises(ValueError, match=rf"^expected 0 <= k <= n, got k={k}, n={n}$"):
        wilson(k, n)


def test_spearman_of_two_points_and_unequal_lengths() -> None:
    assert spearman([1, 2], [1, 5]) == 1.0
    assert spearman([1, 2], [5, 1]) == -1.0
    assert math.isnan(spearman([1], [1]))
    with pytest.raises(ValueError, match=r"^expected equal lengths, got 2 and 3$"):
        spearman([1, 2], [1, 2, 3])
