"""The LLM gateway over real loopback HTTP, against the fake provider (both anyio backends)."""

from __future__ import annotations

import json

import httpx
import pytest

from orchestrator.budget import Ledger
from orchestrator.llm import FakeProvider, Fault
from tests.fixtures.gatewayhttp import KEY, KEY_ENV, MESSAGES, PRICES, gateway, post

pytestmark = pytest.mark.anyio
CHAT = {"model": "m", "messages": [{"role": "user", "content": "hello"}]}


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)


def cost(tin: int, tout: int) -> float:
    return (tin * PRICES["price_in_per_mtok"] + tout * PRICES["price_out_per_mtok"]) / 1e6


async def test_forwards_with_the_real_key_and_meters_the_cell() -> None:
    sweep = Ledger()
    async with FakeProvider(api_key=KEY) as fake, gateway(fake) as gw:
        acct = gw.open_account("cell-a", "p", sweep.child() if hasattr(sweep, "child") else sweep)
        resp = await post(gw, acct, "/v1/chat/completions", CHAT)
    assert resp.status_code == 200, resp.text  # the fake checks the key: the real one arrived
    usage = resp.json()["usage"]
    assert acct.spent_tokens == usage["prompt_tokens"] + usage["completion_tokens"] > 0
    assert acct.spent_usd == pytest.approx(cost(usage["prompt_tokens"], usage["completion_tokens"]))
    assert sweep.spent_usd == pytest.approx(acct.spent_usd)
    assert acct.ok_calls == 1 and not acct.errors and not acct.transient
    (rec,) = acct.log
    assert (rec.path, rec.status, rec.model, rec.estimated) == (
        "/v1/chat/completions",
        200,
        "m",
        False,
    )
    assert KEY not in json.dumps(fake.requests[0].body) and acct.token not in str(fake.requests)


async def test_streams_pass_through_and_are_metered_from_the_stream() -> None:
    async with FakeProvider(api_key=KEY) as fake, gateway(fake) as gw:
        acct = gw.open_account("cell-a", "p", Ledger())
        resp = await post(gw, acct, "/v1/chat/completions", {**CHAT, "stream": True})
    assert resp.headers["content-type"].startswith("text/event-stream")
    events = [json.loads(line[6:]) for line in resp.text.splitlines() if line.startswith("data: {")]
    usage = events[-1]["usage"]  # asked for by the gateway: the agent did not
    assert fake.requests[0].body["stream_options"] == {"include_usage": True}
    assert resp.text.rstrip().endswith("data: [DONE]")
    assert acct.spent_tokens == usage["prompt_tokens"] + usage["completion_tokens"] > 0
    assert acct.ok_calls == 1 and acct.log[0].stream


async def test_anthropic_streams_are_metered_and_get_the_key_as_x_api_key() -> None:
    async with FakeProvider(api_key=KEY) as fake, gateway(fake, "anthropic") as gw:
        acct = gw.open_account("cell-a", "p", Ledger())
        resp = await post(gw, acct, "/v1/messages", {**MESSAGES, "stream": True}, anthropic=True)
    assert resp.status_code == 200, resp.text
    assert "event: message_stop" in resp.text
    start = next(
        json.loads(line[6:]) for line in resp.text.splitlines() if '"message_start"' in line
    )
    tin = start["message"]["usage"]["input_tokens"]
    assert acct.spent_tokens > tin > 0 and acct.ok_calls == 1


async def test_a_spent_cell_is_refused_in_each_apis_own_shape() -> None:
    # A token cap: a money cap now refuses a call whose worst case does not fit (#41), so
    # it never lets the first call spend past it (test_gateway_money.py).
    async with FakeProvider(api_key=KEY) as fake, gateway(fake) as gw:
        acct = gw.open_account("cell-a", "p", Ledger(), max_tokens=1)
        first = await post(gw, acct, "/v1/chat/completions", CHAT)
        assert first.status_code == 200 and acct.spent_tokens >= 1
        refused = await post(gw, acct, "/v1/chat/completions", CHAT)
        refused_msg = await post(gw, acct, "/v1/messages", MESSAGES, anthropic=True)
        calls = len(fake.requests)
    assert calls == 1  # never forwarded
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "insufficient_quota"
    assert "budget" in refused.json()["error"]["message"]
    assert refused_msg.status_code == 402
    assert refused_msg.json()["type"] == "error"
    assert refused_msg.json()["error"]["type"] == "billing_error"
    assert acct.budget is not None and acct.budget[0] == "tokens"
    assert acct.stopped.is_set() and acct.log[-1].refused


