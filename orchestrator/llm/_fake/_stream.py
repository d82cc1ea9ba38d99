"""Server-sent events of the fake provider: a finished reply re-told as the APIs stream it.

OpenAI (`stream: true`): `data: {chat.completion.chunk}` lines, the role first, then
content and tool-call deltas (id and name in a call's first delta, arguments after), a
chunk with the finish reason, and with `stream_options.include_usage` one more chunk
with `choices: []` and the usage (every earlier chunk says `usage: null`), then
`data: [DONE]`.
Anthropic (`stream: true`): `message_start` (usage with the input tokens),
`content_block_start` / `content_block_delta` (`text_delta`, `input_json_delta`) /
`content_block_stop` per block, a `ping`, `message_delta` (stop reason, output tokens),
`message_stop`. An error mid-stream is an `error` event in the error body's shape.
"""

from __future__ import annotations

import json
from typing import Any

PIECE = 16  # characters of text or JSON per delta: several deltas per block


def _pieces(text: str) -> list[str]:
    return [text[i : i + PIECE] for i in range(0, len(text), PIECE)] or [""]


def _data(obj: Any) -> bytes:
    return f"data: {json.dumps(obj)}\n\n".encode()


def _event(name: str, obj: Any) -> bytes:
    return f"event: {name}\ndata: {json.dumps(obj)}\n\n".encode()


def stream_openai(done: dict[str, Any], *, include_usage: bool) -> list[bytes]:
    head = {k: done[k] for k in ("id", "created", "model", "system_fingerprint")}
    head["object"] = "chat.completion.chunk"
    choice = done["choices"][0]
    message = choice["message"]

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        body = head | {
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]
        }
        return _data(body | {"usage": None} if include_usage else body)

    out = [chunk({"role": "assistant", "content": "", "refusal": None})]
    out += [chunk({"content": p}) for p in _pieces(message["content"] or "") if p]
    for i, call in enumerate(message.get("tool_calls") or ()):
        fn = call["function"]
        first = {"index": i, "id": call["id"], "type": "function"}
        out.append(
            chunk({"tool_calls": [first | {"function": {"name": fn["name"], "arguments": ""}}]})
        )
        out += [
            chunk({"tool_calls": [{"index": i, "function": {"arguments": p}}]})
            for p in _pieces(fn["arguments"])
        ]
    out.append(chunk({}, choice["finish_reason"]))
    if include_usage:
        out.append(_data(head | {"choices": [], "usage": done["usage"]}))
    return [*out, b"data: [DONE]\n\n"]


def _block_deltas(block: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A content block as it opens (empty) and the deltas that fill it."""
    if block["type"] == "text":
        return {"type": "text", "text": ""}, [
            {"type": "text_delta", "text": p} for p in _pieces(block["text"])
        ]
    # tool_use
    opened = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
    deltas = [
        {"type": "input_json_delta", "partial_json": p} for p in _pieces(json.dumps(block["input"]))
    ]
    return opened, deltas


def stream_anthropic(done: dict[str, Any], *, error: Any = None) -> list[bytes]:
    usage = done["usage"]
    start = done | {
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage | {"output_tokens": 1},
    }
    out = [_event("message_start", {"type": "message_start", "message": start})]
    for i, block in enumerate(done["content"]):
        opened, deltas = _block_deltas(block)
        out.append(
            _event(
                "content_block_start",
                {"type": "content_block_start", "index": i, "content_block": opened},
            )
        )
        if i == 0:
            out.append(_event("ping", {"type": "ping"}))
        out += [
            _event("content_block_delta", {"type": "content_block_delta", "index": i, "delta": d})
            for d in deltas
        ]
        if error is not None:
            return [*out, _event("error", error)]
        out.append(_event("content_block_stop", {"type": "content_block_stop", "index": i}))
    if error is not None:  # no content block to interrupt
        return [*out, _event("error", error)]
    delta = {"stop_reason": done["stop_reason"], "stop_sequence": done["stop_sequence"]}
    out.append(
        _event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": delta,
                "usage": {"output_tokens": usage["output_tokens"]},
            },
        )
    )
    return [*out, _event("message_stop", {"type": "message_stop"})]
