"""`runs/<sweep>/manifest.jsonl`: one row per cell, appended by a single writer.

Each row is written with one `write` of a complete line, synchronously (so cancellation
cannot tear it), and reaches the kernel at once: a kill of the process at any instant
leaves every complete row readable. A torn last line (a crashed machine) is dropped on
read and cut off before the next append. A run lock stops two sweeps writing one run.

Rows are fsynced for machine crashes too. Inside a sweep, `sync_in_background` does it
on a worker thread, one fsync for every row written meanwhile (an fsync can take tens
of milliseconds, which on the event loop would stall every cell); without it, and on
close, `append` fsyncs inline.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from types import TracebackType

import anyio
import msgspec

from ._jsonl import JsonlRead, read_jsonl
from ._rows import ManifestRow, Status

# Rows that are a verdict on the solver; others (infra_error, config_error, cancelled,
# outage, task_error, harness_error)
# are re-run on resume. An `llm_error` or `budget` row is a verdict only when it carries
# the result of a final checkpoint (`has_result`): without one it is no result (the
# report never scores it) and resume runs it again.
FINAL_STATUSES: frozenset[Status] = frozenset({"ok", "llm_error", "budget"})


def has_result(row: ManifestRow) -> bool:
    """The row carries what the solver delivered (a final checkpoint ran)."""
    return row.result is not None


class RunLocked(Exception):
    pass


def read_manifest(path: Path) -> JsonlRead[ManifestRow]:
    """The manifest's rows with the one JSONL policy (`_jsonl.py`)."""
    read: JsonlRead[ManifestRow] = read_jsonl(path, ManifestRow)
    return read


def read_rows(path: Path) -> list[ManifestRow]:
    return read_manifest(path).items


def latest_by_cell(rows: list[ManifestRow]) -> dict[str, ManifestRow]:
    out: dict[str, ManifestRow] = {}
    for row in rows:
        out[row.cell] = row
    return out


class Manifest:
    """The run directory's manifest, locked for the lifetime of the context."""

    def __init__(self, run_dir: Path, sweep_id: str = "") -> None:
        self.run_dir = run_dir
        self.path = run_dir / "manifest.jsonl"
        self.lock_path = (run_dir / ".lock").resolve()
        self.sweep_id = sweep_id
        self._lock_fd: int | None = None
        self._fd: int | None = None
        self._enc = msgspec.json.Encoder()
        self._written = 0  # rows appended, and how many of them are known fsynced
        self._synced = 0
        self._wake: anyio.Event | None = None  # set while a background syncer runs

    def __enter__(self) -> Manifest:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.run_dir / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            os.close(fd)
            raise RunLocked(f"{self.run_dir}: another sweep is writing this run") from exc
        self._lock_fd = fd
        if self.sweep_id:  # who holds it; `gc` checks the flock itself, not this text
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{self.sweep_id} {os.getpid()}\n".encode(), 0)
        self._drop_torn_tail()
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        return self

    def __exit__(
        self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._fd is not None:
            if self._synced < self._written:
                os.fsync(self._fd)
            os.close(self._fd)
            self._fd = None
        if self._lock_fd is not None:
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
            os.close(self._lock_fd)
            self._lock_fd = None

    def _drop_torn_tail(self) -> None:
        if not self.path.is_file():
            return
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            keep = data.rfind(b"\n") + 1
            with self.path.open("r+b") as fh:
                fh.truncate(keep)

    def rows(self) -> list[ManifestRow]:
        return read_rows(self.path)

    def append(self, row: ManifestRow) -> None:
        assert self._fd is not None, "manifest is not open"
        line = self._enc.encode(row) + b"\n"
        written = os.write(self._fd, line)
        if written != len(line):  # pragma: no cover - disk full; the tail is torn, say so
            raise OSError(f"{self.path}: short write ({written} of {len(line)} bytes)")
        self._written += 1
        if self._wake is None:
            os.fsync(self._fd)
            self._synced = self._written
            return
        self._wake.set()

    async def sync_in_background(self) -> None:
        """Fsync appended rows on a worker thread until cancelled (then `close` syncs)."""
        assert self._fd is not None, "manifest is not open"
        fd = self._fd
        try:
            while True:
                self._wake = anyio.Event()
                if self._synced == self._written:
                    await self._wake.wait()
                    continue
                target = self._written
                await anyio.to_thread.run_sync(os.fsync, fd)
                self._synced = target
        finally:
            self._wake = None
