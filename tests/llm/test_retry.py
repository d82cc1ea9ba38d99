"""The one retry layer and the breaker, through real loopback HTTP."""

from __future__ import annotations

import socket
import time
from datetime import UTC, datetime

import anyio
import pytest

from orchestrator.llm import (
    ChatRequest,
    ContextTooLong,
    FakeProvider,
    Fault,
    LLMError,
    ProviderPool,
    ProviderRefused,
    UserMsg,
    parse_retry_after,
)
from tests.slowness import bound

from .conftest import KEY, config, open_client

pytestmark = pytest.mark.anyio
REQ = ChatRequest(system="s", messages=(UserMsg(text="hello"),))


async def test_500_once_is_retried(api_key: str) -> None:
    async with FakeProvider(faults=[Fault(kind="status", status=500)]) as fake:
        async with open_client(fake) as client:
            done = await client.complete(REQ)
    assert len(fake.requests) == 2 and done.attempts == 2


@pytest.mark.parametrize("status", [408, 429, 502, 503])
async def test_persistent_transient_status_gives_up_after_max_attempts(
    api_key: str, status: int
) -> None:
    async with FakeProvider(faults=[Fault(kind="status", status=status, times=0)]) as fake:
        async with open_client(fake, max_attempts=3) as client:
            with pytest.raises(LLMError, match=f"after 3 attempts: HTTP {status}"):
                await client.complete(REQ)
    assert len(fake.requests) == 3


@pytest.mark.parametrize("status", [400, 404, 422])
async def test_other_4xx_fail_fast(api_key: str, status: int) -> None:
    # The fake's 404 is OpenAI's `model_not_found`: no such model is the setup's fault
    # (#41), `ProviderRefused` (config_error), still after one request.
    error = ProviderRefused if status == 404 else LLMError
    async with FakeProvider(faults=[Fault(kind="status", status=status, times=0)]) as fake:
        async with open_client(fake) as client:
            with pytest.raises(error, match=f"HTTP {status}"):
                await client.complete(REQ)
    assert len(fake.requests) == 1


async def test_retry_after_seconds_is_honoured_and_reported_as_wait(api_key: str) -> None:
    async with FakeProvider(faults=[Fault(kind="status", status=429, retry_after="1")]) as fake:
        async with open_client(fake) as client:
            start = time.monotonic()
            done = await client.complete(REQ)
            elapsed = time.monotonic() - start
    assert len(fake.requests) == 2
    assert elapsed >= 1.0 and done.retry_wait_s >= 1.0
    assert elapsed < 3.0  # honoured, not stacked on top of a long backoff


def test_retry_after_http_date_and_garbage() -> None:
    now = datetime(2024, 5, 1, 12, 0, 0, tzinfo=UTC)
    assert parse_retry_after("Wed, 01 May 2024 12:00:07 GMT", now) == 7.0
    assert parse_retry_after("Wed, 01 May 2024 11:00:00 GMT", now) == 0.0  # in the past
    assert parse_retry_after("2.5") == 2.5
    assert parse_retry_after("soon") is None
    assert parse_retry_after(None) is None


async def test_truncated_json_body_is_retried(api_key: str) -> None:
    async with FakeProvider(faults=[Fault(kind="truncated_json")]) as fake:
        async with open_client(fake) as client:
            await client.complete(REQ)
    assert len(fake.requests) == 2


async def test_truncated_json_forever_is_an_llm_error(api_key: str) -> None:
    async with FakeProvider(faults=[Fault(kind="truncated_json", times=0)]) as fake:
        async with open_client(fake, max_attempts=2) as client:
            with pytest.raises(LLMError, match="invalid JSON"):
                await client.complete(REQ)
    assert len(fake.requests) == 2


async def test_slow_response_times_out_and_is_retried(api_key: str) -> None:
    async with FakeProvider(faults=[Fault(kind="delay", delay_s=20.0)]) as fake:
        async with open_client(fake, read_timeout_s=0.3) as client:
            start = time.monotonic()
            await client.complete(REQ)
    assert len(fake.requests) == 2
    assert time.monotonic() - start < bound(2.5, wrong=20.0)  # not the 20 s answer


async def test_connection_refused_is_retried_then_llm_error(api_key: str) -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    async with FakeProvider() as fake:
        cfg = config(fake, base_url=f"http://127.0.0.1:{port}/v1", max_attempts=3)
        async with ProviderPool([cfg]) as pool:
            with pytest.raises(LLMError, match="after 3 attempts: ConnectError"):
                await pool.client("test").complete(REQ)


@pytest.mark.parametrize(
    "fault", [Fault(kind="context_too_long"), Fault(kind="status", status=413)]
)
async def test_too_long_is_context_too_long_without_retry(api_key: str, fault: Fault) -> None:
    async with FakeProvider(faults=[fault]) as fake:
        async with open_client(fake) as client:
            with pytest.raises(ContextTooLong):
                await client.complete(REQ)
    assert len(fake.requests) == 1


async def test_401_trips_breaker_after_window_then_refuses_without_requests(
    api_key: str,
) -> None:
    async with FakeProvider(faults=[Fault(kind="status", status=401, times=0)]) as fake:
        async with open_client(fake, breaker_window=3) as client:
            with pytest.raises(ProviderRefused, match="breaker open"):
                await client.complete(REQ)
            assert len(fake.requests) == 3
            with pytest.raises(ProviderRefused):
                await client.complete(REQ)
    assert len(fake.requests) == 3  # the open breaker sends nothing


async def test_403_after_a_success_fails_fast_as_llm_error(api_key: str) -> None:
    async with FakeProvider() as fake:
        async with open_client(fake, breaker_window=3) as client:
            await client.complete(REQ)
            fake.add_faults(Fault(kind="status", status=403))
            with pytest.raises(LLMError, match="HTTP 403"):
                await client.complete(REQ)
    assert len(fake.requests) == 2


async def test_missing_key_env_refuses_the_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PWB_TEST_LLM_KEY", raising=False)
    async with FakeProvider() as fake:
        async with open_client(fake) as client:
            with pytest.raises(ProviderRefused, match=r"\$PWB_TEST_LLM_KEY is not set"):
                await client.complete(REQ)
    assert fake.requests == []


async def test_key_is_not_in_errors_even_when_the_provider_echoes_it(api_key: str) -> None:
    echo = Fault(kind="status", status=400, times=0, message=f"bad key {KEY}")
    async with FakeProvider(faults=[echo]) as fake:
        async with open_client(fake) as client:
            with pytest.raises(LLMError) as info:
                await client.complete(REQ)
    assert "<redacted>" in str(info.value) and KEY not in str(info.value)
    assert KEY not in repr(info.value) and info.value.__cause__ is None
    assert fake.requests[0].headers["authorization"] == "<redacted>"


async def test_connection_limit_is_shared_and_queueing_is_reported(api_key: str) -> None:
    async with FakeProvider(latency_s=0.4) as fake:
        async with open_client(fake, max_connections=1) as client:
            results = []

            async def one() -> None:
                results.append(await client.complete(REQ))

            start = time.monotonic()
            async with anyio.create_task_group() as tg:
                tg.start_soon(one)
                tg.start_soon(one)
            elapsed = time.monotonic() - start
    assert elapsed >= 0.8  # one connection: served one after the other
    assert max(r.queue_wait_s for r in results) >= 0.3
