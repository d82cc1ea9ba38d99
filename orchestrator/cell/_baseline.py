"""The baseline channel's R0 suite: run once per (contract hash, backend, image), cached.

Concurrent cells of one task wait for the first to finish instead of each running it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio
import msgspec

from ..contract import Gate
from ..records import A11ySnapshot, GateStatus


class BaselineRun(msgspec.Struct, frozen=True, kw_only=True):
    """What one R0 run yields: its gates, and each state's accessibility snapshot (none
    for a task with accessibility evidence: its cells take their bases from that)."""

    gates: dict[Gate, GateStatus]
    a11y: dict[str, A11ySnapshot] = {}


def baseline_key(contract_hash: str, backend: str, image: str) -> str:
    """The cache key of a task's R0 verdicts: its contract, the backend and the image the
    suite ran in (a rebuilt image, e.g. a newer toolchain or browser, can change what R0
    passes). A plain file name: the image id is hashed."""
    digest = hashlib.sha256(image.encode()).hexdigest()[:16] if image else "noimage"
    return f"{contract_hash[:16]}-{backend}-{digest}"


class BaselineResult(msgspec.Struct, frozen=True, kw_only=True):
    key: str
    gates: dict[Gate, GateStatus]
    # R0's accessibility snapshots by state (empty in a cache written before them: then
    # the accessibility continuity rules have no base and add no check).
    a11y: dict[str, A11ySnapshot] = {}

    @property
    def covered(self) -> bool:
        """The untouched R0 built, served and was verified: only then can the baseline
        channel say what R0 passed (paper Appendix E: "covered" runs)."""
        return self.gates.get("build") != "fail" and self.gates.get("serve") != "fail"


class BaselineCache:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._locks: dict[str, anyio.Lock] = {}
        self._memory: dict[str, BaselineResult] = {}

    async def get(self, key: str, compute: Callable[[], Awaitable[BaselineRun]]) -> BaselineResult:
        lock = self._locks.setdefault(key, anyio.Lock())
        async with lock:
            if key in self._memory:
                return self._memory[key]
            path = self.directory / f"{key}.json"
            if path.is_file():
                try:
                    cached = msgspec.json.decode(path.read_bytes(), type=BaselineResult)
                    self._memory[key] = cached
                    return cached
                except msgspec.DecodeError:
                    pass  # torn write of a killed sweep: recompute
            run = await compute()
            result = BaselineResult(key=key, gates=run.gates, a11y=run.a11y)
            if not result.covered:
                # R0 did not build or serve: maybe the task, maybe a bad moment (a
                # readiness timeout under load). Not kept: the next cell tries again.
                return result
            self.directory.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_bytes(msgspec.json.encode(result))
            tmp.replace(path)
            self._memory[key] = result
            return result
