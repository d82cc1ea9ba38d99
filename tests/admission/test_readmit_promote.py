"""`scripts/readmit.py --promote`: an admitted draft moves into `tasks/` with its record
row; a draft without a current admission is refused and nothing moves."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from orchestrator.admission import (
    AdmissionRecord,
    RecordedAdmission,
    load_record,
    record_path,
    task_grader,
    write_record,
)
from orchestrator.contract import load_task
from tests.fixtures.tinytask import make_tiny_task

ROOT = Path(__file__).resolve().parents[2]


def readmit() -> ModuleType:
    spec = importlib.util.spec_from_file_location("readmit", ROOT / "scripts" / "readmit.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def row(contract: str, grader: str) -> RecordedAdmission:
    return RecordedAdmission(
        contract=contract,
        repeat=3,
        admitted_at="2026-12-06",
        source="t",
        controls=(),
        grader=grader,
    )


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    drafts, tasks = tmp_path / "drafts", tmp_path / "tasks"
    tasks.mkdir()
    make_tiny_task(drafts, "kiln-a")
    return drafts, tasks


def test_an_admitted_draft_moves_with_its_row(dirs: tuple[Path, Path]) -> None:
    drafts, tasks = dirs
    task = load_task(drafts / "kiln-a")
    write_record(
        record_path(drafts),
        AdmissionRecord(tasks={"kiln-a": row(task.contract_hash, task_grader(task))}),
    )
    assert readmit().promote(["kiln-a"], drafts, tasks) == ["kiln-a"]
    assert (tasks / "kiln-a" / "task.toml").is_file() and not (drafts / "kiln-a").exists()
    moved = load_task(tasks / "kiln-a")
    assert moved.contract_hash == task.contract_hash  # where it sits is not in the hash
    assert load_record(record_path(tasks)).tasks["kiln-a"].contract == task.contract_hash
    assert load_record(record_path(drafts)).tasks == {}


@pytest.mark.parametrize("stale", ["contract", "grader"])
def test_a_draft_without_a_current_admission_is_refused(
    dirs: tuple[Path, Path], stale: str
) -> None:
    drafts, tasks = dirs
    task = load_task(drafts / "kiln-a")
    contract = "0" * 64 if stale == "contract" else task.contract_hash
    grader = "f" * 64 if stale == "grader" else task_grader(task)
    write_record(record_path(drafts), AdmissionRecord(tasks={"kiln-a": row(contract, grader)}))
    with pytest.raises(ValueError, match="no current --repeat 3 admission"):
        readmit().promote(["kiln-a"], drafts, tasks)
    assert (drafts / "kiln-a").is_dir() and not (tasks / "kiln-a").exists()
    assert load_record(record_path(tasks)).tasks == {}
