from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.manifest import Manifest, RunLocked, read_rows
from orchestrator.records import Labels, ManifestRow
from orchestrator.sweep import Job, pending_jobs

LABELS = Labels(regime="change", capability="edit", facet="state", stack="static", framework="html")


def row(cell: str, status: str = "ok", contract: str = "c1", config: str = "k1") -> ManifestRow:
    return ManifestRow(
        sweep="s",
        cell=cell,
        task="t",
        labels=LABELS,
        contract_hash=contract,
        config_hash=config,
        solver="noop",
        arm="staged",
        status=status,  # type: ignore[arg-type]
    )


def test_torn_last_line_is_dropped_and_cut_before_appending(tmp_path: Path) -> None:
    with Manifest(tmp_path) as m:
        m.append(row("a"))
        m.append(row("b"))
    path = tmp_path / "manifest.jsonl"
    data = path.read_bytes()
    path.write_bytes(data + data.splitlines()[0][:37])  # a kill mid-write
    assert [r.cell for r in read_rows(path)] == ["a", "b"]
    with Manifest(tmp_path) as m:
        m.append(row("c"))
    assert [r.cell for r in read_rows(path)] == ["a", "b", "c"]
    assert path.read_bytes().endswith(b"\n")


def test_two_writers_cannot_share_a_run(tmp_path: Path) -> None:
    with Manifest(tmp_path), pytest.raises(RunLocked, match="another sweep"):
        Manifest(tmp_path).__enter__()
    with Manifest(tmp_path):  # released
        pass


def test_resume_reruns_only_cells_without_a_current_final_row() -> None:
    jobs = [Job(key=k, template=row(k)) for k in ("done", "stale", "infra", "missing", "cancelled")]
    existing = [
        row("done"),
        row("stale", contract="old"),
        row("infra", status="infra_error"),
        row("cancelled", status="cancelled"),
    ]
    assert [j.key for j in pending_jobs(jobs, existing)] == [
        "stale",
        "infra",
        "missing",
        "cancelled",
    ]
