"""The official `openai` and `anthropic` SDKs accept the fake provider's answers and errors.

The fake stands in for the real APIs in every other test (and for the scaffold arm's CLI
agents), so the SDKs, which parse the documented shapes strictly, judge its realism:
completions, streaming with usage, the error classes each status maps to, the SDKs' own
retries honouring `retry-after-ms`, and `/v1/models`.
"""

from __future__ import annotations

import json
from typing import Any

import anthropic  # test-only dev dependencies (pyproject [dev]): missing fails, never skips
import httpx
import openai
import pytest

from orchestrator.llm import FakeProvider, Fault

pytestmark = pytest.mark.anyio
KEY = "sk-pwb-sdk-test"
DONE_TOOL_OPENAI = {
    "type": "function",
    "function": {
        "name": "done",
        "description": "Finish.",
        "parameters": {"type": "object", "properties": {"summary": {"type": "string"}}},
    },
}
DONE_TOOL_ANTHROPIC = {
    "name": "done",
    "description": "Finish.",
    "input_schema": {"type": "object", "properties": {"summary": {"type": "string"}}},
}
ASK: list[Any] = [{"role": "user", "content": "Add a footer."}]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # the SDKs' async clients


def oai(fake: FakeProvider, **kw: Any) -> Any:
    return openai.AsyncOpenAI(base_url=fake.base_url, api_key=kw.pop("api_key", KEY), **kw)


def ant(fake: FakeProvider, **kw: Any) -> Any:
    return anthropic.AsyncAnthropic(
        base_url=fake.anthropic_base_url, api_key=kw.pop("api_key", KEY), **kw
    )


# ------------------------------------------------------------ OpenAI
async def test_openai_sdk_completion_and_models() -> None:
    async with FakeProvider(api_key=KEY, models=["gpt-fake"]) as fake:
        client = oai(fake)
        done = await client.chat.completions.create(
            model="gpt-fake", messages=ASK, tools=[DONE_TOOL_OPENAI], max_tokens=100
        )
        models = [m.id async for m in client.models.list()]
        await client.close()
    call = done.choices[0].message.tool_calls[0]
    assert call.function.name == "done" and json.loads(call.function.arguments) == {
        "summary": "no change"
    }
    assert done.choices[0].finish_reason == "tool_calls"
    assert done.usage.prompt_tokens > 0 and done.usage.prompt_tokens_details.cached_tokens == 0
    assert models == ["gpt-fake"]


async def test_openai_sdk_streams_with_usage_and_matches_the_completion() -> None:
    async with FakeProvider(api_key=KEY) as fake:
        client = oai(fake)
        whole = await client.chat.completions.create(
            model="m", messages=ASK, tools=[DONE_TOOL_OPENAI]
        )
        stream = await client.chat.completions.create(
            model="m",
            messages=ASK,
            tools=[DONE_TOOL_OPENAI],
            stream=True,
            stream_options={"include_usage": True},
        )
        chunks = [c async for c in stream]
        async with client.chat.completions.stream(
            model="m",
            messages=ASK,
            tools=[DONE_TOOL_OPENAI],
            stream_options={"include_usage": True},
        ) as helper:
            final = await helper.get_final_completion()
        await client.close()
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    args = "".join(
        t.function.arguments or ""
        for c in chunks
        if c.choices
        for t in c.choices[0].delta.tool_calls or ()
    )
    assert len(chunks) > 4 and chunks[-1].choices == [] and chunks[-1].usage is not None
    assert all(c.usage is None for c in chunks[:-1])
    assert text == whole.choices[0].message.content
    assert json.loads(args) == json.loads(whole.choices[0].message.tool_calls[0].function.arguments)
    assert chunks[-1].usage.prompt_tokens == whole.usage.prompt_tokens
    message = final.choices[0].message
    assert (
        message.tool_calls[0].function.arguments
        == whole.choices[0].message.tool_calls[0].function.arguments
    )
    assert final.usage is not None and final.choices[0].finish_reason == "tool_calls"


async def test_openai_sdk_stream_without_include_usage_has_no_usage() -> None:
    async with FakeProvider() as fake:
        client = oai(fake)
        stream = await client.chat.completions.create(model="m", messages=ASK, stream=True)
        chunks = [c async for c in stream]
        await client.close()
    assert chunks and all(c.usage is None and c.choices for c in chunks)


@pytest.mark.parametrize(
    ("fault", "error", "code"),
    [
        (Fault(kind="status", status=429), "RateLimitError", "rate_limit_exceeded"),
        (Fault(kind="no_credit"), "RateLimitError", "insufficient_quota"),
        (Fault(kind="context_too_long"), "BadRequestError", "context_length_exceeded"),
        (Fault(kind="status", status=500), "InternalServerError", None),
    ],
)
async def test_openai_sdk_error_classes(fault: Fault, error: str, code: str | None) -> None:
    async with FakeProvider(faults=[fault]) as fake:
        client = oai(fake, max_retries=0)
        with pytest.raises(getattr(openai, error)) as info:
            await client.chat.completions.create(model="m", messages=ASK)
        await client.close()
    assert info.value.code == code


async def test_openai_sdk_wrong_key_and_reasoning_model_refusals() -> None:
    async with FakeProvider(api_key=KEY) as fake:
        client = oai(fake, api_key="sk-wrong", max_retries=0)
        with pytest.raises(openai.AuthenticationError) as info:
            await client.chat.completions.create(model="m", messages=ASK)
        assert info.value.code == "invalid_api_key"
        client = oai(fake, max_retries=0)
        with pytest.raises(openai.BadRequestError) as bad:
            await client.chat.completions.create(model="o3", messages=ASK, max_tokens=10)
        assert bad.value.code == "unsupported_parameter" and bad.value.param == "max_tokens"
        ok = await client.chat.completions.create(
            model="o3", messages=ASK, max_completion_tokens=10, reasoning_effort="low"
        )
        await client.close()
    # No tools were offered, so the reasoning model answers in text (as the real API does).
    assert ok.choices[0].finish_reason == "stop" and ok.choices[0].message.content


