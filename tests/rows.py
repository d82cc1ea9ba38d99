"""Build manifest rows for tests: an outcome from a status, a result from a few scores, a
row of one cell (`row`, `manifest_row`)."""

from __future__ import annotations

from typing import Any

from orchestrator.records import (
    BudgetStop,
    Cancelled,
    CellResult,
    ConfigRefusal,
    HarnessError,
    InfraError,
    LlmError,
    ManifestRow,
    Ok,
    Outage,
    Outcome,
    Refused,
    Scores,
    TaskError,
    TaskLabels,
)

ZERO = Scores(
    stage=0.0,
    gate=0.0,
    final_pass=False,
    breaks=0,
    whole_task=False,
    wcs=0.0,
    completion_pass=False,
    continuity_pass=False,
    continuity_pass_broad=False,
    complete_not_cleared=False,
    complete_not_cleared_broad=False,
)


def result(scores: Scores = ZERO, **kw: Any) -> CellResult:
    kw.setdefault("units", ())
    kw.setdefault("final_gates", {})
    return CellResult(scores=scores, **kw)


def outcome(status: str, error: str = "", res: CellResult | None = None) -> Outcome:
    match status:
        case "ok":
            return Ok(result=res or result())
        case "infra_error":
            return InfraError(error=error, result=res)
        case "llm_error":
            return LlmError(error=error, result=res)
        case "config_error":
            return ConfigRefusal(error=error)
        case "budget":
            return BudgetStop(kind="tokens", error=error, result=res)
        case "cancelled":
            return Cancelled(error=error)
        case "outage":
            return Outage(error=error)
        case "task_error":
            return TaskError(error=error)
        case "harness_error":
            return HarnessError(error=error)
        case "refused":
            return Refused(error=error)
    raise ValueError(status)


def manifest_row(
    task: str,
    solver: str,
    labels: TaskLabels,
    *,
    arm: str = "staged",
    repeat: int = 0,
    status: str = "ok",
    res: CellResult | None = None,
    attempts: int = 1,
    error: str = "",
) -> ManifestRow:
    """A current row of one cell (contract and config hashes are placeholders)."""
    return ManifestRow(
        sweep="s",
        cell=f"{task}/{solver}/{arm}/{repeat}",
        task=task,
        labels=labels,
        contract_hash="0" * 64,
        config_hash="cfg",
        solver=solver,
        arm=arm,  # type: ignore[arg-type]
        repeat=repeat,
        outcome=outcome(status, error, res),
        attempts=attempts,
    )


LABELS = TaskLabels(
    regime="change", capability="edit", facet="state", stack="static", framework="html"
)


def row(cell: str, status: str = "ok", contract: str = "c1", config: str = "k1") -> ManifestRow:
    """A row of cell `cell` of task `t` (solver `noop`, staged), its hashes given."""
    return ManifestRow(
        sweep="s",
        cell=cell,
        task="t",
        labels=LABELS,
        contract_hash=contract,
        config_hash=config,
        solver="noop",
        arm="staged",
        outcome=outcome(status),
    )
