"""Fidelity with the real APIs: recorded, documented responses replayed over loopback HTTP.

Each test replays bodies and headers from tests/llm/fixtures/wire/ and asserts what our
client sent, how often, how long it waited, which error it raised and what it charged.
"""

from __future__ import annotations

import json
import time
from typing import Any

import msgspec
import pytest

from orchestrator.config import ConfigError, load_config
from orchestrator.llm import (
    AssistantMsg,
    ChatRequest,
    ContextTooLong,
    FakeProvider,
    Fault,
    LLMError,
    ProviderConfig,
    ProviderRefused,
    ToolCall,
    ToolResultMsg,
    ToolSpec,
    UserMsg,
    problem_anthropic,
    problem_openai,
)
from tests.slowness import bound

from .conftest import open_client, replay

pytestmark = pytest.mark.anyio
REQ = ChatRequest(system="s", messages=(UserMsg(text="hello"),))
TOOL = ToolSpec(name="read_file", description="Read.", parameters={"type": "object"})


# ------------------------------------------------------------ reasoning request options
async def test_default_openai_options_are_refused_by_a_reasoning_model(api_key: str) -> None:
    # The setup's fault, not the model's (#41): `ProviderRefused` (config_error, the sweep
    # stops), no longer an `LLMError` scored against the model.
    async with FakeProvider() as fake, open_client(fake, model="o3") as client:
        with pytest.raises(
            ProviderRefused, match="unsupported_parameter: Unsupported parameter: 'max_tokens'"
        ):
            await client.complete(REQ)
        with pytest.raises(ProviderRefused):  # every later request: no call at all
            await client.complete(REQ)
    assert len(fake.requests) == 1  # a 400 is not retried


async def test_reasoning_options_shape_the_openai_request(api_key: str) -> None:
    opts: dict[str, Any] = {
        "model": "o3",
        "max_tokens_param": "max_completion_tokens",
        "send_temperature": False,
        "reasoning_effort": "high",
        "max_output_tokens": 20000,
        "extra_body": {"service_tier": "flex"},
    }
    async with FakeProvider() as fake, open_client(fake, **opts) as client:
        done = await client.complete(REQ)
    body = fake.requests[0].body
    assert body["max_completion_tokens"] == 20000 and "max_tokens" not in body
    assert "temperature" not in body and body["reasoning_effort"] == "high"
    assert body["service_tier"] == "flex"
    assert done.input_tokens > 0


async def test_anthropic_thinking_is_enabled_without_temperature(api_key: str) -> None:
    opts = {"max_output_tokens": 16000, "thinking_budget_tokens": 8000}
    async with FakeProvider() as fake, open_client(fake, "anthropic", **opts) as client:
        await client.complete(REQ)
    body = fake.requests[0].body
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 8000}
    assert body["max_tokens"] == 16000 and "temperature" not in body


async def test_thinking_blocks_are_echoed_back_with_their_signature(api_key: str) -> None:
    opts = {"max_output_tokens": 16000, "thinking_budget_tokens": 8000}
    async with FakeProvider(faults=[replay("anthropic_message_cached_thinking")]) as fake:
        async with open_client(fake, "anthropic", **opts) as client:
            first = await client.complete(REQ)
            call = first.message.tool_calls[0]
            result = ToolResultMsg(call_id=call.id, name=call.name, content="<html></html>")
            await client.complete(
                ChatRequest(system="s", messages=(*REQ.messages, first.message, result))
            )
    assistant = fake.requests[1].body["messages"][1]["content"]
    assert [b["type"] for b in assistant] == ["thinking", "text", "tool_use"]
    assert assistant[0]["signature"] == "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"


