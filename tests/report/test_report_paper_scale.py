"""The report on a population of the paper's size (`paper_run.py`: 400 tasks, 9 models,
both arms, the paper's mix of row endings): every statistic it prints agrees with the
independent DuckDB computation (`sql_check.py`) to the last printed digit, and each
population bug planted in the report's Python makes that comparison fail.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import pytest

from orchestrator.records import UNSCORED, ManifestRow
from orchestrator.report import (
    LoadedRun,
    LoadStats,
    Report,
    _aggregate,
    _measures,
    _paper,
    aggregate,
    cluster_bootstrap,
    wilson,
)
from orchestrator.solver_cards import SolverCard
from tests.report.paper_run import CARDS, MODELS, TASKS, paper_run
from tests.report.sql_check import CHECKS, N_BOOT, database, q
from tests.report.sql_run import SqlRun


@pytest.fixture(scope="module")
def run() -> SqlRun:
    return paper_run()


def _report(run: SqlRun) -> Report:
    n = len(run.rows)
    stats = LoadStats(lines=n, torn=0, superseded=0, stale_hash=0, missing_task=0, kept=n)
    loaded = LoadedRun(
        rows=tuple(run.rows), stats=stats, task_roots={}, twins=run.twins, cards=run.cards
    )
    with pytest.MonkeyPatch.context() as mp:
        # Both computations draw the same number of bootstrap replicates (`sql_check`):
        # fewer than a report's default, so that five reports fit the fast tier.
        mp.setattr(_measures, "N_BOOT", N_BOOT)
        return aggregate(loaded, "run")


@pytest.fixture(scope="module")
def rep(run: SqlRun) -> Report:
    return _report(run)


@pytest.fixture(scope="module")
def db(run: SqlRun, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    con = database(run, tmp_path_factory.mktemp("paper") / "manifest.jsonl")
    yield con
    con.close()


def test_the_population_is_shaped_like_the_papers(run: SqlRun, db: Any) -> None:
    # Its cost is the fast tier's to show (README "Tests"), not a wall-time assertion that
    # a loaded machine flips (issue #52).
    again = paper_run()
    assert again.rows == run.rows and paper_run(seed=56).rows != run.rows  # seeded
    models = [c for c in run.cards.values() if c.role == "model"]
    assert len(models) == len(MODELS) == 9
    assert {c.role for c in run.cards.values()} == {"model", "control"}
    ((tasks, change, build, twins),) = q(
        db,
        "SELECT count(DISTINCT task), count(DISTINCT task) FILTER (WHERE regime = 'change'), "
        "count(DISTINCT task) FILTER (WHERE regime = 'build'), "
        "count(DISTINCT task) FILTER (WHERE task IN (SELECT twin FROM twins)) FROM m",
    )
    assert tasks == TASKS and 0.75 <= change / tasks <= 0.85 and twins >= 10 and build > twins
    statuses = Counter(r.status for r in run.rows)
    assert statuses["ok"] / len(run.rows) > 0.75
    for status in ("infra_error", "llm_error", "budget", "cancelled", "harness_error"):
        assert statuses[status] >= 50, status
    by_arm = Counter((r.arm, r.solver) for r in run.rows if run.cards[r.solver].role == "model")
    assert {arm for arm, _ in by_arm} == {"staged", "full-spec"}
    ((no_result, budget_scored, never, reworks, repaired, unrepaired, repeated),) = q(
        db,
        """
        SELECT count(*) FILTER (WHERE status IN ('cancelled', 'outage', 'task_error')
                                   OR (status IN ('budget', 'llm_error') AND NOT has_result)),
               count(*) FILTER (WHERE status = 'budget' AND has_result),
               count(*) FILTER (WHERE status = 'budget' AND attempts = 0),
               count(*) FILTER (WHERE list_contains(unit_kinds, 'rework')),
               count(*) FILTER (WHERE len(list_filter(flip_repaired, x -> x IS NOT NULL)) > 0),
               count(*) FILTER (WHERE len(list_filter(flip_repaired, x -> x IS NULL)) > 0),
               (SELECT count(*) FROM (SELECT task, solver, arm FROM m
                                      GROUP BY ALL HAVING count(*) > 1))
        FROM m
        """,
    )
    assert no_result >= 300 and budget_scored >= 200 and never >= 100
    assert reworks >= 0.9 * sum(r.result is not None for r in run.rows)
    assert repaired >= 300 and unrepaired >= 300 and repeated == 60


@pytest.mark.parametrize("check", CHECKS)
def test_the_report_agrees_with_sql(db: Any, rep: Report, run: SqlRun, check: str) -> None:
    CHECKS[check](db, rep, run)


# ---------------------------------------------------------------- planted population bugs


def _completing_means_scored(row: ManifestRow) -> bool:
    return row.scores is not None  # the denominator: every scored run, not the completing


def _card_pooling_thrash(self: LoadedRun, solver: str) -> SolverCard:
    card = CARDS[solver]  # the control `thrash` read as a model under test
    return SolverCard(name=card.name, kind=card.kind, role="model") if solver == "thrash" else card


def _result_means_run(row: ManifestRow) -> bool:
    return row.status in UNSCORED  # a budget or llm_error row without a result scores 0


Plant = Callable[[pytest.MonkeyPatch], None]
PLANTS: dict[str, Plant] = {
    "wrong denominator": lambda mp: mp.setattr(_paper, "completing", _completing_means_scored),
    "control pooled": lambda mp: mp.setattr(LoadedRun, "card", _card_pooling_thrash),
    "no-result row scored as zero": lambda mp: mp.setattr(
        _aggregate, "no_result", _result_means_run
    ),
    "Wilson interval at 90 %": lambda mp: mp.setattr(
        _measures, "wilson", partial(wilson, z=1.6448536269514722)
    ),
    "bootstrap interval at 90 %": lambda mp: mp.setattr(
        _measures, "cluster_bootstrap", partial(cluster_bootstrap, level=0.90)
    ),
}


@pytest.mark.parametrize("bug", PLANTS)
def test_a_planted_population_bug_fails_the_comparison(
    db: Any, run: SqlRun, bug: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each bug, planted alone in the report's Python, makes some comparison fail."""
    PLANTS[bug](monkeypatch)
    bugged = _report(run)
    failed = set()
    for name, check in CHECKS.items():
        try:
            check(db, bugged, run)
        except AssertionError:
            failed.add(name)
    assert failed, f"{bug}: every comparison still agrees"
