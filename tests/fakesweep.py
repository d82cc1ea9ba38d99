"""Whole sweeps (`run_sweep`, the CLI, `--resume`, the report) without Docker or a browser.

`fake_engine(monkeypatch)` replaces the sweep's engine with one whose cells run on the
fake sandbox and verifier of `tests.fakes` (a site that passes every check), or with
`local=True` on the real local backend (so a scaffold's agent command really runs, as a
host process) with the fake verifier, while the
providers, the LLM clients, the breaker and the scaffold gateway are the real ones: a
solver's model calls go over loopback HTTP to whatever `base_url` the config names (the
strict `FakeProvider`).
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import anyio
import pytest

from orchestrator.budget import Ledger
from orchestrator.cell import BaselineCache
from orchestrator.config import BenchConfig
from orchestrator.contract import TaskPackage
from orchestrator.llm import FakeProvider, ProviderPool
from orchestrator.sweep import SweepIds, SweepResources, _sweep
from orchestrator.sweep._agents import open_gateway
from orchestrator.sweep._core import Engine
from orchestrator.sweep._runner import sweep_cassettes
from orchestrator.verifier import BrowserPool, Verifier
from sandbox import ImageBuilder, LocalBackend
from tests.fakes import FakeBackend, FakeVerifier, Faults


@asynccontextmanager
async def _open_fake_engine(
    cfg: BenchConfig,
    run_dir: Path,
    ids: SweepIds,
    tasks: list[TaskPackage],
    ledger: Ledger,
    *,
    local: bool = False,
    verifier: Verifier | None = None,
) -> AsyncIterator[Engine]:
    async with (
        ProviderPool(
            cfg.providers,
            fake_tasks=[t.root for t in tasks],
            cassettes=sweep_cassettes(cfg, run_dir),
        ) as providers,
        open_gateway(cfg, providers) as gateway,
    ):
        faults = Faults()
        res = SweepResources(
            cfg=cfg,
            run_dir=run_dir,
            backend=LocalBackend() if local else FakeBackend(faults),
            pool=BrowserPool(),  # never entered: the fake verifier stands in
            providers=providers,
            ledger=ledger,
            baseline=BaselineCache(run_dir / "baseline"),
            sandbox_limiter=anyio.CapacityLimiter(4),
            image_builder=ImageBuilder(),
            tasks={t.contract.id: t for t in tasks},
            solvers={s.name: s for s in cfg.solvers},
            verifier=verifier or FakeVerifier(faults),
            gateway=gateway,
            ids=ids,
        )
        yield Engine(backend="local", attempt=res.attempt)


def fake_engine(
    monkeypatch: pytest.MonkeyPatch, *, local: bool = False, verifier: Verifier | None = None
) -> None:
    """Every sweep of this test runs its cells on the fakes (see the module docstring);
    `verifier` replaces the fake one (e.g. `tests.oracle.OracleVerifier`)."""
    monkeypatch.setattr(
        _sweep,
        "open_engine",
        functools.partial(_open_fake_engine, local=local, verifier=verifier),
    )


@contextmanager
def serving(fake: FakeProvider) -> Iterator[FakeProvider]:
    """The fake provider (its server runs in a thread) around synchronous code, such as
    the CLI, which runs its own event loop."""
    anyio.run(fake.__aenter__)
    try:
        yield fake
    finally:
        anyio.run(fake.__aexit__, None, None, None)