def test_toml_sets_the_options_and_rejects_impossible_ones(tmp_path: Any) -> None:
    good = """
[[providers]]
name = "o3"
kind = "openai"
base_url = "https://api.example/v1"
model = "o3"
max_tokens_param = "max_completion_tokens"
send_temperature = false
reasoning_effort = "medium"
price_cached_in_per_mtok = 0.5

[[providers]]
name = "claude"
kind = "anthropic"
base_url = "https://api.example"
model = "claude-x"
max_output_tokens = 16000
thinking_budget_tokens = 4000

[[solvers]]
name = "noop"
kind = "noop"
"""
    path = tmp_path / "bench.toml"
    path.write_text(good)
    cfg = load_config(path)
    assert cfg.provider("o3").temperature_sent is None
    assert cfg.provider("claude").thinking_budget_tokens == 4000
    path.write_text(good.replace("thinking_budget_tokens = 4000", "thinking_budget_tokens = 500"))
    with pytest.raises(ConfigError, match="thinking_budget_tokens must be >= 1024"):
        load_config(path)
    path.write_text(
        good.replace(
            'max_tokens_param = "max_completion_tokens"', 'max_tokens_param = "max_output"'
        )
    )
    with pytest.raises(ConfigError, match="max_tokens_param"):
        load_config(path)


# ------------------------------------------------------------ request shapes
EMPTY_HISTORY = ChatRequest(
    system="s",
    messages=(
        UserMsg(text="make a footer"),
        AssistantMsg(
            text="",
            tool_calls=(ToolCall(id="c1", name="read_file", arguments_json='{"path": "a"}'),),
        ),
        ToolResultMsg(call_id="c1", name="read_file", content=""),  # an empty file
        AssistantMsg(text=""),  # an empty reply
        UserMsg(text="  \n"),  # whitespace only
        AssistantMsg(text="   "),  # whitespace reply
        UserMsg(text="go on"),
    ),
    tools=(TOOL,),
)


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
async def test_empty_blocks_and_messages_are_never_sent(api_key: str, kind: str) -> None:
    async with FakeProvider() as fake, open_client(fake, kind) as client:
        await client.complete(EMPTY_HISTORY)  # the fake answers 400 to a rejected shape
    body = fake.requests[0].body
    if kind == "anthropic":
        assert problem_anthropic(body) is None
        roles = [m["role"] for m in body["messages"]]
        assert roles == ["user", "assistant", "user"]
        result = body["messages"][2]["content"][0]
        assert result == {"type": "tool_result", "tool_use_id": "c1"}
    else:
        assert problem_openai(body) is None
        assistants = [m for m in body["messages"] if m["role"] == "assistant"]
        assert len(assistants) == 2 and assistants[0]["tool_calls"]


def test_the_fake_rejects_what_the_apis_reject() -> None:
    """The checks above can fail: each rejected shape is named."""
    assert problem_openai({"model": "m", "messages": [{"role": "assistant", "content": None}]})
    assert problem_anthropic(
        {"messages": [{"role": "user", "content": [{"type": "text", "text": ""}]}]}
    )
    assert problem_anthropic({"messages": [{"role": "user", "content": []}]})
    assert problem_anthropic(
        {"messages": [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]}
    )
    tool_result = {
        "type": "tool_result",
        "tool_use_id": "x",
        "content": [{"type": "text", "text": " "}],
    }
    assert problem_anthropic({"messages": [{"role": "user", "content": [tool_result]}]})
    thinking = {"type": "enabled", "budget_tokens": 2000}
    assert problem_anthropic(
        {"thinking": thinking, "temperature": 0.0, "max_tokens": 4096, "messages": []}
    )


# ------------------------------------------------------------ retry rules
async def test_retry_after_ms_wins_over_retry_after(api_key: str) -> None:
    async with FakeProvider(faults=[replay("openai_rate_limit_429_retry_after_ms")]) as fake:
        async with open_client(fake) as client:
            start = time.monotonic()
            done = await client.complete(REQ)
            elapsed = time.monotonic() - start
    assert len(fake.requests) == 2 and done.attempts == 2
    # 300 ms, not Retry-After's 20 s
    assert 0.3 <= done.retry_wait_s and elapsed < bound(5.0, wrong=20.0)


async def test_anthropic_retry_after_seconds(api_key: str) -> None:
    async with FakeProvider(faults=[replay("anthropic_rate_limit_429_retry_after")]) as fake:
        async with open_client(fake, "anthropic") as client:
            done = await client.complete(REQ)
    assert len(fake.requests) == 2 and 1.0 <= done.retry_wait_s < 3.0


