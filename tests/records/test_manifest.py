from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.records import Manifest, RunLocked, read_rows
from orchestrator.sweep import Job, pending_jobs
from tests.rows import row


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


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
async def test_background_sync_fsyncs_off_the_loop_thread_and_on_close(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, anyio_backend: str
) -> None:
    import os
    import threading

    import anyio

    synced: list[tuple[str, int]] = []  # (thread, bytes in the file when fsynced)

    def fake_fsync(fd: int) -> None:
        synced.append((threading.current_thread().name, os.fstat(fd).st_size))

    monkeypatch.setattr(os, "fsync", fake_fsync)  # as `orchestrator.records` calls it
    loop_thread = threading.current_thread().name
    path = tmp_path / "manifest.jsonl"
    with Manifest(tmp_path) as m:
        async with anyio.create_task_group() as tg:
            tg.start_soon(m.sync_in_background)
            await anyio.sleep(0.05)
            for cell in "abc":  # written together: may share one fsync
                m.append(row(cell))
            with anyio.fail_after(5):
                while not synced:
                    await anyio.sleep(0.01)
            assert all(thread != loop_thread for thread, _ in synced)
            m.append(row("d"))
            tg.cancel_scope.cancel()  # "d" may still be unsynced: close must sync it
    assert [r.cell for r in read_rows(path)] == ["a", "b", "c", "d"]
    assert synced[-1][1] == path.stat().st_size  # the last fsync covered every row
    assert len(synced) <= 4
