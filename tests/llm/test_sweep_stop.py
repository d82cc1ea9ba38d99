"""A provider whose account cannot pay stops the sweep after one request, not one per cell."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from orchestrator.config import load_config
from orchestrator.llm import FakeProvider, Fault
from orchestrator.records import read_rows
from orchestrator.sweep import SweepOptions, run_sweep
from tests.fixtures.bench import bench

from .conftest import KEY_ENV

PAID = """
[[providers]]
name = "paid"
kind = "openai"
base_url = "{url}"
model = "gpt-x"
api_key_env = "{env}"
backoff_initial_s = 0.01
"""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.browser
@pytest.mark.anyio
@pytest.mark.parametrize("kind", ["openai", "anthropic"])
async def test_no_credit_stops_the_sweep_after_one_request(
    require_chromium: None, api_key: str, tmp_path: Path, kind: str
) -> None:
    async with FakeProvider(faults=[Fault(kind="no_credit", times=0)]) as fake:
        url = fake.anthropic_base_url if kind == "anthropic" else fake.base_url
        paid = PAID.format(url=url, env=KEY_ENV).replace('kind = "openai"', f'kind = "{kind}"')
        config = bench(
            tmp_path,
            repeats=6,
            concurrency=2,
            solver="paid-llm",
            kind="llm",
            solver_extra='provider = "paid"',
            extra=paid,
        )
        cfg = load_config(config)
        run_dir = (
            await run_sweep(cfg, SweepOptions(run_dir=tmp_path / "run", progress="quiet"))
        ).run_dir
    statuses = Counter(r.status for r in read_rows(run_dir / "manifest.jsonl"))
    assert sum(statuses.values()) == 6 and statuses["ok"] == 0, statuses
    # Two cells were in flight: at most one request each, none retried, nothing after.
    assert 1 <= len(fake.requests) <= 2
