"""The report's statistics computed a second way: SQL over the manifest JSONL with DuckDB,
reading the rows as written, never through the report's code. Shared by the populations
that check the report against it (`test_report_sql.py`: the seeded synthetic run and the
recorded `mixed` sweep; `test_report_paper_scale.py`: the paper-scale synthetic run).

The SQL states each population from the README's words, not from the Python: a row that
is no result (cancelled, outage, task_error; budget or llm_error without a result) is in
no population; controls and scripted solvers are in no pooled row; twins are not Build.
Each `check_*` compares one table (or note) of the report with the SQL, to the last
printed digit, and raises AssertionError where they differ; `CHECKS` names them all.
`report_of` is the report's own computation of a run, the one the checks compare with.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import duckdb
import msgspec
import numpy as np
import pytest

from orchestrator.report import LoadedRun, LoadStats, Report, _measures, aggregate
from orchestrator.report._summary import top
from orchestrator.report._tables import Table, header_note, tables
from tests.report.sql_run import COMPLETION, CONSERVATIVE, GATE_NAMES, SqlRun

Z = 1.959963984540054
REG_ARM = "staged"  # the runs have staged rows: the regression channels read that arm
# Bootstrap replicates of the independent cluster bootstrap (`check_leaderboard`); a test
# that compares intervals gives the report's `_measures.N_BOOT` the same count.
N_BOOT = 200


def report_of(run: SqlRun) -> Report:
    """The report of `run` as the harness computes it, drawing as many bootstrap replicates
    as the SQL (`N_BOOT`)."""
    n = len(run.rows)
    stats = LoadStats(lines=n, torn=0, superseded=0, stale_hash=0, missing_task=0, kept=n)
    loaded = LoadedRun(
        rows=tuple(run.rows), stats=stats, task_roots={}, twins=run.twins, cards=run.cards
    )
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_measures, "N_BOOT", N_BOOT)  # as many replicates as the SQL draws
        return aggregate(loaded, "run")


def database(run: SqlRun, path: Path) -> Any:
    """The run's manifest JSONL as DuckDB tables and views (the second computation)."""
    path.write_bytes(b"".join(msgspec.json.encode(r) + b"\n" for r in run.rows))
    con = duckdb.connect()
    con.execute(
        "CREATE TABLE cards "
        "(solver VARCHAR, kind VARCHAR, role VARCHAR, scaffold VARCHAR, backbone VARCHAR)"
    )
    con.executemany(
        "INSERT INTO cards VALUES (?, ?, ?, ?, ?)",
        [(c.name, c.kind, c.role, c.scaffold, c.backbone) for c in run.cards.values()],
    )
    # The manifest's order (completion order), which a task-clustered bootstrap numbers
    # its clusters by (first appearance).
    con.execute("CREATE TABLE ord (cell VARCHAR, i INTEGER)")
    con.executemany("INSERT INTO ord VALUES (?, ?)", [(r.cell, i) for i, r in enumerate(run.rows)])
    con.execute("CREATE TABLE twins (twin VARCHAR, source VARCHAR)")
    con.executemany("INSERT INTO twins VALUES (?, ?)", list(run.twins.items()))
    gate = "+".join(
        f"(CASE WHEN j->>'$.outcome.result.final_gates.{g}' IN ('pass', 'n/a') THEN 1 ELSE 0 END)"
        for g in GATE_NAMES
    )
    con.execute(
        f"""
        CREATE TABLE m AS
        SELECT
            j->>'$.cell' AS cell,
            j->>'$.task' AS task,
            CAST(j->>'$.spend.cost_usd' AS DOUBLE) AS cost,
            j->>'$.solver' AS solver,
            j->>'$.arm' AS arm,
            j->>'$.labels.regime' AS regime,
            j->>'$.labels.facet' AS facet,
            j->>'$.labels.stack' AS stack,
            j->>'$.outcome.status' AS status,
            CAST(j->>'$.attempts' AS INTEGER) AS attempts,
            json_type(j, '$.outcome.result') = 'OBJECT' AS has_result,
            CAST(j->>'$.outcome.result.scores.gate' AS DOUBLE) AS gate,
            CAST(j->>'$.outcome.result.scores.stage' AS DOUBLE) AS stage,
            CAST(j->>'$.outcome.result.scores.wcs' AS DOUBLE) AS wcs,
            CAST(j->>'$.outcome.result.scores.whole_task' AS BOOLEAN) AS whole,
            CAST(j->>'$.outcome.result.scores.final_pass' AS BOOLEAN) AS final_pass,
            CAST(j->>'$.outcome.result.scores.completion_pass' AS BOOLEAN) AS completing,
            CAST(j->>'$.outcome.result.scores.continuity_pass' AS BOOLEAN) AS cons_pass,
            CAST(j->>'$.outcome.result.scores.complete_not_cleared' AS BOOLEAN) AS cnc,
            CAST(j->>'$.outcome.result.baseline_covered' AS BOOLEAN) AS covered,
            CAST(j->>'$.outcome.result.edits_applied' AS INTEGER) AS edits,
            CAST(j->>'$.outcome.result.edits_refused' AS INTEGER) AS refused,
            CAST(j->>'$.outcome.result.turns' AS INTEGER) AS turns,
            json_array_length(j, '$.outcome.result.units') AS n_units,
            json_extract_string(j, '$.outcome.result.units[*].kind') AS unit_kinds,
            len(list_filter(
                json_extract_string(j, '$.outcome.result.units[*].cleared'), x -> x = 'true'
            )) AS n_cleared,
            j->>'$.labels.capability' AS capability,
            json_extract_string(j, '$.outcome.result.flips[*].gate') AS flip_gates,
            json_extract_string(j, '$.outcome.result.flips[*].repaired_at') AS flip_repaired,
            json_extract_string(j, '$.outcome.result.baseline_regressions[*].gate') AS reg_gates,
            j->>'$.outcome.result.final_gates.dom' AS g_dom,
            j->>'$.outcome.result.final_gates.interaction' AS g_interaction,
            j->>'$.outcome.result.final_gates.scope' AS g_scope,
            j->>'$.outcome.result.final_gates.serve' AS g_serve,
            j->>'$.outcome.result.final_gates.build' AS g_build,
            json_extract(j, '$.outcome.result.final_gates') AS gates,
            ({gate}) / 19.0 AS gate19
        FROM read_ndjson_objects('{path}') AS t(j)
        """
    )
    # No result: never scored on any measure.
    con.execute(
        """
        CREATE VIEW results AS
        SELECT m.*, c.kind, c.role, c.scaffold, c.backbone,
               coalesce(len(flip_gates), 0) AS n_flips,
               coalesce(len(reg_gates), 0) AS n_regs
        FROM m JOIN cards c USING (solver)
        WHERE status NOT IN ('cancelled', 'outage', 'task_error')
          AND NOT (status IN ('budget', 'llm_error') AND NOT has_result)
        """
    )
    # Scored on what was delivered: infrastructure faults and bugs of ours are not theirs.
    con.execute(
        "CREATE VIEW scored AS SELECT * FROM results "
        "WHERE status NOT IN ('infra_error', 'harness_error')"
    )
    con.execute("CREATE VIEW models AS SELECT * FROM scored WHERE role = 'model'")
    return con


