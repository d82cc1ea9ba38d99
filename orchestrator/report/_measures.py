"""Turn rows into `Rate` / `Mean` records, and read a row's scores with infra handling."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from ..records import UNSCORED, BaselineRegression, Flip, ManifestRow, Scores, UnitOutcome
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
    return Mean(n=len(values), tasks=len(set(clusters)), value=value, lo=lo, hi=hi)


def row_mean(rows: Sequence[ManifestRow], get: Callable[[Scores], float]) -> Mean:
    """Mean of a score over rows, clustered by task; a row without scores counts as zero."""
    return mean([get(r.scores) if r.scores else 0.0 for r in rows], [r.task for r in rows])


def row_rate(rows: Sequence[ManifestRow], get: Callable[[Scores], bool]) -> Rate:
    return rate(bool(r.scores and get(r.scores)) for r in rows)


# Statuses whose row is scored on what the solver delivered, when it delivered something.
DELIVERING = frozenset({"llm_error", "budget"})


def no_result(row: ManifestRow) -> bool:
    """A row that is no result: never scored on any measure, counted in the report header,
    re-run by `--resume` (`orchestrator.records.has_result`). `cancelled`, `outage` and
    `task_error` always; `llm_error` and `budget` when no final checkpoint ran (a sweep
    cap that stopped the cell before it started, an in-harness provider failure): there
    is nothing to score, and a zero would drag down whichever solver was queued late."""
    return row.status in UNSCORED or (row.status in DELIVERING and row.result is None)


def completing(row: ManifestRow) -> bool:
    """Requested-work completion (paper §3.3): every completion-family gate passes on the
    final workspace, whatever the status (a budget-stopped run can complete)."""
    return row.scores is not None and row.scores.completion_pass


# Accessors for the parts of a row the report reads: a delivered result exists only when a
# final checkpoint ran (see `records`).
def row_flips(row: ManifestRow) -> tuple[Flip, ...]:
    return row.result.flips if row.result else ()


def row_regressions(row: ManifestRow) -> tuple[BaselineRegression, ...]:
    return row.result.baseline_regressions if row.result else ()


def row_covered(row: ManifestRow) -> bool:
    return row.result.baseline_covered if row.result else False


def row_units(row: ManifestRow) -> tuple[UnitOutcome, ...]:
    return row.result.units if row.result else ()


def row_tokens(row: ManifestRow) -> int:
    return row.spend.tokens


def row_cost(row: ManifestRow) -> float:
    return row.spend.cost_usd
