"""The resume filter (orchestrator/sweep/_sweep.py `pending_jobs` and the manifest's
`latest_by_cell`): which cells a resumed sweep runs again (issue #18)."""

from __future__ import annotations

import msgspec

from orchestrator.records import FINAL_STATUSES, ManifestRow, TaskLabels, latest_by_cell
from orchestrator.sweep import Job, pending_jobs
from tests.rows import outcome, result

LABELS = TaskLabels(
    regime="change", capability="edit", facet="state", stack="static", framework="html"
)


def _row(
    cell: str,
    status: str = "ok",
    contract: str = "c1",
    config: str = "k1",
    attempts: int = 1,
    delivered: bool = True,
) -> ManifestRow:
    """`delivered`: an `llm_error` or `budget` row carries its final checkpoint's result."""
    res = result() if delivered and status in ("llm_error", "budget") else None
    return ManifestRow(
        sweep="s",
        cell=cell,
        task="t",
        labels=LABELS,
        contract_hash=contract,
        config_hash=config,
        solver="noop",
        arm="staged",
        outcome=outcome(status, res=res),
        attempts=attempts,
    )


def _pending(existing: list[ManifestRow], *keys: str) -> list[str]:
    jobs = [Job(key=k, template=_row(k)) for k in keys or ("a",)]
    return [j.key for j in pending_jobs(jobs, existing)]


def test_resume_keeps_a_current_final_row() -> None:
    for status in ("ok", "llm_error", "budget"):
        assert _pending([_row("a", status)]) == [], status
    assert {"ok", "llm_error", "budget"} == set(FINAL_STATUSES)


def test_resume_reruns_rows_of_another_config_hash() -> None:
    assert _pending([_row("a", config="k0")]) == ["a"]
    assert _pending([_row("a", "llm_error", config="k0")]) == ["a"]


def test_resume_reruns_rows_of_another_contract_hash() -> None:
    assert _pending([_row("a", contract="c0")]) == ["a"]


def test_resume_reruns_rows_that_never_started_an_attempt() -> None:
    # A cell cut before its first attempt (e.g. a budget that stopped the sweep first)
    # has a final-looking status but delivered nothing: it runs again.
    assert _pending([_row("a", "budget", attempts=0)]) == ["a"]
    assert _pending([_row("a", "ok", attempts=0)]) == ["a"]
    assert _pending([_row("a", "budget", attempts=1)]) == []


def test_resume_reruns_rows_that_delivered_no_result() -> None:
    # No final checkpoint ran (a cap stopped the cell, an in-harness provider failed it):
    # no result, never scored by the report, so resume runs it again (issue #37).
    for status in ("llm_error", "budget"):
        assert _pending([_row("a", status, delivered=False)]) == ["a"], status
        assert _pending([_row("a", status, delivered=True)]) == [], status


def test_resume_reruns_non_final_and_missing_rows() -> None:
    existing = [_row("b", "infra_error"), _row("c", "cancelled"), _row("d", "harness_error")]
    assert _pending(existing, "a", "b", "c", "d") == ["a", "b", "c", "d"]


def test_resume_judges_the_latest_row_of_a_cell() -> None:
    # An older ok row does not hide a later infra error, and vice versa.
    assert _pending([_row("a"), _row("a", "infra_error")]) == ["a"]
    assert _pending([_row("a", "infra_error"), _row("a")]) == []
    assert _pending([_row("a", config="k0"), _row("a")]) == []


def test_latest_by_cell_keeps_the_last_row_of_each_cell() -> None:
    rows = [_row("a", "infra_error"), _row("b"), _row("a", "budget")]
    latest = latest_by_cell(rows)
    assert list(latest) == ["a", "b"]
    assert latest["a"].status == "budget" and latest["b"].status == "ok"
    assert latest_by_cell([]) == {}


def test_resume_keeps_job_order_and_templates() -> None:
    jobs = [Job(key=k, template=_row(k, config=f"cfg-{k}")) for k in ("z", "a", "m")]
    got = pending_jobs(jobs, [msgspec.structs.replace(jobs[1].template)])
    assert [j.key for j in got] == ["z", "m"]
    assert got[0] is jobs[0]
