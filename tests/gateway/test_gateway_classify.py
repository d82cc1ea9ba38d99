"""One classifier for the LLM path and the gateway (#41, item 2), call by call.

The gateway judges the provider's answers with the LLM clients' classifier and shares
their breaker: an account that cannot pay, a parameter the model rejects or a key
missing from the gateway's environment mark the account `config` (the cell's
`config_error`), stop the agent and the sweep's LLM cells, and are never counted toward
an outage; a stream the provider broke off is a transient failure the breaker sees.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import anyio.abc
import httpx
import pytest

from orchestrator.budget import Ledger
from orchestrator.gateway import Gateway, Upstream
from orchestrator.llm import (
    Breaker,
    ChatRequest,
    FakeProvider,
    Fault,
    ProviderConfig,
    ProviderKind,
    ProviderPool,
    ProviderRefused,
    UserMsg,
)
from tests.fixtures.gatewayhttp import KEY, KEY_ENV, MESSAGES, PRICES, post

pytestmark = pytest.mark.anyio
CHAT = {"model": "m", "max_tokens": 64, "messages": [{"role": "user", "content": "hello"}]}


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)


@asynccontextmanager
async def shared(
    fake: FakeProvider, kind: ProviderKind = "openai", model: str = "m"
) -> AsyncIterator[tuple[Gateway, ProviderPool]]:
    """A gateway and an LLM client pool with one breaker, as a sweep wires them."""
    base = fake.base_url if kind == "openai" else fake.anthropic_base_url
    cfg = ProviderConfig(
        name="p",
        kind=kind,
        model=model,
        base_url=base,
        api_key_env=KEY_ENV,
        outage_after=2,
        **PRICES,
    )
    async with ProviderPool([cfg]) as pool:
        breaker = pool.client("p").breaker
        async with Gateway({"p": Upstream(provider=cfg, base_url=base, breaker=breaker)}) as gw:
            yield gw, pool


@pytest.mark.parametrize("api", ["openai", "anthropic"])
async def test_no_credit_behind_the_gateway_is_config_not_an_outage(api: ProviderKind) -> None:
    anthropic = api == "anthropic"
    path, body = ("/v1/messages", MESSAGES) if anthropic else ("/v1/chat/completions", CHAT)
    async with FakeProvider(api_key=KEY, faults=[Fault(kind="no_credit", times=0)]) as fake:
        async with shared(fake, api) as (gw, pool):
            acct = gw.open_account("cell", "p", Ledger())
            first = await post(gw, acct, path, body, anthropic=anthropic)
            again = await post(gw, acct, path, body, anthropic=anthropic)
            other = gw.open_account("other", "p", Ledger())
            refused = await post(gw, other, path, body, anthropic=anthropic)
            with pytest.raises(ProviderRefused, match="cannot pay"):  # the LLM cells stop too
                await pool.client("p").complete(
                    ChatRequest(system="s", messages=(UserMsg(text="hi"),))
                )
            breaker = pool.client("p").breaker
            assert not breaker.paused and not breaker.failing  # never counted as an outage
        sent = len(fake.requests)
    assert first.status_code == (402 if anthropic else 429)
    assert acct.config and "cannot pay" in acct.config and acct.stopped.is_set()
    assert again.status_code == refused.status_code == first.status_code
    assert other.config == acct.config or "cannot pay" in other.config
    assert sent == 1  # one answer stopped everything: no retries, no probes


async def test_a_parameter_the_model_rejects_behind_the_gateway_is_config() -> None:
    async with FakeProvider(api_key=KEY) as fake, shared(fake, model="o3") as (gw, _):
        acct = gw.open_account("cell", "p", Ledger())
        resp = await post(gw, acct, "/v1/chat/completions", {**CHAT, "model": "o3"})
    assert resp.status_code == 400
    assert "unsupported_parameter" in acct.config and acct.stopped.is_set()


async def test_a_key_missing_from_the_gateway_s_environment_is_config_unsent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(KEY_ENV)
    async with FakeProvider(api_key=KEY) as fake, shared(fake) as (gw, _):
        acct = gw.open_account("cell", "p", Ledger())
        resp = await post(gw, acct, "/v1/chat/completions", CHAT)
        sent = len(fake.requests)
    assert resp.status_code == 429 and sent == 0
    assert f"${KEY_ENV} is not set" in acct.config and acct.log[-1].refused


async def test_a_stream_the_provider_broke_off_is_transient_for_the_breaker() -> None:
    async with FakeProvider(api_key=KEY, faults=[Fault(kind="stream_cut")]) as fake:
        async with shared(fake) as (gw, pool):
            acct = gw.open_account("cell", "p", Ledger())
            await post(gw, acct, "/v1/chat/completions", {**CHAT, "stream": True})
            failing = pool.client("p").breaker.failing
            await post(gw, acct, "/v1/chat/completions", {**CHAT, "stream": True})
            recovered = not pool.client("p").breaker.failing
    assert failing and not acct.config
    assert recovered and acct.ok_calls == 1 and not acct.transient  # it got past it


def test_breaker_failing_is_cleared_by_any_success() -> None:
    b = Breaker("p", 5, outage_after=3)
    b.record_transient("HTTP 503")
    assert b.failing and not b.paused
    b.record(refused=False)
    assert not b.failing


async def _slow_sse(stream: anyio.abc.SocketStream) -> None:
    """A provider that streams one chunk every 0.2 s for a few seconds."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += await stream.receive()
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(
        next(
            (
                line.split(b":")[1]
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length")
            ),
            b"0",
        )
    )
    while len(body) < length:
        body += await stream.receive()
    await stream.send(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n")
    chunk = {"choices": [{"index": 0, "delta": {"content": "hello world "}}]}
    try:
        for _ in range(25):
            await stream.send(f"data: {json.dumps(chunk)}\n\n".encode())
            await anyio.sleep(0.2)
    except (anyio.BrokenResourceError, anyio.ClosedResourceError):
        pass
    finally:
        await stream.aclose()


async def test_an_agent_hanging_up_mid_stream_is_charged_but_is_no_provider_failure() -> None:
    """The agent (killed, timed out, impatient) closes a stream the provider is still
    sending: what it received is charged, flagged; the provider is not failing."""
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1")
    port = listener.extra(anyio.abc.SocketAttribute.local_port)
    base = f"http://127.0.0.1:{port}/v1"
    cfg = ProviderConfig(name="p", kind="openai", model="m", base_url=base, **PRICES)
    breaker = Breaker("p", 5, outage_after=3)
    async with anyio.create_task_group() as tg:
        tg.start_soon(listener.serve, _slow_sse)
        async with Gateway({"p": Upstream(provider=cfg, base_url=base, breaker=breaker)}) as gw:
            acct = gw.open_account("cell", "p", Ledger())
            async with httpx.AsyncClient(trust_env=False) as client:
                async with client.stream(
                    "POST",
                    gw.url() + "/v1/chat/completions",
                    json={**CHAT, "stream": True},
                    headers={"authorization": f"Bearer {acct.token}"},
                ) as resp:
                    async for _ in resp.aiter_raw():
                        break  # hang up after the first chunk
            with anyio.fail_after(10):
                while not acct.log:
                    await anyio.sleep(0.05)
        tg.cancel_scope.cancel()
    (rec,) = acct.log
    assert rec.error == "the agent hung up mid-stream" and rec.estimated
    assert acct.spent_usd > 0  # what it received was charged
    assert not acct.transient and not acct.errors and not breaker.failing
