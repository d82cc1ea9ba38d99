"""Request bodies on the wire match the providers' documented shapes (recorded by the fake)."""

from __future__ import annotations

import pytest

from orchestrator.llm import (
    AssistantMsg,
    ChatRequest,
    FakeProvider,
    ImagePart,
    ToolCall,
    ToolResultMsg,
    ToolSpec,
    UserMsg,
)

from .conftest import KEY, open_client

pytestmark = pytest.mark.anyio

IMG = ImagePart(media_type="image/png", data_b64="iVBORw0KGgo=")
TOOL = ToolSpec(
    name="read_file",
    description="Read a file.",
    parameters={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)
CALL = ToolCall(id="c1", name="read_file", arguments_json='{"path": "index.html"}')
REQ = ChatRequest(
    system="be careful",
    messages=(
        UserMsg(text="first"),
        AssistantMsg(text="reading", tool_calls=(CALL,)),
        ToolResultMsg(call_id="c1", name="read_file", content="<html>", images=(IMG,)),
        UserMsg(text="second"),
    ),
    tools=(TOOL,),
)


async def test_openai_body_and_headers(api_key: str) -> None:
    async with FakeProvider() as fake:
        async with open_client(fake, seed=7) as client:
            await client.complete(REQ)
    rec = fake.requests[0]
    assert rec.method == "POST" and rec.path == "/v1/chat/completions"
    assert rec.headers["authorization"] == "<redacted>"
    body = rec.body
    assert body["model"] == "test-model" and body["max_tokens"] == 4096 and body["seed"] == 7
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "read_file",
                "description": "Read a file.",
                "parameters": TOOL.parameters,
            },
        }
    ]
    roles = [m["role"] for m in body["messages"]]
    # Tool messages carry text only: the image follows as a user message.
    assert roles == ["system", "user", "assistant", "tool", "user", "user"]
    assert body["messages"][0] == {"role": "system", "content": "be careful"}
    call = body["messages"][2]["tool_calls"][0]
    assert call == {
        "id": "c1",
        "type": "function",
        "function": {"name": "read_file", "arguments": '{"path": "index.html"}'},
    }
    assert body["messages"][3] == {"role": "tool", "tool_call_id": "c1", "content": "<html>"}
    image = body["messages"][4]["content"][1]
    assert image == {
        "type": "image_url",
        "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="},
    }


async def test_anthropic_body_and_headers(api_key: str) -> None:
    async with FakeProvider() as fake:
        async with open_client(fake, kind="anthropic") as client:
            done = await client.complete(REQ)
    assert done.input_tokens > 0
    rec = fake.requests[0]
    assert rec.path == "/v1/messages"
    assert rec.headers["x-api-key"] == "<redacted>"
    assert rec.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in rec.headers
    body = rec.body
    assert body["system"] == "be careful" and body["max_tokens"] == 4096
    assert body["tools"] == [
        {"name": "read_file", "description": "Read a file.", "input_schema": TOOL.parameters}
    ]
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert body["messages"][1]["content"] == [
        {"type": "text", "text": "reading"},
        {"type": "tool_use", "id": "c1", "name": "read_file", "input": {"path": "index.html"}},
    ]
    # The tool result and the next user text merge into one user turn.
    result, text = body["messages"][2]["content"]
    assert result["type"] == "tool_result" and result["tool_use_id"] == "c1"
    assert result["content"][1] == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
    }
    assert text == {"type": "text", "text": "second"}


async def test_key_is_sent_but_never_recorded(api_key: str) -> None:
    async with FakeProvider() as fake:
        async with open_client(fake) as client:
            await client.complete(REQ)
    assert KEY not in repr(fake.requests)
