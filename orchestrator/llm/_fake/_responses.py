"""The fake provider's OpenAI Responses API (`POST /v1/responses`), as Codex CLI uses it.

Request: `input` is a string or a list of items (`message` with `input_text` parts,
`function_call`, `function_call_output`, `custom_tool_call`, `reasoning`, ...),
`instructions` the system text, `tools` a list of `{"type": "function", "name",
"parameters"}` (or built-in types, which have no `name`).
Response: `{"object": "response", "status": "completed", "output": [items], "usage":
{"input_tokens", "input_tokens_details": {"cached_tokens"}, "output_tokens",
"output_tokens_details": {"reasoning_tokens"}, "total_tokens"}}`, the output items an
assistant `message` (`output_text` parts) and one `function_call` per call
(`call_id`, `name`, `arguments` as a JSON string).
Streaming (`stream: true`): named server-sent events, each with `type` and an increasing
`sequence_number`: `response.created`, `response.in_progress`, per item
`response.output_item.added`, for a message `response.content_part.added`,
`response.output_text.delta`..., `response.output_text.done`,
`response.content_part.done`, for a call `response.function_call_arguments.delta`...,
`response.function_call_arguments.done`, then `response.output_item.done`; last
`response.completed` with the whole response and its usage. No `[DONE]` line. A failure
mid-stream is a `response.failed` event whose response carries `error`.
"""

from __future__ import annotations

import json
from typing import Any

from ._stream import _pieces
from ._wire import Conversation, ScriptedTurn, _usage

CALL_ITEMS = ("function_call", "custom_tool_call", "local_shell_call")


def _input_texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [
            str(p.get("text", ""))
            for p in content
            if isinstance(p, dict) and p.get("type") in ("input_text", "text")
        ]
    return []


def view_responses(body: dict[str, Any]) -> Conversation:
    schemas: dict[str, Any] = {}
    for tool in body.get("tools") or ():
        if isinstance(tool, dict):
            name = tool.get("name") or tool.get("type")
            schemas[str(name)] = tool.get("parameters")
    conv = Conversation(tools=set(schemas), schemas=schemas)
    if isinstance(body.get("instructions"), str):
        conv.system_texts.append(body["instructions"])
    items = body.get("input")
    if isinstance(items, str):
        items = [{"type": "message", "role": "user", "content": items}]
    last: dict[str, Any] = {}
    for item in items if isinstance(items, list) else ():
        if not isinstance(item, dict):
            continue
        kind = item.get("type", "message")
        if kind == "message" and item.get("role") == "user":
            conv.user_texts.extend(_input_texts(item.get("content")))
        elif kind == "message" and item.get("role") in ("system", "developer"):
            conv.system_texts.extend(_input_texts(item.get("content")))
        elif kind in CALL_ITEMS:
            conv.calls_made += 1
            conv.last_calls = [*conv.last_calls, str(item.get("name", kind))]
        elif kind == "message" and item.get("role") == "assistant":
            conv.last_calls = []
        last = item
    conv.new_turn = last.get("type", "message") == "message" and last.get("role") == "user"
    return conv


def problem_responses(body: dict[str, Any]) -> tuple[str, str] | None:
    """The first request shape the real API rejects: (message, param), or None."""
    if not body.get("model"):
        return "Missing required parameter: 'model'.", "model"
    if not isinstance(body.get("input"), (str, list)):
        return "Missing required parameter: 'input'.", "input"
    if "messages" in body:
        return "Unsupported parameter: 'messages'. Use 'input' instead.", "messages"
    return None


def _output(turn: ScriptedTurn, n: int) -> list[dict[str, Any]]:
    """The response's output items: its message, then a function call per tool call."""
    output: list[dict[str, Any]] = []
    if turn.text:
        output.append(
            {
                "type": "message",
                "id": f"msg_fake{n}",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": turn.text, "annotations": []}],
            }
        )
    for i, c in enumerate(turn.calls):
        args = c.arguments if isinstance(c.arguments, str) else json.dumps(c.arguments)
        output.append(
            {
                "type": "function_call",
                "id": f"fc_fake{n}_{i}",
                "call_id": f"call_{n}_{i}",
                "name": c.name,
                "arguments": args,
                "status": "completed",
            }
        )
    return output


def reply_responses(body: dict[str, Any], reply: ScriptedTurn, n: int) -> dict[str, Any]:
    output = _output(reply, n)
    tin, tout = _usage(body, reply)
    return {
        "id": f"resp_fake{n}",
        "object": "response",
        "created_at": 0,
        "status": "completed",
        "error": None,
        "incomplete_details": None,
        "instructions": body.get("instructions"),
        "max_output_tokens": body.get("max_output_tokens"),
        "model": body.get("model", ""),
        "output": output,
        "parallel_tool_calls": body.get("parallel_tool_calls", True),
        "previous_response_id": body.get("previous_response_id"),
        "reasoning": {"effort": None, "summary": None},
        "store": body.get("store", True),
        "temperature": 1.0,
        "text": {"format": {"type": "text"}},
        "tool_choice": body.get("tool_choice", "auto"),
        "tools": body.get("tools") or [],
        "top_p": 1.0,
        "truncation": "disabled",
        "usage": {
            "input_tokens": tin,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": tout,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": tin + tout,
        },
        "user": None,
        "metadata": {},
    }


def stream_responses(done: dict[str, Any], *, error: Any = None) -> list[bytes]:
    """`done` re-told as events; `error` (an OpenAI error body) fails it after the first
    item's first delta."""
    out: list[bytes] = []

    def emit(kind: str, **fields: Any) -> None:
        body = {"type": kind, "sequence_number": len(out), **fields}
        out.append(f"event: {kind}\ndata: {json.dumps(body)}\n\n".encode())

    start = done | {"status": "in_progress", "output": [], "usage": None}
    emit("response.created", response=start)
    emit("response.in_progress", response=start)
    for index, item in enumerate(done["output"]):
        at = {"item_id": item["id"], "output_index": index}
        if item["type"] == "message":
            part = item["content"][0]
            emit("response.output_item.added", output_index=index, item=item | {"content": []})
            empty = part | {"text": ""}
            emit("response.content_part.added", **at, content_index=0, part=empty)
            for piece in _pieces(part["text"]):
                emit("response.output_text.delta", **at, content_index=0, delta=piece, logprobs=[])
                if error is not None:
                    return _failed(emit, out, done, error)
            emit(
                "response.output_text.done",
                **at,
                content_index=0,
                text=part["text"],
                logprobs=[],
            )
            emit("response.content_part.done", **at, content_index=0, part=part)
        else:  # function_call
            opened = item | {"arguments": "", "status": "in_progress"}
            emit("response.output_item.added", output_index=index, item=opened)
            for piece in _pieces(item["arguments"]):
                emit("response.function_call_arguments.delta", **at, delta=piece)
                if error is not None:
                    return _failed(emit, out, done, error)
            emit("response.function_call_arguments.done", **at, arguments=item["arguments"])
        emit("response.output_item.done", output_index=index, item=item)
    if error is not None:
        return _failed(emit, out, done, error)
    emit("response.completed", response=done)
    return out


def _failed(emit: Any, out: list[bytes], done: dict[str, Any], error: Any) -> list[bytes]:
    detail = error.get("error", {}) if isinstance(error, dict) else {}
    failed = done | {
        "status": "failed",
        "output": [],
        "usage": None,
        "error": {"code": detail.get("code") or "server_error", "message": detail.get("message")},
    }
    emit("response.failed", response=failed)
    return out
