"""Every statistic the report prints for issue #37 (populations, Gate%/19, the paper's
further statistics, what scope and serve measured), computed a second way: SQL over the
manifest JSONL with DuckDB (`sql_check.py`), never through the report's code. Both must
agree to the last printed digit, on two populations (three once #55's real `mixed` run is
recorded in `fixtures/mixed-real/`), and a population bug planted in the report's Python
must make them disagree.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from orchestrator.records import UNSCORED, BudgetStop, ManifestRow
from orchestrator.report import Report, _aggregate, _measures, _paper, tables
from tests.report.mixed_real import REAL_RECORDED, REAL_TASKS, real_run
from tests.report.mixed_run import recorded_run
from tests.report.sql_check import CHECKS, Check, database, q, report_of
from tests.report.sql_run import SqlRun, realistic_run

# The real run is a population once it is recorded (`test_mixed_real.py` says when).
POPULATIONS = ["synthetic", "mixed", *(["real"] if REAL_RECORDED.is_dir() else [])]


@pytest.fixture(scope="module", params=POPULATIONS)
def run(request: pytest.FixtureRequest) -> SqlRun:
    """The populations: the seeded synthetic rows of `sql_run.py` (every status, scaffold
    grid, repeats); the recorded fake `mixed` sweep over all shipped task packages
    (`mixed_run.py`: real cells, real scoring, the oracle verifier); and, once recorded,
    #55's real `mixed` sweep over 12 of them (`mixed_real.py`: Docker, Chromium, the real
    grader)."""
    match request.param:
        case "synthetic":
            return realistic_run()
        case "mixed":
            return recorded_run()
        case _:
            return real_run()


@pytest.fixture(scope="module")
def rep(run: SqlRun) -> Report:
    return report_of(run)


@pytest.fixture(scope="module")
def db(run: SqlRun, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    con = database(run, tmp_path_factory.mktemp("sql") / "manifest.jsonl")
    yield con
    con.close()


def test_the_manifest_is_realistic(db: Any, run: SqlRun) -> None:
    """The population this test rests on has every case issue #37 names."""
    (n_undelivered,) = q(
        db, "SELECT count(*) FROM m WHERE status IN ('budget','llm_error') AND NOT has_result"
    )[0]
    (n_never,) = q(db, "SELECT count(*) FROM m WHERE status = 'budget' AND attempts = 0")[0]
    (n_ctrl_flips,) = q(db, "SELECT count(*) FROM results WHERE role = 'control' AND n_flips > 0")[
        0
    ]
    (n_cov,) = q(db, "SELECT count(*) FROM models WHERE covered AND completing")[0]
    ((tasks, budget, clean, broken, repaired, unrepaired, regressed),) = q(
        db,
        """
        SELECT count(DISTINCT task),
               count(*) FILTER (WHERE status = 'budget' AND has_result),
               count(*) FILTER (WHERE completing AND n_flips = 0),
               count(*) FILTER (WHERE completing AND n_flips > 0),
               count(*) FILTER (WHERE len(list_filter(flip_repaired, x -> x IS NOT NULL)) > 0),
               count(*) FILTER (WHERE len(list_filter(flip_repaired, x -> x IS NULL)) > 0),
               count(*) FILTER (WHERE n_regs > 0)
        FROM models
        """,
    )
    if {r.task for r in run.rows} == set(REAL_TASKS):
        # #55's real `mixed` sweep: its 12 tasks, the same solvers, and every case, fewer
        # times than over the 30 tasks below (the fake sweep of these 12 has 8 budget
        # stops, 23 clean and 3 broken completions, 5 and 11 runs with a flip repaired
        # and not, 2 baseline regressions, 13 control flips, 26 covered completions).
        assert budget >= 1 and clean >= 5 and broken >= 1 and repaired >= 1 and unrepaired >= 1
        assert regressed >= 1 and n_ctrl_flips >= 1 and n_cov >= 10
        return
    if any(c.kind == "mixed" for c in run.cards.values()):
        # The fake `mixed` sweep over every shipped task: what a real sweep writes.
        assert tasks == 30 and budget >= 5 and clean >= 10 and broken >= 3
        assert repaired >= 5 and unrepaired >= 5 and regressed >= 5
        assert n_ctrl_flips >= 5 and n_cov >= 20
        return
    assert n_undelivered >= 10 and n_never >= 5 and n_ctrl_flips >= 5 and n_cov >= 20


