"""A provider outage pauses scaffold agents at the gateway, as it pauses LLM cells (#16).

The gateway shares the provider's `Breaker` with the sweep's LLM clients. A stand-in
agent (stdlib Python, bounded retries like a real CLI) runs on the local backend behind
the gateway in front of the fake provider, which answers 429 for a while (a storm).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from orchestrator.gateway import Gateway, Upstream
from orchestrator.llm import Breaker, FakeProvider, Fault, LLMError, ProviderConfig, ProviderOutage
from tests.fixtures.scaffoldrun import run

pytestmark = pytest.mark.anyio

# Gives up after 6 failed calls 0.2 s apart (~1.2 s): far shorter than the storms below.
AGENT = r"""
import json, os, sys, time, urllib.error, urllib.request
body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode()
for attempt in range(6):
    req = urllib.request.Request(os.environ["BASE"] + "/chat/completions", data=body,
        headers={"authorization": "Bearer " + os.environ["TOKEN"],
                 "content-type": "application/json"})
    try:
        print("status", urllib.request.urlopen(req, timeout=60).status, flush=True)
        sys.exit(0)
    except urllib.error.HTTPError as exc:
        print("status", exc.code, flush=True)
        time.sleep(0.2)
sys.exit(1)
"""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _breaker(max_pause_s: float) -> Breaker:
    return Breaker("p", 5, outage_after=2, probe_s=0.3, max_pause_s=max_pause_s)


@pytest.fixture
async def provider() -> AsyncIterator[FakeProvider]:
    async with FakeProvider() as fake:
        yield fake


async def _gateway(fake: FakeProvider, breaker: Breaker | None) -> Gateway:
    cfg = ProviderConfig(
        name="p", kind="openai", model="m", base_url=fake.base_url, price_in_per_mtok=10.0
    )
    return Gateway({"p": Upstream(provider=cfg, base_url=fake.base_url, breaker=breaker)})


async def test_an_agent_rides_out_a_storm_held_at_the_gateway(
    tmp_path: Path, provider: FakeProvider
) -> None:
    provider.add_faults(Fault(kind="status", status=429, for_s=3.0))
    async with await _gateway(provider, _breaker(max_pause_s=30)) as gw:
        solver, _, output = await run(tmp_path, gw, command=("python3", "-c", AGENT))
    assert solver.verdict() is None, (solver.verdict(), output)
    assert output[-1] == "status 200"
    assert output.count("status 429") <= 2  # the rest of the storm was held, not passed on


async def test_without_the_pause_the_same_storm_fails_the_agent(
    tmp_path: Path, provider: FakeProvider
) -> None:
    """The control: the same agent and storm with no breaker at the gateway."""
    provider.add_faults(Fault(kind="status", status=429, for_s=3.0))
    async with await _gateway(provider, None) as gw:
        solver, _, _ = await run(tmp_path, gw, command=("python3", "-c", AGENT))
    assert isinstance(solver.verdict(), LLMError)


async def test_an_outage_past_the_bound_is_an_outage_not_the_agent_s_failure(
    tmp_path: Path, provider: FakeProvider
) -> None:
    provider.add_faults(Fault(kind="status", status=429, for_s=60.0))
    async with await _gateway(provider, _breaker(max_pause_s=1.5)) as gw:
        solver, _, output = await run(tmp_path, gw, command=("python3", "-c", AGENT))
    verdict = solver.verdict()
    assert isinstance(verdict, ProviderOutage), (verdict, output)
    assert "pause bound" in str(verdict) and "status 503" in output