def q(db: Any, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    rows: list[tuple[Any, ...]] = db.execute(sql, list(args)).fetchall()
    return rows


def wilson(k: int, n: int) -> str:
    """The report's printed rate, from k and n alone."""
    if n == 0:
        return "—"
    p = k / n
    denom = 1 + Z * Z / n
    centre = (p + Z * Z / (2 * n)) / denom
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / denom
    lo, hi = max(0.0, centre - half), min(1.0, centre + half)
    return f"{100 * p:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}] ({k}/{n})"


def point(cell: str) -> str:
    """The printed mean without its interval."""
    return cell.split(" ", 1)[0]


def table(rep: Report, id: str) -> Table:
    (t,) = [t for t in tables(rep) if t.id == id]
    return t


def by_key(t: Table, *cols: str) -> dict[tuple[str, ...], dict[str, str]]:
    idx = [t.headers.index(c) for c in cols]
    return {tuple(r[i] for i in idx): dict(zip(t.headers, r, strict=True)) for r in t.rows}


def check_header_counts_every_row_that_is_no_result(db: Any, rep: Report) -> None:
    ((total,),) = q(db, "SELECT count(*) FROM m")
    ((kept,),) = q(db, "SELECT count(*) FROM results")
    assert rep.header.cancelled == total - kept
    undelivered = dict(
        q(
            db,
            "SELECT status, count(*) FROM m WHERE status IN ('budget','llm_error') "
            "AND NOT has_result GROUP BY status",
        )
    )
    assert rep.header.undelivered == undelivered
    assert f"{total - kept} row(s) that are no result" in header_note(rep)


def check_score_tables(db: Any, rep: Report, id: str) -> None:
    infra = "" if id == "scores-zero" else "AND status <> 'infra_error'"
    got = by_key(table(rep, id), "solver", "arm")
    want = q(
        db,
        f"""
        SELECT solver, arm, count(*), sum(CASE WHEN whole THEN 1 ELSE 0 END),
               avg(coalesce(gate, 0)), avg(coalesce(gate19, 0)), avg(coalesce(wcs, 0)),
               avg(coalesce(stage, 0))
        FROM results WHERE status <> 'harness_error' {infra}
        GROUP BY solver, arm
        """,
    )
    assert len(want) == len(got)
    for solver, arm, n, k, gate, gate19, wcs, stage in want:
        row = got[(solver, arm)]
        assert row["cells"] == str(n)
        assert row["Gate%"].startswith(f"{100 * gate:.1f} ")
        assert row["Gate%/19"].startswith(f"{100 * gate19:.1f} ")
        assert row["WCS"].startswith(f"{wcs:.3f} ")
        assert (
            row["Stage%"] == "—"
            if arm == "full-spec"
            else point(row["Stage%"]) == (f"{100 * stage:.1f}")
        )
        if "clustered" not in row["Task%"]:
            assert row["Task%"] == wilson(k, n)
        else:
            assert row["Task%"].endswith(f"({k}/{n}, clustered)")


def check_regression_gate_table_pools_only_the_models(db: Any, rep: Report) -> None:
    got = {r[0]: r[1:] for r in table(rep, "regression-gates").rows}
    want = {}
    for g in GATE_NAMES:
        ((events, flip_runs, base_runs),) = q(
            db,
            """
            SELECT coalesce(sum(len(list_filter(flip_gates, x -> x = ?))), 0),
                   count(*) FILTER (WHERE list_contains(flip_gates, ?)),
                   count(*) FILTER (WHERE list_contains(reg_gates, ?))
            FROM results
            WHERE role = 'model' AND regime = 'change' AND arm = ? AND completing
            """,
            g,
            g,
            g,
            REG_ARM,
        )
        if events or base_runs:
            want[g] = (str(events), str(flip_runs), str(base_runs))
    assert got == want and want


def check_pooled_breakdown_rows(db: Any, rep: Report, id: str, group: str) -> None:
    t = table(rep, id)
    col = t.headers[2]
    got = {k[1:]: v for k, v in by_key(t, "solver", "arm", col).items() if k[0] == "all"}
    want = q(
        db,
        f"""
        SELECT arm, {group} AS g, count(*), avg(gate), avg(wcs), avg(stage)
        FROM scored WHERE role = 'model' GROUP BY arm, g
        """,
    )
    assert len(want) == len(got)
    for arm, g, n, gate, wcs, stage in want:
        row = got[(arm, g)]
        assert row["cells"] == str(n)
        assert point(row["Gate%"]) == f"{100 * gate:.1f}"
        assert point(row["WCS"]) == f"{wcs:.3f}"
        if arm == "staged":
            assert point(row["Stage%"]) == f"{100 * stage:.1f}"
    if id == "regimes":
        assert {g for _, g in got} == {"build", "build twin", "change"}


def check_pooled_twin_rows(db: Any, rep: Report) -> None:
    want = q(
        db,
        """
        WITH per_task AS (
            SELECT solver, arm, task, avg(wcs) AS w FROM scored GROUP BY solver, arm, task
        ), cells AS (
            SELECT s.solver, s.arm, t.twin, tw.w - s.w AS d
            FROM twins t
            JOIN per_task s ON s.task = t.source
            JOIN per_task tw ON tw.task = t.twin AND tw.solver = s.solver AND tw.arm = s.arm
            JOIN cards c ON c.solver = s.solver
            WHERE c.role = 'model'
        )
        SELECT arm, count(*), avg(d), avg(d) / (stddev_samp(d) / sqrt(count(*)))
        FROM cells GROUP BY arm
        """,
    )
    got = {r[1]: r for r in table(rep, "twins").rows if r[0] == "all"}
    assert len(want) == len(got)
    for arm, n, delta, t in want:
        row = got[arm]
        assert row[2] == str(n)
        assert point(row[5]) == f"{100 * delta:.1f}"
        assert row[6] == f"{t:+.2f}"


def _stat_sql() -> dict[str, tuple[str, str]]:
    """(k condition, population condition) of each further statistic, over `models` in the
    regression arm."""
    cons = ", ".join(f"'{g}'" for g in CONSERVATIVE)
    done = "regime = 'change' AND completing"
    cov = f"{done} AND covered"
    return {
        "interaction fails while the static DOM passes": (
            "g_interaction = 'fail'",
            "g_dom = 'pass' AND g_interaction IN ('pass', 'fail')",
        ),
        "completing runs covered by the baseline channel": ("covered", done),
        "baseline regression over all covered runs": (
            "n_regs > 0",
            "regime = 'change' AND covered",
        ),
        "protected flip on the covered subset": ("n_flips > 0", cov),
        "class (a): a conservative gate R0 passed now fails": (
            f"len(list_filter(reg_gates, x -> x IN ({cons}))) > 0",
            cov,
        ),
        "class (b): a conservative gate fails that R0 did not pass (already failing)": (
            f"""len(list_filter([{cons}], g -> json_extract_string(gates, '$.' || g) = 'fail'
                AND NOT list_contains(coalesce(reg_gates, []), g))) > 0""",
            cov,
        ),
        "complete-not-cleared without a flip": ("cnc AND n_flips = 0", done),
        "failing cells that landed an edit": (
            "edits > 0",
            "kind <> 'scaffold' AND NOT (CASE WHEN arm = 'staged' THEN whole ELSE final_pass END)",
        ),
    }


def check_further_statistics(db: Any, rep: Report) -> None:
    got = {r[0]: r[2] for r in table(rep, "statistics").rows}
    ((k, n),) = q(
        db,
        "SELECT count(*) FILTER (WHERE c), count(*) FROM (SELECT task, bool_or(covered) AS c "
        "FROM models WHERE arm = ? AND regime = 'change' GROUP BY task)",
        REG_ARM,
    )
    want = {"Change tasks with a baseline (some run covered)": wilson(k, n)}
    for label, (hit, pop) in _stat_sql().items():
        ((k, n),) = q(
            db,
            f"SELECT count(*) FILTER (WHERE {hit}), count(*) FROM models WHERE arm = ? AND {pop}",
            REG_ARM,
        )
        assert n > 0, label
        want[label] = wilson(k, n)
    assert got == want


def check_per_model_flips_on_commonly_completed_tasks(db: Any, rep: Report) -> None:
    want = q(
        db,
        """
        WITH change AS (SELECT * FROM models WHERE arm = ? AND regime = 'change'),
        common AS (
            SELECT task FROM change WHERE completing GROUP BY task
            HAVING count(DISTINCT solver) = (SELECT count(DISTINCT solver) FROM change)
        )
        SELECT solver, count(*) FILTER (WHERE n_flips > 0), count(*),
               (SELECT count(*) FROM common)
        FROM change WHERE completing AND task IN (SELECT task FROM common)
        GROUP BY solver ORDER BY solver
        """,
        REG_ARM,
    )
    assert want, "no task every model completed: the run is not realistic enough"
    assert table(rep, "common").rows == tuple((s, wilson(k, n)) for s, k, n, _ in want)
    assert f"on the {want[0][3]} Change task(s)" in table(rep, "common").note


def check_continuity_and_regression_pooled_rows(db: Any, rep: Report) -> None:
    for id, regime in (("continuity", "change"), ("continuity-build", "build")):
        cont = {r[1]: r[2] for r in table(rep, id).rows if r[0] == "all"}
        want = q(
            db,
            "SELECT arm, count(*) FILTER (WHERE cnc), count(*) FROM results "
            "WHERE role = 'model' AND regime = ? AND completing "
            "AND task NOT IN (SELECT twin FROM twins) GROUP BY arm",
            regime,
        )
        # An arm without a completing model run (no model completed a Build task) has an
        # 'all' row reading "—": the rate of nothing.
        arms = {a for (a,) in q(db, "SELECT DISTINCT arm FROM results WHERE role = 'model'")}
        rates = {arm: wilson(k, n) for arm, k, n in want}
        assert cont == {arm: rates.get(arm, "—") for arm in arms}
    ((flip_k, flip_n, base_k, base_n),) = q(
        db,
        """
        SELECT count(*) FILTER (WHERE n_flips > 0), count(*),
               count(*) FILTER (WHERE covered AND n_regs > 0), count(*) FILTER (WHERE covered)
        FROM results WHERE role = 'model' AND regime = 'change' AND arm = ? AND completing
        """,
        REG_ARM,
    )
    (pooled,) = [r for r in table(rep, "regressions").rows if r[0] == "all"]
    assert pooled[1:3] == (wilson(flip_k, flip_n), wilson(base_k, base_n))


def check_what_scope_and_serve_measured(db: Any, rep: Report) -> None:
    got = {(r[0], r[1]): r[2:] for r in table(rep, "gate-measures").rows}
    for (gate, population), where, col in (
        (("scope", "in-harness solvers"), "kind <> 'scaffold'", "g_scope"),
        (("scope", "CLI agents"), "kind = 'scaffold'", "g_scope"),
        (("serve", "hugo stack"), "stack = 'hugo'", "g_serve"),
        (("serve", "static stack"), "stack = 'static'", "g_serve"),
        (("build", "stacks without"), "g_build = 'n/a'", "g_build"),
    ):
        ((n, ok, bad, na, refused, refusing, built),) = q(
            db,
            f"""
            SELECT count(*), count(*) FILTER (WHERE {col} = 'pass'),
                   count(*) FILTER (WHERE {col} = 'fail'),
                   count(*) FILTER (WHERE coalesce({col}, 'n/a') = 'n/a'),
                   sum(refused), count(*) FILTER (WHERE refused > 0),
                   count(*) FILTER (WHERE g_build = 'pass')
            FROM scored WHERE {where}
            """,
        )
        keys = [k for k in got if k[0] == gate and k[1].startswith(population)]
        if not keys:  # the report leaves out a population the run does not have
            assert n == 0, (gate, population)
            continue
        (key,) = keys
        row = got[key]
        assert row[:4] == (str(n), str(ok), str(bad), str(na))
        if population == "in-harness solvers":
            assert f"{refused} refused write(s) in {refusing} row(s)" in row[4]
            assert bad == 0  # cannot fail: the account of what it measured is the point
        if population == "hugo stack":
            assert f"passed in {built} of {n} row(s)" in row[4]


def check_the_completion_family_is_what_the_scores_call_completing(db: Any) -> None:
    """The SQL's `completing` (stored scores) agrees with the gates themselves."""
    fam = " AND ".join(
        f"coalesce(json_extract_string(gates, '$.{g}'), 'n/a') <> 'fail'" for g in COMPLETION
    )
    ((bad,),) = q(db, f"SELECT count(*) FROM results WHERE has_result AND completing <> ({fam})")
    assert bad == 0


# Spearman's rho in SQL: Pearson's correlation of average ranks (ties share the mean rank).
def _avg_rank(col: str, part: str) -> str:
    return (
        f"rank() OVER (PARTITION BY {part} ORDER BY {col}) "
        f"+ (count(*) OVER (PARTITION BY {part}, {col}) - 1) / 2.0"
    )


def rho(x: float | None) -> str:
    return "—" if x is None or math.isnan(x) else f"{x:+.3f}"


def check_plan_lengths(db: Any, rep: Report) -> None:
    want = q(
        db,
        """
        WITH per_task AS (
            SELECT CASE WHEN task IN (SELECT twin FROM twins) THEN 'build twin' ELSE regime END
                   AS g, task, max(n_units) AS u
            FROM scored GROUP BY g, task
        )
        SELECT g, count(*), avg(u), median(u), min(u), max(u) FROM per_task GROUP BY g ORDER BY g
        """,
    )
    assert table(rep, "plans").rows == tuple(
        (g, str(n), f"{mean:.2f}", f"{med:g}", str(lo), str(hi)) for g, n, mean, med, lo, hi in want
    )
    ((inconsistent,),) = q(
        db,
        "SELECT count(*) FROM (SELECT task FROM scored GROUP BY task HAVING min(n_units) <> max(n_units))",
    )
    assert inconsistent == 0  # a task's plan is the same in every row


def check_turns_vs_units_cleared_on_build_plans(db: Any, rep: Report) -> None:
    want = q(
        db,
        f"""
        WITH pts AS (
            SELECT n_units, turns, n_cleared FROM models
            WHERE arm = 'staged' AND regime = 'build' AND task NOT IN (SELECT twin FROM twins)
        ), ranked AS (
            SELECT n_units, {_avg_rank("turns", "n_units")} AS rx,
                   {_avg_rank("n_cleared", "n_units")} AS ry
            FROM pts
        )
        SELECT n_units, count(*), CASE WHEN count(*) >= 3 THEN corr(rx, ry) END
        FROM ranked GROUP BY n_units ORDER BY n_units
        """,
    )
    got = table(rep, "turns")
    assert [r[:3] for r in got.rows] == [(str(u), str(n), rho(r)) for u, n, r in want]
    long = sorted(r for u, _, r in want if u >= 7 and r is not None and not math.isnan(r))
    # Without a Build plan of >= 7 units (#55's real run: its longest has 6) the median
    # reads "—".
    median = rho(float(median_of(long))) if long else "—"
    assert f"units: {median}." in got.note


def median_of(xs: list[float]) -> float:
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def check_rank_coherence_across_capability_slices(db: Any, rep: Report) -> None:
    want = q(
        db,
        f"""
        WITH means AS (
            SELECT capability AS c, solver, avg(coalesce(gate, 0)) AS g FROM results
            WHERE arm = ? AND role = 'model' AND status NOT IN ('infra_error', 'harness_error')
              AND task NOT IN (SELECT twin FROM twins)
            GROUP BY c, solver
        ), pairs AS (
            SELECT a.c AS x, b.c AS y, a.solver, a.g AS gx, b.g AS gy
            FROM means a JOIN means b ON a.solver = b.solver AND a.c < b.c
        ), ranked AS (
            SELECT x, y, {_avg_rank("gx", "x, y")} AS rx, {_avg_rank("gy", "x, y")} AS ry
            FROM pairs
        )
        SELECT x, y, count(*), corr(rx, ry) FROM ranked GROUP BY x, y
        HAVING count(*) >= 3 ORDER BY x, y
        """,
        REG_ARM,
    )
    assert want
    got = table(rep, "coherence").rows
    assert [r[:4] for r in got] == [(x, y, str(n), rho(r)) for x, y, n, r in want]


def check_scaffold_study(db: Any, rep: Report, run: SqlRun) -> None:
    cells = q(
        db,
        """
        SELECT scaffold, backbone,
               100 * (avg(coalesce(gate, 0)) + avg(CASE WHEN final_pass THEN 1.0 ELSE 0 END)) / 2
        FROM scored WHERE arm = 'full-spec' AND role = 'model' GROUP BY scaffold, backbone
        """,
    )
    comp = {(s, b): v for s, b, v in cells}
    want = []
    for held, key, other in (("backbone", 1, 0), ("scaffold", 0, 1)):
        for value in sorted({k[key] for k in comp}):
            vals = {k[other]: v for k, v in comp.items() if k[key] == value}
            if len(vals) >= 2:
                lo = min(vals, key=lambda o: (vals[o], o))
                hi = max(vals, key=lambda o: (vals[o], o))
                want.append((held, value, str(len(vals)), f"{vals[hi] - vals[lo]:.2f}", lo, hi))
    t = table(rep, "scaffold-study")
    assert t.rows == tuple(want)
    if not any(c.kind == "scaffold" for c in run.cards.values()):
        return  # one scaffold (the mixed run): no spread across scaffolds to compare
    assert len(want) >= 4
    con = duckdb.connect()
    con.execute("CREATE TABLE c (scaffold VARCHAR, backbone VARCHAR, v DOUBLE)")
    con.executemany("INSERT INTO c VALUES (?, ?, ?)", cells)
    ((x, y, n, r),) = con.execute(
        f"""
        WITH pairs AS (
            SELECT a.backbone AS x, b.backbone AS y, a.v AS vx, b.v AS vy FROM c a
            JOIN c b ON a.scaffold = b.scaffold AND a.backbone < b.backbone
        ), ranked AS (
            SELECT x, y, {_avg_rank("vx", "x, y")} AS rx, {_avg_rank("vy", "x, y")} AS ry
            FROM pairs
        )
        SELECT x, y, count(*), corr(rx, ry) FROM ranked GROUP BY x, y HAVING count(*) >= 3
        """
    ).fetchall()
    assert f"{x} vs {y}: {rho(r)} over {n} scaffolds" in t.note


def check_rank_correlations_across_models(db: Any, rep: Report) -> None:
    per_model = f"""
        WITH s AS (
            SELECT solver, avg(coalesce(gate, 0)) AS gate, avg(coalesce(wcs, 0)) AS wcs
            FROM results WHERE arm = '{REG_ARM}' AND role = 'model'
              AND status NOT IN ('infra_error', 'harness_error')
            GROUP BY solver
        ), c AS (
            SELECT solver,
                   avg(CASE WHEN n_flips > 0 THEN 1.0 ELSE 0 END)
                       FILTER (WHERE completing) AS flip,
                   avg(CASE WHEN n_regs > 0 THEN 1.0 ELSE 0 END)
                       FILTER (WHERE completing AND covered) AS base,
                   avg(CASE WHEN n_regs > 0 THEN 1.0 ELSE 0 END)
                       FILTER (WHERE covered AND status NOT IN ('infra_error', 'harness_error'))
                       AS base_all
            FROM results WHERE arm = '{REG_ARM}' AND role = 'model' AND regime = 'change'
            GROUP BY solver
        )
        SELECT s.solver, s.gate, s.wcs, c.flip, c.base, c.base_all FROM s JOIN c USING (solver)
    """
    want = []
    for x, y, xc, yc in (
        ("Gate%", "protected-flip rate", "gate", "flip"),
        ("mean WCS", "baseline regression rate", "wcs", "base"),
        ("mean WCS", "baseline regression rate, all covered runs", "wcs", "base_all"),
    ):
        ((n, r),) = q(
            db,
            f"""
            WITH p AS (SELECT {xc} AS x, {yc} AS y FROM ({per_model}) WHERE {yc} IS NOT NULL),
            ranked AS (
                SELECT {_avg_rank("x", "1")} AS rx, {_avg_rank("y", "1")} AS ry FROM p
            )
            SELECT count(*), corr(rx, ry) FROM ranked
            """,
        )
        if n >= 3:
            want.append((x, y, str(n), rho(r)))
    assert len(want) == 3
    assert [r[:4] for r in table(rep, "correlations").rows] == want


def check_categories_controlled_for_task_size(db: Any, rep: Report) -> None:
    import numpy as np

    pop = q(
        db,
        """
        WITH pop AS (SELECT * FROM models WHERE task NOT IN (SELECT twin FROM twins)),
        sizes AS (SELECT task, max(n_units) AS size FROM pop WHERE arm = ? GROUP BY task)
        SELECT capability, size, solver, wcs, task FROM pop JOIN sizes USING (task)
        WHERE arm = ?
        """,
        REG_ARM,
        REG_ARM,
    )
    cats = sorted({c for c, *_ in pop} - {"edit"})
    models = sorted({s for _, _, s, _, _ in pop})[1:]
    x = np.array(
        [
            [1.0, *(float(c == k) for k in cats), float(size), *(float(s == m) for m in models)]
            for c, size, s, _, _ in pop
        ]
    )
    y = np.array([w for *_, w, _ in pop])
    # The normal equations' least-norm solution (not lstsq): unique on every identified
    # coefficient. A coefficient is identified when X's null space (from its SVD, not the
    # report's rank test) has no component on it; the report says "not separable" else.
    coef = np.linalg.pinv(x.T @ x) @ (x.T @ y)
    _, sv, vt = np.linalg.svd(x)
    null = vt[int((sv > sv[0] * 1e-10).sum()) :]
    got = {r[0]: r for r in table(rep, "effects").rows}
    for j, c in enumerate([*cats, "size"], 1):
        n = sum(p[0] == c for p in pop) if c != "size" else len(pop)
        assert got[c][1] == str(n)
        if len(null) and np.abs(null[:, j]).max() > 1e-8:
            assert got[c][2] == "not separable", (c, got[c])
        else:
            assert got[c][2].startswith(f"{coef[j]:+.3f} ["), (c, got[c], coef[j])
    ((cut,),) = q(
        db,
        "SELECT quantile_cont(size, 0.25) FROM (SELECT task, max(n_units) AS size FROM models "
        "WHERE arm = ? AND task NOT IN (SELECT twin FROM twins) GROUP BY task)",
        REG_ARM,
    )
    means = {}
    for c in ["edit", *cats]:
        everywhere = [w for k, _, _, w, _ in pop if k == c]
        small = [w for k, size, _, w, _ in pop if k == c and size <= cut]
        means[c] = (sum(everywhere) / len(everywhere), sum(small) / len(small) if small else None)
        assert got[c][3] == f"{means[c][0]:.3f}"
        assert got[c][4] == ("—" if not small else f"{means[c][1]:.3f}")
    con = duckdb.connect()
    con.execute("CREATE TABLE m (c VARCHAR, a DOUBLE, s DOUBLE)")
    con.executemany("INSERT INTO m VALUES (?, ?, ?)", [(c, a, s) for c, (a, s) in means.items()])
    ((n, r),) = con.execute(
        f"""
        WITH p AS (SELECT * FROM m WHERE s IS NOT NULL), ranked AS (
            SELECT {_avg_rank("a", "1")} AS rx, {_avg_rank("s", "1")} AS ry FROM p
        )
        SELECT count(*), corr(rx, ry) FROM ranked
        """
    ).fetchall()
    assert f"on those: {rho(r)} over {n} categories" in table(rep, "effects").note


def bootstrap(values: list[float], clusters: list[str]) -> tuple[float, float, float]:
    """(mean, lo, hi) of a task-clustered percentile bootstrap, written from its stated
    protocol (README "Scores", `_stats` docstring), not from the report's code: clusters
    numbered by first appearance; `N_BOOT` replicates drawing as many clusters as there
    are, with replacement, from numpy's generator seeded 0; the mean of every value in
    the drawn clusters; the 2.5th and 97.5th percentiles."""
    order = {c: i for i, c in enumerate(dict.fromkeys(clusters))}
    sums = np.zeros(len(order))
    counts = np.zeros(len(order))
    for v, c in zip(values, clusters, strict=True):
        sums[order[c]] += v
        counts[order[c]] += 1
    mean = float(np.mean(values))
    if len(order) == 1:
        return (mean, mean, mean)
    draws = np.random.default_rng(0).integers(0, len(order), size=(N_BOOT, len(order)))
    reps = sums[draws].sum(axis=1) / counts[draws].sum(axis=1)
    lo, hi = np.quantile(reps, [0.025, 0.975])
    return (mean, float(lo), float(hi))


def _shown(m: tuple[float, float, float], percent: bool = True) -> str:
    s, digits = (100.0, 1) if percent else (1.0, 3)
    return f"{s * m[0]:.{digits}f} [{s * m[1]:.{digits}f}, {s * m[2]:.{digits}f}]"


def check_leaderboard(db: Any, rep: Report) -> None:
    """The top of the report: the models under test of the regression arm by mean WCS,
    with their intervals and cost, and the three sentences read off them."""
    per_model = q(
        db,
        """
        SELECT solver, count(*), avg(wcs), count(*) FILTER (WHERE whole),
               list(wcs ORDER BY i), list(gate ORDER BY i),
               list(CASE WHEN whole THEN 1.0 ELSE 0.0 END::DOUBLE ORDER BY i), list(task ORDER BY i)
        FROM scored JOIN ord USING (cell) WHERE arm = ? AND role = 'model'
        GROUP BY solver ORDER BY avg(wcs) DESC, solver
        """,
        REG_ARM,
    )
    assert per_model, "the run has no model under test"
    ((repeats,),) = q(
        db, "SELECT max(n) FROM (SELECT count(*) AS n FROM results GROUP BY task, solver, arm)"
    )
    spend = {
        s: (usd, n) for s, usd, n in q(db, "SELECT solver, sum(cost), count(*) FROM m GROUP BY ALL")
    }
    want = []
    wcs_ci = {}
    for rank, (solver, n, _, k, wcs, gate, whole, tasks) in enumerate(per_model, 1):
        wcs_ci[solver] = bootstrap(wcs, tasks)
        task = (
            f"{_shown(bootstrap(whole, tasks))} ({k}/{n}, clustered)"
            if repeats > 1
            else wilson(k, n)
        )
        usd, cells = spend[solver]
        want.append(
            (
                str(rank),
                solver,
                str(n),
                _shown(wcs_ci[solver], percent=False),
                task,
                _shown(bootstrap(gate, tasks)),
                f"{usd:.4f}",
                f"{usd / cells:.4f}",
            )
        )
    head = top(rep)
    assert head.board.rows == tuple(want)
    (a, n_a, wcs_a, k_a, *_), (b, _, wcs_b, *_) = per_model[0], per_model[1]
    gate_a = float(np.mean(per_model[0][5]))
    assert head.sentences[0] == (
        f"{a} leads the {len(per_model)} models under test on the {REG_ARM} arm with WCS "
        f"{wcs_a:.3f}, Task% {100 * k_a / n_a:.1f} and Gate% {100 * gate_a:.1f}."
    )
    apart = wcs_ci[a][1] > wcs_ci[b][2]
    assert head.sentences[1].startswith(
        f"Its lead over {b} (WCS {wcs_b:.3f}) is {wcs_a - wcs_b:.3f} WCS"
        + (", and their 95% intervals do not overlap." if apart else ", within their overlapping")
    )
    gaps = q(
        db,
        """
        SELECT solver, count(*) FILTER (WHERE cnc), count(*) FROM results
        WHERE arm = ? AND role = 'model' AND regime = 'change' AND completing
        GROUP BY solver ORDER BY count(*) FILTER (WHERE cnc) / count(*) DESC, solver
        """,
        REG_ARM,
    )
    ((k_all, n_all),) = q(
        db,
        "SELECT count(*) FILTER (WHERE cnc), count(*) FROM results WHERE arm = ? "
        "AND role = 'model' AND regime = 'change' AND completing",
        REG_ARM,
    )
    worst, k, n = gaps[0]
    assert head.sentences[2] == (
        f"The continuity gap is largest for {worst}: {wilson(k, n)} of its completing Change "
        f"runs fail a conservative continuity gate (all models under test: {wilson(k_all, n_all)})."
    )


Check = Callable[[Any, Report, SqlRun], None]


def _no_run(check: Callable[[Any, Report], None]) -> Check:
    return lambda db, rep, run: check(db, rep)


BREAKDOWN_GROUPS = {
    "regimes": "CASE WHEN task IN (SELECT twin FROM twins) THEN 'build twin' ELSE regime END",
    "facets": "facet",
    "stacks": "stack",
}

# Every comparison, by name: the report's tables (and their notes) against the SQL.
CHECKS: dict[str, Check] = {
    "leaderboard": _no_run(check_leaderboard),
    "header": _no_run(check_header_counts_every_row_that_is_no_result),
    "scores": _no_run(partial(check_score_tables, id="scores")),
    "scores-zero": _no_run(partial(check_score_tables, id="scores-zero")),
    "regression-gates": _no_run(check_regression_gate_table_pools_only_the_models),
    **{
        id: _no_run(partial(check_pooled_breakdown_rows, id=id, group=group))
        for id, group in BREAKDOWN_GROUPS.items()
    },
    "twins": _no_run(check_pooled_twin_rows),
    "statistics": _no_run(check_further_statistics),
    "common": _no_run(check_per_model_flips_on_commonly_completed_tasks),
    "continuity-regressions": _no_run(check_continuity_and_regression_pooled_rows),
    "gate-measures": _no_run(check_what_scope_and_serve_measured),
    "completion-family": lambda db, rep, run: (
        check_the_completion_family_is_what_the_scores_call_completing(db)
    ),
    "plans": _no_run(check_plan_lengths),
    "turns": _no_run(check_turns_vs_units_cleared_on_build_plans),
    "coherence": _no_run(check_rank_coherence_across_capability_slices),
    "scaffold-study": check_scaffold_study,
    "correlations": _no_run(check_rank_correlations_across_models),
    "effects": _no_run(check_categories_controlled_for_task_size),
}
