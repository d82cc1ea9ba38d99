"""A provider outage pauses requests behind the breaker instead of failing them.

Through real loopback HTTP: a time-based storm of 429s from the scripted provider. The
pause is bounded (`ProviderOutage` past it, latched), lets one probe out per interval,
and is not charged to the cell's wall time.
"""

from __future__ import annotations

import time
from typing import TypedDict

import anyio
import pytest

from orchestrator.budget import BudgetExceeded, cell_deadline
from orchestrator.llm import ChatRequest, FakeProvider, Fault, LLMError, ProviderOutage, UserMsg
from tests.slowness import bound

from .conftest import open_client

pytestmark = pytest.mark.anyio
REQ = ChatRequest(system="s", messages=(UserMsg(text="hello"),))


class Pause(TypedDict):
    outage_after: int
    outage_probe_s: float
    max_attempts: int


PAUSE: Pause = {"outage_after": 3, "outage_probe_s": 0.3, "max_attempts": 3}


async def test_a_storm_pauses_concurrent_requests_and_all_succeed_after_it(
    api_key: str,
) -> None:
    storm = Fault(kind="status", status=429, for_s=2.0)
    async with FakeProvider(faults=[storm]) as fake:
        async with open_client(fake, **PAUSE, outage_max_pause_s=30.0) as client:
            done: list[int] = []

            async def one() -> None:
                done.append((await client.complete(REQ)).attempts)

            start = time.monotonic()
            async with anyio.create_task_group() as tg:
                for _ in range(6):
                    tg.start_soon(one)
            elapsed = time.monotonic() - start
    # Every request got its answer although each had only 3 attempts of its own.
    assert len(done) == 6, done
    assert 2.0 <= elapsed < bound(6.0, wrong=30.0)  # not the 30 s pause bound
    # Paused, the provider saw probes (one per 0.3 s), not 6 cells retrying flat out.
    assert len(fake.requests) <= 6 * 3 + 2.0 / 0.3 + 6 + 3, len(fake.requests)


async def test_an_outage_past_the_bound_is_a_latched_provider_outage(api_key: str) -> None:
    storm = Fault(kind="status", status=503, for_s=60.0)
    async with FakeProvider(faults=[storm]) as fake:
        async with open_client(fake, **PAUSE, outage_max_pause_s=1.0) as client:
            start = time.monotonic()
            with pytest.raises(ProviderOutage, match="longer than the 1 s pause bound"):
                await client.complete(REQ)
            assert time.monotonic() - start < bound(5.0, wrong=60.0)  # not the storm
            seen = len(fake.requests)
            with pytest.raises(ProviderOutage):  # latched: no more requests go out
                await client.complete(REQ)
            assert len(fake.requests) == seen


async def test_the_pause_is_not_charged_to_the_cells_wall_time(api_key: str) -> None:
    # The request cannot succeed before the storm ends, so a charged pause costs the cell
    # at least `for_s`; its own attempts take about a second idle, and more under load
    # (it failed at a fixed 1.5 s deadline at load 18: `bound` stretches it, below 4 s).
    storm = Fault(kind="status", status=500, for_s=4.0)
    async with FakeProvider(faults=[storm]) as fake:
        async with open_client(fake, **PAUSE, outage_max_pause_s=30.0) as client:
            with cell_deadline(bound(1.5, wrong=storm.for_s)):  # BudgetExceeded if charged
                done = await client.complete(REQ)
    assert done.attempts >= 3


async def test_a_hung_provider_pauses_cells_and_its_hangs_are_not_charged(api_key: str) -> None:
    """Requests that hang until the read timeout are an outage too (not a budget stop):
    each hang is credited to the cell, the breaker pauses, and the first answer after
    the provider recovers releases every request."""
    hang = Fault(kind="delay", delay_s=5.0, for_s=2.5)
    async with FakeProvider(faults=[hang]) as fake:
        async with open_client(
            fake, **PAUSE, read_timeout_s=0.4, outage_max_pause_s=30.0
        ) as client:
            done: list[int] = []

            async def one() -> None:
                with cell_deadline(1.0):  # far less than the hangs and the pause
                    done.append((await client.complete(REQ)).attempts)

            async with anyio.create_task_group() as tg:
                for _ in range(4):
                    tg.start_soon(one)
    assert len(done) == 4


async def test_a_hang_longer_than_the_cells_time_is_the_providers_fault(api_key: str) -> None:
    """#36 item 7: the read timeout (300 s) is longer than the cell's time left (1 s). The
    hang is cut at the cell's time, judged like a read timeout (retried, credited), and
    ends as the provider's failure, not as the cell's wall-time budget stop."""
    hang = Fault(kind="delay", delay_s=30.0, for_s=60.0)
    async with FakeProvider(faults=[hang]) as fake:
        async with open_client(fake, max_attempts=2, outage_after=5) as client:
            start = time.monotonic()
            with cell_deadline(1.0), pytest.raises(LLMError, match="all the time the cell had"):
                await client.complete(REQ)
            # two cut attempts, not two read timeouts
            assert time.monotonic() - start < bound(10.0, wrong=60.0)
    assert len(fake.requests) == 2


async def test_an_answer_in_time_is_the_cells_work_and_not_credited(api_key: str) -> None:
    slow = Fault(kind="delay", delay_s=0.6, for_s=60.0)
    async with FakeProvider(faults=[slow]) as fake:
        async with open_client(fake, max_attempts=1) as client:
            with pytest.raises(BudgetExceeded), cell_deadline(1.0):
                await client.complete(REQ)  # answered at 0.6 s: 0.4 s left
                await anyio.sleep(0.8)  # past the deadline: the 0.6 s were not credited