@pytest.mark.parametrize(
    ("fixture", "kind", "requests"),
    [
        ("openai_server_error_500_should_retry_false", "openai", 1),
        ("openai_bad_request_400_should_retry_true", "openai", 2),
        ("openai_conflict_409", "openai", 2),
        ("anthropic_overloaded_529", "anthropic", 2),
    ],
)
async def test_should_retry_header_and_statuses(
    api_key: str, fixture: str, kind: str, requests: int
) -> None:
    async with FakeProvider(faults=[replay(fixture)]) as fake:
        async with open_client(fake, kind) as client:
            if requests == 1:
                with pytest.raises(LLMError, match="The server had an error"):
                    await client.complete(REQ)
            else:
                await client.complete(REQ)
    assert len(fake.requests) == requests


async def test_a_retry_after_beyond_the_cap_is_not_retried(api_key: str) -> None:
    async with FakeProvider(faults=[replay("openai_retry_after_too_long_429")]) as fake:
        async with open_client(fake, retry_after_max_s=60) as client:
            start = time.monotonic()
            with pytest.raises(LLMError, match="retry after 3600 s"):
                await client.complete(REQ)
    assert len(fake.requests) == 1 and time.monotonic() - start < bound(2.0, wrong=60.0)


@pytest.mark.parametrize(
    ("fixture", "kind", "says"),
    [
        (
            "openai_insufficient_quota_429",
            "openai",
            "insufficient_quota: You exceeded your current quota",
        ),
        ("anthropic_billing_402", "anthropic", "billing_error: Your organization has no remaining"),
        ("anthropic_spend_limit_429", "anthropic", "enforced_spend_limit_reached"),
        ("anthropic_credit_balance_400", "anthropic", "credit balance is too low"),
    ],
)
async def test_account_errors_open_the_breaker_at_once(
    api_key: str, fixture: str, kind: str, says: str
) -> None:
    async with FakeProvider(faults=[replay(fixture, times=0)]) as fake:
        async with open_client(fake, kind, breaker_window=5) as client:
            with pytest.raises(ProviderRefused, match=says) as info:
                await client.complete(REQ)
            assert "breaker open" in str(info.value)
            with pytest.raises(ProviderRefused):
                await client.complete(REQ)
    assert len(fake.requests) == 1  # no retry, and nothing more once open


async def test_a_200_with_an_error_body_keeps_the_provider_message(api_key: str) -> None:
    async with FakeProvider(faults=[replay("openai_error_in_200", times=0)]) as fake:
        async with open_client(fake, max_attempts=2) as client:
            with pytest.raises(
                LLMError, match="Upstream provider returned error: model overloaded"
            ):
                await client.complete(REQ)
    assert len(fake.requests) == 2  # its code (502) is a server error: retried


# ------------------------------------------------------------ context limits
@pytest.mark.parametrize(
    ("fixture", "kind"),
    [
        ("openai_context_length_400", "openai"),
        ("anthropic_prompt_too_long_400", "anthropic"),
        ("anthropic_request_too_large_413", "anthropic"),
    ],
)
async def test_context_errors_are_recognised_by_code(api_key: str, fixture: str, kind: str) -> None:
    async with FakeProvider(faults=[replay(fixture)]) as fake:
        async with open_client(fake, kind) as client:
            with pytest.raises(ContextTooLong):
                await client.complete(REQ)
    assert len(fake.requests) == 1


async def test_a_400_that_says_too_long_is_not_a_context_error(api_key: str) -> None:
    async with FakeProvider(faults=[replay("openai_string_too_long_400")]) as fake:
        async with open_client(fake) as client:
            with pytest.raises(LLMError) as info:
                await client.complete(REQ)
    assert not isinstance(info.value, ContextTooLong)
    assert "string_above_max_length" in str(info.value)


async def test_context_window_stop_reason_is_context_too_long_and_bills(api_key: str) -> None:
    async with FakeProvider(faults=[replay("anthropic_context_window_stop")]) as fake:
        async with open_client(fake, "anthropic") as client:
            with pytest.raises(ContextTooLong) as info:
                await client.complete(REQ)
    spent = info.value.spent
    assert spent is not None and (spent.input_tokens, spent.output_tokens) == (199000, 1000)


