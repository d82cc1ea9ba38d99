"""Progress: a live rich table, JSON lines for logs, or nothing (`--quiet`)."""

from __future__ import annotations

import sys
import time
from collections import Counter, defaultdict
from typing import Literal

import msgspec
from rich.console import Console
from rich.live import Live
from rich.table import Table

from ..budget import Ledger
from ..records import STATUSES, ManifestRow
from ._core import Job

ProgressMode = Literal["live", "jsonl", "quiet"]


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

    def __enter__(self) -> SweepProgress:
        if self.mode == "live":
            console = Console(stderr=True)
            self._live = Live(self._table(), console=console, refresh_per_second=2, transient=False)
            self._live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
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
        self._refresh()

    def eta_s(self) -> float | None:
        if not self.finished_count:
            return None
        rate = self.finished_count / (time.monotonic() - self.t0)
        return (self.total - self.finished_count) / rate

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
