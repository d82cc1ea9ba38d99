"""Turn rows into `Rate` / `Mean` records, and read a row's scores with infra handling."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from ..records import ManifestRow, Scores
from ._model import Mean, Rate
from ._stats import cluster_bootstrap, wilson

SEED = 0
N_BOOT = 2000


def rate(flags: Iterable[bool]) -> Rate:
    seq = list(flags)
    k, n = sum(seq), len(seq)
    lo, hi = wilson(k, n)
    return Rate(k=k, n=n, lo=lo, hi=hi)


def mean(values: Sequence[float], clusters: Sequence[str]) -> Mean:
    value, lo, hi = cluster_bootstrap(values, clusters, n_boot=N_BOOT, seed=SEED)
    return Mean(n=len(values), value=value, lo=lo, hi=hi)


def row_mean(rows: Sequence[ManifestRow], get: Callable[[Scores], float]) -> Mean:
    """Mean of a score over rows, clustered by task; a row without scores counts as zero."""
    return mean([get(r.scores) if r.scores else 0.0 for r in rows], [r.task for r in rows])


def row_rate(rows: Sequence[ManifestRow], get: Callable[[Scores], bool]) -> Rate:
    return rate(bool(r.scores and get(r.scores)) for r in rows)


def completing(row: ManifestRow) -> bool:
    """A run that finished on its own terms (status ok) and was scored."""
    return row.status == "ok" and row.scores is not None
