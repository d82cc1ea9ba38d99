"""Progress: a live rich table, JSON lines for logs, or nothing (`--quiet`).

The live table needs a terminal: when stderr is not one (a log file, CI), `live` prints
one plain line instead per finished cell and at least every `HEARTBEAT_S` seconds (a
task of the progress's own task group: `async with SweepProgress(...)` owns it).
"""

from __future__ import annotations

import sys
import time
from collections import Counter, defaultdict
from contextlib import AsyncExitStack
from typing import Literal

import anyio
import msgspec
from anyio.abc import TaskGroup
from rich.console import Console
from rich.live import Live
from rich.table import Table

from ..budget import Ledger
from ..records import STATUSES, ManifestRow
from ._core import Job

ProgressMode = Literal["live", "jsonl", "quiet"]
HEARTBEAT_S = 20.0


class SweepProgress:
    def __init__(self, total: int, ledger: Ledger, mode: ProgressMode = "live") -> None:
        self.total = total
        self.ledger = ledger
        self.mode = mode
        self.t0 = time.monotonic()
        self.running: Counter[str] = Counter()
        self.done: defaultdict[str, Counter[str]] = defaultdict(Counter)
        self.finished_count = 0
        self._live: Live | None = None
        self._beat: TaskGroup | None = None  # the heartbeat's, when it prints plain lines
        self._exits = AsyncExitStack()

    async def __aenter__(self) -> SweepProgress:
        if self.mode == "live" and not sys.stderr.isatty():
            self._beat = await self._exits.enter_async_context(anyio.create_task_group())
            self._beat.start_soon(self._heartbeat)
        elif self.mode == "live":
            console = Console(stderr=True)
            self._live = Live(self._table(), console=console, refresh_per_second=2, transient=False)
            self._live.__enter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._beat is not None:
            self._beat.cancel_scope.cancel()
            await self._exits.aclose()
            self._line()
        if self._live is not None:
            self._live.update(self._table())
            self._live.__exit__(None, None, None)

    def started(self, job: Job) -> None:
        self.running[job.template.solver] += 1
        self._refresh()

    def finished(self, row: ManifestRow) -> None:
        if row.attempts > 0 and self.running[row.solver] > 0:
            self.running[row.solver] -= 1
        self.done[row.solver][row.status] += 1
        self.finished_count += 1
        if self.mode == "jsonl":
            line = {
                "cell": row.cell,
                "status": row.status,
                "wcs": row.scores.wcs if row.scores else None,
                "done": self.finished_count,
                "total": self.total,
                "usd": round(self.ledger.spent_usd, 6),
                "tokens": self.ledger.spent_tokens,
            }
            sys.stdout.write(msgspec.json.encode(line).decode() + "\n")
            sys.stdout.flush()
        if self._beat is not None:
            self._line(f"{row.cell} {row.status}")
        self._refresh()

    def eta_s(self) -> float | None:
        if not self.finished_count:
            return None
        rate = self.finished_count / (time.monotonic() - self.t0)
        return (self.total - self.finished_count) / rate

    async def _heartbeat(self) -> None:
        while True:  # until the progress's exit cancels it
            await anyio.sleep(HEARTBEAT_S)
            self._line()

    def _line(self, last: str = "") -> None:
        """One plain progress line on stderr (no terminal for the live table)."""
        eta = self.eta_s()
        running = sum(self.running.values())
        ok = sum(d["ok"] for d in self.done.values())
        line = (
            f"[{time.monotonic() - self.t0:6.0f}s] cells {self.finished_count}/{self.total}"
            f" done ({ok} ok), {running} running, ETA {'?' if eta is None else f'{eta:.0f}s'}"
            f", tokens {self.ledger.spent_tokens}, ${self.ledger.spent_usd:.4f}"
        )
        sys.stderr.write(line + (f"; finished {last}" if last else "") + "\n")
        sys.stderr.flush()

    def _refresh(self) -> None:
        if self._live is not None:
            self._live.update(self._table())

    def _table(self) -> Table:
        eta = self.eta_s()
        title = (
            f"cells {self.finished_count}/{self.total}  tokens {self.ledger.spent_tokens}  "
            f"${self.ledger.spent_usd:.4f}  ETA {'?' if eta is None else f'{eta:.0f}s'}"
        )
        table = Table(title=title)
        for col in ("solver", "running", *STATUSES):
            table.add_column(col)
        for solver in sorted(set(self.running) | set(self.done)):
            d = self.done[solver]
            table.add_row(
                solver,
                str(self.running[solver]),
                *(str(d[s]) for s in STATUSES),
            )
        return table