# ------------------------------------------------------------ usage and cost
async def test_openai_cached_tokens_are_priced_at_their_rate(api_key: str) -> None:
    async with FakeProvider(faults=[replay("openai_completion_cached_reasoning")]) as fake:
        async with open_client(fake, price_cached_in_per_mtok=0.25) as client:
            done = await client.complete(REQ)
            cfg = client.config
    assert (done.input_tokens, done.cache_read_tokens, done.output_tokens) == (2006, 1920, 300)
    assert not done.usage_estimated
    cost = cfg.cost_usd(done.input_tokens, done.output_tokens, cache_read_tokens=1920)
    assert cost == pytest.approx((86 * 1.0 + 1920 * 0.25 + 300 * 2.0) / 1e6)


async def test_anthropic_cache_reads_and_writes_are_priced_at_their_rates(api_key: str) -> None:
    prices = {"price_cached_in_per_mtok": 0.1, "price_cache_write_per_mtok": 1.25}
    async with FakeProvider(faults=[replay("anthropic_message_cached_thinking")]) as fake:
        async with open_client(fake, "anthropic", **prices) as client:
            done = await client.complete(REQ)
            cfg = client.config
    assert (done.input_tokens, done.cache_read_tokens, done.cache_write_tokens) == (
        4050,
        3000,
        1000,
    )
    cost = cfg.cost_usd(4050, 400, cache_read_tokens=3000, cache_write_tokens=1000)
    assert cost == pytest.approx((50 * 1.0 + 3000 * 0.1 + 1000 * 1.25 + 400 * 2.0) / 1e6)


@pytest.mark.parametrize(
    ("fixture", "kind"),
    [("openai_completion_no_usage", "openai"), ("anthropic_message_no_usage", "anthropic")],
)
async def test_missing_usage_is_estimated_and_flagged(
    api_key: str, fixture: str, kind: str
) -> None:
    async with FakeProvider(faults=[replay(fixture)]) as fake:
        async with open_client(fake, kind) as client:
            done = await client.complete(EMPTY_HISTORY)
    assert done.usage_estimated
    sent = len(json.dumps(fake.requests[0].body))
    assert done.input_tokens >= sent // 5 and done.output_tokens >= 1


def test_cached_prices_default_to_the_input_price() -> None:
    cfg = msgspec.convert(
        {
            "name": "p",
            "kind": "openai",
            "model": "m",
            "base_url": "http://x",
            "price_in_per_mtok": 3.0,
        },
        ProviderConfig,
    )
    assert cfg.cost_usd(1000, 0, cache_read_tokens=600) == pytest.approx(3000 / 1e6)


def test_request_options_enter_the_config_hash_only_when_set(tmp_path: Any) -> None:
    from orchestrator.config import config_hash

    base = """
[[providers]]
name = "p"
kind = "openai"
base_url = "https://api.example/v1"
model = "o3"
{extra}

[[solvers]]
name = "llm"
kind = "llm"
provider = "p"
"""
    path = tmp_path / "bench.toml"
    hashes = []
    for extra in ("", 'reasoning_effort = "high"', 'reasoning_effort = "low"'):
        path.write_text(base.format(extra=extra))
        cfg = load_config(path)
        hashes.append(config_hash(cfg, cfg.solvers[0], "staged"))
    assert len(set(hashes)) == 3
    assert cfg.provider("p").request_options() == {"reasoning_effort": "low"}


@pytest.mark.parametrize(
    ("error", "raised"),
    [
        (
            {
                "message": "too many tokens",
                "type": "invalid_request_error",
                "code": "context_length_exceeded",
            },
            ContextTooLong,
        ),
        (
            {
                "message": "You exceeded your current quota",
                "type": "insufficient_quota",
                "code": "insufficient_quota",
            },
            ProviderRefused,
        ),
        ({"message": "Invalid model", "code": 400}, LLMError),
    ],
)
async def test_a_200_with_an_error_body_is_judged_as_that_error(
    api_key: str, error: dict[str, Any], raised: type[Exception]
) -> None:
    fault = Fault(kind="replay", status=200, body=json.dumps({"error": error}), times=0)
    async with FakeProvider(faults=[fault]) as fake, open_client(fake) as client:
        with pytest.raises(raised, match=error["message"]) as info:
            await client.complete(REQ)
    assert type(info.value) is raised and len(fake.requests) == 1