async def test_the_sweep_cap_stops_every_cell() -> None:
    sweep = Ledger(max_usd=0.001)
    async with FakeProvider(api_key=KEY) as fake, gateway(fake) as gw:
        a = gw.open_account("cell-a", "p", sweep)
        b = gw.open_account("cell-b", "p", sweep)
        assert (await post(gw, a, "/v1/chat/completions", CHAT)).status_code == 200
        resp = await post(gw, b, "/v1/chat/completions", CHAT)
    assert resp.status_code == 429 and b.budget is not None and len(fake.requests) == 1


async def test_a_token_cap_counts_tokens() -> None:
    async with FakeProvider(api_key=KEY) as fake, gateway(fake) as gw:
        acct = gw.open_account("cell-a", "p", Ledger(), max_tokens=1)
        await post(gw, acct, "/v1/chat/completions", CHAT)
        resp = await post(gw, acct, "/v1/chat/completions", CHAT)
    assert resp.status_code == 429 and acct.budget is not None and acct.budget[0] == "tokens"


async def test_unknown_tokens_routes_and_closed_cells_reach_nothing() -> None:
    async with FakeProvider(api_key=KEY) as fake, gateway(fake) as gw:
        acct = gw.open_account("cell-a", "p", Ledger())
        stranger = await post(gw, "pwb-guessed", "/v1/chat/completions", CHAT)
        by_key = await post(gw, KEY, "/v1/chat/completions", CHAT)
        route = await post(gw, acct, "/v1/files", CHAT)
        async with httpx.AsyncClient(trust_env=False) as client:
            proxy = await client.get(
                gw.url() + "/v1/models/../../admin",
                headers={"authorization": f"Bearer {acct.token}"},
            )
        gw.close_account(acct)
        closed = await post(gw, acct, "/v1/chat/completions", CHAT)
        seen = len(fake.requests)
    assert stranger.status_code == by_key.status_code == closed.status_code == 401
    assert stranger.json()["error"]["code"] == "invalid_api_key"
    assert route.status_code == 404
    assert proxy.status_code in (400, 404)
    assert seen == 0


async def test_provider_errors_are_counted_and_the_key_never_logged(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-wrong-" + KEY)
    async with FakeProvider(api_key=KEY) as fake, gateway(fake) as gw:
        acct = gw.open_account("cell-a", "p", Ledger())
        resp = await post(gw, acct, "/v1/chat/completions", CHAT)
    assert resp.status_code == 401  # the provider's own answer, passed through
    assert acct.ok_calls == 0 and acct.errors and "401" in acct.errors[0]
    assert acct.spent_usd == 0.0
    assert KEY not in str(acct.log) and KEY not in str(acct.errors)


async def test_transient_errors_count_until_a_call_succeeds() -> None:
    faults = [Fault(kind="status", status=503), Fault(kind="stream_error")]
    async with FakeProvider(api_key=KEY, faults=faults) as fake, gateway(fake) as gw:
        acct = gw.open_account("cell-a", "p", Ledger())
        assert (await post(gw, acct, "/v1/chat/completions", CHAT)).status_code == 503
        assert len(acct.transient) == 1
        await post(gw, acct, "/v1/chat/completions", {**CHAT, "stream": True})
        assert len(acct.transient) == 2 and acct.ok_calls == 0  # an error event mid-stream
        assert (await post(gw, acct, "/v1/chat/completions", CHAT)).status_code == 200
    assert acct.ok_calls == 1 and not acct.transient and not acct.errors


async def test_paths_that_could_climb_out_of_the_api_are_refused_raw() -> None:
    import anyio

    async with FakeProvider(api_key=KEY) as fake, gateway(fake) as gw:
        acct = gw.open_account("cell-a", "p", Ledger())
        answers = []
        for target in (
            "/v1/models/../../admin",
            "/v1/models/%2e%2e/admin",
            "http://evil/v1/models",
        ):
            async with await anyio.connect_tcp("127.0.0.1", gw.port) as s:
                await s.send(
                    f"GET {target} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {acct.token}"
                    "\r\nConnection: close\r\n\r\n".encode()
                )
                data = b""
                with anyio.fail_after(10):
                    try:
                        while chunk := await s.receive():
                            data += chunk
                    except anyio.EndOfStream:
                        pass
            answers.append(data.split(b"\r\n", 1)[0])
        seen = len(fake.requests)
    assert all(b" 400 " in a or b" 404 " in a for a in answers), answers
    assert seen == 0