def test_gate19_is_never_below_gate(rep: Report) -> None:
    """(pass + n/a) / 19 >= pass / (pass + fail): the paper's scale reads higher."""
    for s in rep.scores.rows:
        assert s.gate19 is not None and s.gate19.value >= s.gate.value - 1e-12


@pytest.mark.parametrize("check", CHECKS)
def test_the_report_agrees_with_sql(db: Any, rep: Report, run: SqlRun, check: str) -> None:
    CHECKS[check](db, rep, run)


def test_readme_maps_every_report_table_to_the_paper(rep: Report) -> None:
    """README "Scores" names each table of the report and what of the paper it reproduces."""
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    start = readme.index("| table (HTML id) | report section | paper |")
    mapped = {
        line.split("|")[1].strip().strip("`")
        for line in readme[start:].split("\n\n", 1)[0].splitlines()[2:]
    }
    assert {t.id for t in tables(rep)} <= mapped


# ---------------------------------------------------------------- planted population bugs


def _never_run(run: SqlRun) -> SqlRun:
    """The mixed run plus, per model, cells a sweep cap stopped before they started
    (`budget`, attempts 0, no result): no result, never scored."""
    extra: list[ManifestRow] = []
    for row in run.rows:
        if run.cards[row.solver].role == "model" and row.task not in {r.task for r in extra}:
            cell = row.cell.rsplit("/", 1)[0] + "/9"
            stop = BudgetStop(kind="money", error="sweep money/token cap reached before start")
            extra.append(
                msgspec.structs.replace(row, cell=cell, repeat=9, attempts=0, outcome=stop)
            )
        if len(extra) == 6:
            break
    return SqlRun(rows=[*run.rows, *extra], cards=run.cards, twins=run.twins)


def _completing_means_scored(row: ManifestRow) -> bool:
    return row.scores is not None  # every scored run, not the completing ones


def _result_means_run(row: ManifestRow) -> bool:
    return row.status in UNSCORED  # a budget row with no result is scored as zero


# The comparisons the planted bugs below are read by.
PLANT_CHECKS: dict[str, Check] = {
    name: CHECKS[name] for name in ("scores", "header", "statistics", "regression-gates")
}


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SqlRun, Any]]:
    """The mixed run with never-run rows, in SQL; the bug-free report agrees with it."""
    run = _never_run(recorded_run())
    con = database(run, tmp_path_factory.mktemp("planted") / "manifest.jsonl")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_measures, "N_BOOT", 50)  # the checks read point values and Wilson rates
        clean = report_of(run)
    for check in PLANT_CHECKS.values():
        check(con, clean, run)
    yield run, con
    con.close()


@pytest.mark.parametrize(
    ("bug", "caught_by"),
    [
        ("wrong denominator", {"statistics"}),
        ("control pooled", {"statistics", "regression-gates"}),
        ("never-run row scored", {"scores", "header"}),
    ],
)
def test_a_planted_population_bug_fails_the_second_computation(
    planted: tuple[SqlRun, Any], bug: str, caught_by: set[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """On the mixed run (with never-run rows added) the comparisons above pass; with one
    population bug planted in the report's Python, the ones that read it fail."""
    run, con = planted
    monkeypatch.setattr(_measures, "N_BOOT", 50)
    reported = run
    match bug:
        case "wrong denominator":
            monkeypatch.setattr(_paper, "completing", _completing_means_scored)
        case "control pooled":
            cards = dict(run.cards)
            cards["thrash"] = msgspec.structs.replace(cards["thrash"], role="model")
            reported = SqlRun(rows=run.rows, cards=cards, twins=run.twins)
        case "never-run row scored":
            monkeypatch.setattr(_aggregate, "no_result", _result_means_run)
    bugged = report_of(reported)
    failed = set()
    for name, check in PLANT_CHECKS.items():
        try:
            check(con, bugged, run)
        except AssertionError:
            failed.add(name)
    assert caught_by <= failed, (bug, failed)