async def test_openai_sdk_retries_honour_retry_after_ms() -> None:
    fault = Fault(kind="status", status=429, headers={"retry-after-ms": "50"})
    async with FakeProvider(faults=[fault]) as fake:
        client = oai(fake, max_retries=1)
        await client.chat.completions.create(model="m", messages=ASK)
        await client.close()
    assert len(fake.requests) == 2


async def test_openai_sdk_sees_an_error_inside_a_stream() -> None:
    async with FakeProvider(faults=[Fault(kind="stream_error", message="upstream died")]) as fake:
        client = oai(fake, max_retries=0)
        stream = await client.chat.completions.create(model="m", messages=ASK, stream=True)
        with pytest.raises(openai.APIError, match="upstream died"):
            async for _ in stream:
                pass
        await client.close()


# ------------------------------------------------------------ Anthropic
async def test_anthropic_sdk_message_and_models() -> None:
    async with FakeProvider(api_key=KEY, models=["claude-fake"]) as fake:
        client = ant(fake)
        msg = await client.messages.create(
            model="claude-fake", max_tokens=100, messages=ASK, tools=[DONE_TOOL_ANTHROPIC]
        )
        models = [m.id async for m in client.models.list()]
        await client.close()
    kinds = [b.type for b in msg.content]
    assert kinds == ["text", "tool_use"] and msg.content[1].input == {"summary": "no change"}
    assert msg.stop_reason == "tool_use" and msg.stop_sequence is None
    assert msg.usage.input_tokens > 0 and msg.usage.cache_read_input_tokens == 0
    assert models == ["claude-fake"]


async def test_anthropic_sdk_streams_events_and_matches_the_message() -> None:
    async with FakeProvider(api_key=KEY) as fake:
        client = ant(fake)
        whole = await client.messages.create(
            model="m", max_tokens=100, messages=ASK, tools=[DONE_TOOL_ANTHROPIC]
        )
        async with client.messages.stream(
            model="m", max_tokens=100, messages=ASK, tools=[DONE_TOOL_ANTHROPIC]
        ) as stream:
            kinds = [event.type async for event in stream]
            final = await stream.get_final_message()
        await client.close()
    for kind in ("message_start", "content_block_start", "content_block_delta", "message_delta"):
        assert kind in kinds
    assert kinds[-1] == "message_stop"

    def blocks(msg: Any) -> list[Any]:
        return [b.model_dump(exclude={"id"}) for b in msg.content]  # ids differ per request

    assert blocks(final) == blocks(whole) and final.content[1].id.startswith("toolu_")
    assert final.usage.output_tokens == whole.usage.output_tokens
    assert final.usage.input_tokens == whole.usage.input_tokens
    assert final.stop_reason == "tool_use"


@pytest.mark.parametrize(
    ("fault", "status", "kind"),
    [
        (Fault(kind="status", status=529), 529, "overloaded_error"),
        (Fault(kind="status", status=429), 429, "rate_limit_error"),
        (Fault(kind="no_credit"), 402, "billing_error"),
        (Fault(kind="context_too_long"), 400, "invalid_request_error"),
    ],
)
async def test_anthropic_sdk_error_classes(fault: Fault, status: int, kind: str) -> None:
    async with FakeProvider(faults=[fault]) as fake:
        client = ant(fake, max_retries=0)
        with pytest.raises(anthropic.APIStatusError) as info:
            await client.messages.create(model="m", max_tokens=100, messages=ASK)
        await client.close()
    assert info.value.status_code == status
    body = info.value.body  # the SDK types the decoded JSON body as `object`
    assert isinstance(body, dict)
    assert body["error"]["type"] == kind and body["type"] == "error"
    assert info.value.request_id


async def test_anthropic_sdk_wrong_key_and_thinking_with_temperature() -> None:
    async with FakeProvider(api_key=KEY) as fake:
        client = ant(fake, api_key="sk-wrong", max_retries=0)
        with pytest.raises(anthropic.AuthenticationError):
            await client.messages.create(model="m", max_tokens=100, messages=ASK)
        client = ant(fake, max_retries=0)
        thinking: Any = {"type": "enabled", "budget_tokens": 1024}
        with pytest.raises(anthropic.BadRequestError, match="temperature"):
            await client.messages.create(
                model="m",
                max_tokens=2048,
                messages=ASK,
                thinking=thinking,
                extra_body={"temperature": 0.0},  # newer SDKs no longer take it as an argument
            )
        await client.close()


async def test_anthropic_sdk_sees_an_error_event_inside_a_stream() -> None:
    async with FakeProvider(faults=[Fault(kind="stream_error")]) as fake:
        client = ant(fake, max_retries=0)
        with pytest.raises(anthropic.APIStatusError, match="Overloaded"):
            async with client.messages.stream(model="m", max_tokens=100, messages=ASK) as stream:
                async for _ in stream:
                    pass
        await client.close()


async def test_the_anthropic_routes_require_a_version_header() -> None:
    async with FakeProvider() as fake, httpx.AsyncClient() as http:
        resp = await http.post(
            fake.anthropic_base_url + "/v1/messages", json={"model": "m", "messages": ASK}
        )
    assert resp.status_code == 400
    assert resp.json()["error"] == {
        "type": "invalid_request_error",
        "message": "anthropic-version: header is required",
    }
