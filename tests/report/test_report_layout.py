"""The report opens with the answer (issue #55): a leaderboard, three sentences and the
continuity-gap plot before the contents; definitions once in a glossary every table
links to; an identical table printed once, an empty one in one line, and a one-task run
says once that means need two tasks.
"""

from __future__ import annotations

import re

import msgspec

from orchestrator.cli import main
from orchestrator.report import (
    LoadedRun,
    LoadStats,
    Report,
    aggregate,
    render_index,
    render_markdown,
    sections,
    slug,
)
from orchestrator.report._tables_fmt import ONE_TASK
from tests.report.report_run import KnownRun
from tests.report.sql_run import realistic_run

PLOTS = [("Completion vs continuity (Change)", "report/plots/continuity.png")]


def _report(rows: list, cards: dict, twins: dict | None = None) -> Report:  # type: ignore[type-arg]
    n = len(rows)
    stats = LoadStats(lines=n, torn=0, superseded=0, stale_hash=0, missing_task=0, kept=n)
    run = LoadedRun(rows=tuple(rows), stats=stats, task_roots={}, twins=twins or {}, cards=cards)
    return aggregate(run, "run")


def _realistic() -> Report:
    run = realistic_run()
    return _report(run.rows, run.cards, run.twins)


def _headings(md: str) -> list[str]:
    return [line.lstrip("#").strip() for line in md.splitlines() if line.startswith("## ")]


def test_markdown_opens_with_the_leaderboard_then_the_contents() -> None:
    md = render_markdown(_realistic(), PLOTS)
    assert _headings(md)[:2] == ["Leaderboard", "Contents"]
    top = md[: md.index("## Contents")]
    assert "| # | model | cells | WCS | Task% | Gate% | USD | USD per cell |" in top
    assert "](report/plots/continuity.png)" in top  # the plot moved up ...
    assert md.count("plots/continuity.png") == 1  # ... not printed twice
    (sentences,) = [p for p in top.split("\n\n") if " leads the " in p]
    assert " leads the " in sentences and "Its lead over " in sentences
    assert "The continuity gap is largest for " in sentences
    # The first screen holds no paragraph of definitions: the notes are short.
    assert all(len(p) < 400 for p in top.split("\n\n") if not p.startswith("|"))


def test_the_leaderboard_ranks_the_models_under_test_by_wcs() -> None:
    rep = _realistic()
    md = render_markdown(rep, PLOTS)
    board = [line for line in md[: md.index("## Contents")].splitlines() if line[:3] == "| 1"]
    assert len(board) == 1
    models = [r for r in rep.scores.rows if r.arm == "staged" and r.role == "model"]
    best = max(models, key=lambda r: r.wcs.value)
    assert board[0].startswith(f"| 1 | {best.solver} |")
    assert "reference" not in md[: md.index("## Contents")]  # controls are not ranked


def test_a_run_without_a_model_ranks_every_solver_and_says_so() -> None:
    run = realistic_run()
    cards = {n: msgspec.structs.replace(c, role="control") for n, c in run.cards.items()}
    md = render_markdown(_report(run.rows, cards, run.twins), PLOTS)
    top = md[: md.index("## Contents")]
    assert "No model under test in this run" in top and "| # | solver | role |" in top


def test_every_table_links_its_terms_to_the_glossary_once() -> None:
    md = render_markdown(_realistic(), PLOTS)
    glossary = md[md.index("\n## Glossary") :]
    anchors = {slug(h) for h in _headings(md)}
    anchors |= {slug(line[4:]) for line in glossary.splitlines() if line.startswith("### ")}
    links = re.findall(r"\]\(#([^)]+)\)", md)
    assert links and all(a in anchors for a in links), set(links) - anchors
    # A definition is written once: the Wilson sentence is in the glossary only.
    assert md.count("Wilson 95% CI") == glossary.count("Wilson 95% CI") > 0
    html = render_index(_realistic(), [])
    for fragment in re.findall(r"href='#([^']+)'", html):
        assert f"id='{fragment}'" in html, fragment


def test_an_identical_table_is_printed_once_with_a_line_saying_so() -> None:
    run = realistic_run()
    rows = [r for r in run.rows if r.status != "infra_error"]
    rep = _report(rows, run.cards, run.twins)
    (zero,) = [s for s in sections(rep) if s.table.id == "scores-zero"]
    assert zero.same_as is not None and zero.same_as.id == "scores"
    md = render_markdown(rep, PLOTS)
    assert md.count("| solver | arm | role | cells | infra |") == 1
    assert (
        "Identical to [Scores per solver (infra_error excluded)]"
        "(#scores-per-solver-infra_error-excluded)." in md
    )
    # With an infra_error row the two tables differ, and both are printed.
    assert (
        render_markdown(_realistic(), PLOTS).count("| solver | arm | role | cells | infra |") == 2
    )


def test_an_empty_section_is_one_line() -> None:
    md = render_markdown(_realistic(), PLOTS)
    assert "## Ablations: solvers that differ in one option (no rows)\n\n## " in md
    assert "_no rows_" not in md


def test_a_one_task_run_says_once_that_intervals_need_two_tasks(known_run: KnownRun) -> None:
    run = realistic_run()
    rows = [r for r in run.rows if r.task == "c01"]
    md = render_markdown(_report(rows, run.cards), PLOTS)
    assert ONE_TASK not in md
    assert md.count("needs at least 2 tasks") == 1
    # A run of several tasks keeps the per-cell mark where a group has one task.
    assert main(["report", str(known_run.run_dir), "--tasks-dir", str(known_run.tasks_dir)]) == 0
    assert "needs at least 2 tasks" not in (known_run.run_dir / "report.md").read_text()
