"""`scripts/readmit.py --promote`: an admitted draft moves into `tasks/` with its record
row; a draft without a current admission is refused and nothing moves."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import msgspec
import pytest

from orchestrator.admission import (
    AdmissionRecord,
    RecordedAdmission,
    TaskAdmission,
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


@pytest.mark.parametrize("planted", ["", "grader", "contract", "repeat", "refused"])
def test_an_admission_is_kept_in_the_store_only_when_current(tmp_path: Path, planted: str) -> None:
    """`to_store` copies a task's current `--repeat 3` admission into the user's store
    (where the full tier's whole-suite admission looks first), replacing what the store
    held; a verdict from another grader, contract or repeat, or a refusal, is not kept."""
    task = load_task(make_tiny_task(tmp_path / "tasks", "kiln-a"))
    out, store = tmp_path / "out", tmp_path / "store"
    verdict = TaskAdmission(
        task="kiln-a",
        contract_hash="0" * 64 if planted == "contract" else task.contract_hash,
        admitted=planted != "refused",
        controls=(),
        repeat=1 if planted == "repeat" else 3,
        grader="f" * 64 if planted == "grader" else task_grader(task),
    )
    (out / "kiln-a" / "reference-0").mkdir(parents=True)
    (out / "kiln-a" / "admission.json").write_bytes(msgspec.json.encode(verdict))
    (out / "kiln-a" / "reference-0" / "shot.png").write_bytes(b"png")
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "node_modules.bin").write_bytes(b"x" * 4096)
    (out / "kiln-a" / "reference-0" / "workspace").symlink_to(tmp_path / "tree")
    (store / "kiln-a").mkdir(parents=True)
    (store / "kiln-a" / "old.json").write_text("an earlier admission")
    kept = readmit().to_store(out, task, store)
    assert kept is (planted == "")
    if kept:
        assert (store / "kiln-a" / "reference-0" / "shot.png").read_bytes() == b"png"
        assert not (store / "kiln-a" / "old.json").exists()
        # the run's link to its work tree is kept as a link, not the tree copied through it
        assert (store / "kiln-a" / "reference-0" / "workspace").is_symlink()
    else:
        assert sorted(p.name for p in (store / "kiln-a").iterdir()) == ["old.json"]
