"""A sweep runs only admitted contracts (#37): a selected task whose current contract
hash has no recorded admission in `tasks/ADMISSION.json` is refused before anything is
written, in one line naming the tasks, unless `--allow-unadmitted`; then the run
remembers them (`run.json`) and its report says so. Whole sweeps through the CLI, in
process, on the fake sandbox and verifier (`tests.fakesweep`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orchestrator.admission import (
    AdmissionRecord,
    RecordedAdmission,
    record_path,
    write_record,
)
from orchestrator.cli import main
from orchestrator.contract import load_task
from orchestrator.records import read_rows
from tests.fakesweep import fake_engine
from tests.fixtures.bench import bench


def _strict(tmp: Path) -> Path:
    """The test bench, without the `allow_unadmitted = true` fixture sweeps carry."""
    path = bench(tmp, repeats=1, concurrency=1)
    text = path.read_text()
    assert "allow_unadmitted = true" in text
    path.write_text("\n".join(x for x in text.splitlines() if "allow_unadmitted" not in x))
    return path


def _admit(tasks: Path, contract: str) -> None:
    admitted = RecordedAdmission(
        contract=contract, repeat=3, admitted_at="2026-12-02", source="test", controls=()
    )
    write_record(record_path(tasks), AdmissionRecord(tasks={"tiny-shop": admitted}))


def _sweep(capsys: pytest.CaptureFixture[str], config: Path, *args: str) -> tuple[int, str]:
    code = main(["--config", str(config), "--quiet", *args])
    return code, capsys.readouterr().err


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    fake_engine(monkeypatch)
    return _strict(tmp_path)


def test_an_unadmitted_task_is_refused_in_one_line_and_nothing_is_written(
    config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = tmp_path / "run"
    code, err = _sweep(capsys, config, "--run-dir", str(run_dir))
    assert code == 2
    record = record_path(tmp_path / "tasks")
    assert err.splitlines() == [
        f"{record}: no recorded admission of the current contract of 1 task(s): tiny-shop "
        "(admit them with `admit --repeat 3 --record`, or run them anyway with "
        "--allow-unadmitted)"
    ]
    assert not run_dir.exists()


def test_a_changed_contract_is_refused_too(
    config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _admit(tmp_path / "tasks", "0" * 64)  # an earlier contract was admitted, not this one
    code, err = _sweep(capsys, config, "--run-dir", str(tmp_path / "run"))
    assert code == 2 and "of 1 task(s): tiny-shop (" in err and len(err.splitlines()) == 1


def test_an_unreadable_record_is_one_line(
    config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = record_path(tmp_path / "tasks")
    record.write_text("{not json")
    code, err = _sweep(capsys, config, "--run-dir", str(tmp_path / "run"))
    assert code == 2 and len(err.splitlines()) == 1 and err.startswith(f"{record}: not JSON")


def test_an_admitted_contract_runs(
    config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _admit(tmp_path / "tasks", load_task(tmp_path / "tasks" / "tiny-shop").contract_hash)
    run_dir = tmp_path / "run"
    code, err = _sweep(capsys, config, "--run-dir", str(run_dir), "--no-report")
    assert code == 0, err
    assert [r.status for r in read_rows(run_dir / "manifest.jsonl")] == ["ok"]
    assert json.loads((run_dir / "run.json").read_text())["unadmitted"] == []


def test_allowed_unadmitted_tasks_are_remembered_and_reported(
    config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = tmp_path / "run"
    code, err = _sweep(capsys, config, "--run-dir", str(run_dir), "--allow-unadmitted")
    assert code == 0, err
    assert "--allow-unadmitted: 1 task(s) without a recorded admission" in err
    (line,) = json.loads((run_dir / "run.json").read_text())["unadmitted"]
    assert line.startswith("tiny-shop: contract ") and "has no recorded admission" in line
    for report in (run_dir / "report.md", run_dir / "report" / "index.html"):
        assert "Unadmitted: 1 task(s) ran with --allow-unadmitted" in report.read_text()
    # A resume must be allowed again, and keeps what the run remembers.
    code, err = _sweep(capsys, config, "--resume", str(run_dir))
    assert code == 2 and "--allow-unadmitted" in err
    code, err = _sweep(capsys, config, "--resume", str(run_dir), "--allow-unadmitted")
    assert code == 0, err
    assert json.loads((run_dir / "run.json").read_text())["unadmitted"] == [line]
