"""A cell graded under environment drift (`--allow-env-drift`) says so in its row, and the
report's header counts such rows (issue #14)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import msgspec
import pytest

from orchestrator.records import GateResult, VerifyReport
from orchestrator.report import header, header_note
from orchestrator.solver_cards import SolverCard
from orchestrator.verifier import VerifyRequest
from tests.fakes import FakeVerifier
from tests.fixtures import cellsweep

DRIFT = "environment drift: fonts 0123 here, abcd in the evidence"


class _DriftedVerifier(FakeVerifier):
    def amend(self, request: VerifyRequest, report: VerifyReport) -> VerifyReport:
        na = GateResult(gate="visual_regression", status="n/a", reason=DRIFT)
        return msgspec.structs.replace(report, gates=(*report.gates, na))


def test_drift_reason_reaches_the_row_and_the_report_header(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cellsweep, "FakeVerifier", _DriftedVerifier)
    rows, _ = cellsweep.cell_sweep(tmp_path, lambda p, c, n: None)
    assert [r.status for r in rows] == ["ok"]
    result = rows[0].result
    assert result is not None and result.not_applicable == {"visual_regression": DRIFT}
    assert result.final_gates["visual_regression"] == "n/a"

    h = header(rows, lambda name: SolverCard(name=name, kind="reference", role="control"))
    assert h.env_drift == 1
    note = header_note(SimpleNamespace(header=h))  # type: ignore[arg-type]
    assert "1 row(s) were graded under environment drift" in note
    clean = header(rows[:0], lambda name: SolverCard(name=name, kind="x", role="control"))
    assert "environment drift" not in header_note(SimpleNamespace(header=clean))  # type: ignore[arg-type]
