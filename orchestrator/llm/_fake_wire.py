"""The fake provider's view of a request body and its replies, in both dialects."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Call:
    name: str
    arguments: dict[str, Any] | str  # a str is sent verbatim (to inject invalid JSON)


@dataclass(frozen=True, slots=True)
class Reply:
    text: str = ""
    calls: tuple[Call, ...] = ()


@dataclass(slots=True)
class Conversation:
    """What the script needs: user texts, whether the turn is new, the last calls made."""

    user_texts: list[str] = field(default_factory=list)
    new_turn: bool = True
    last_calls: list[str] = field(default_factory=list)
    tools: set[str] = field(default_factory=set)


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [b["text"] for b in content if isinstance(b, dict) and b.get("type") == "text"]
    return []


def view_openai(body: dict[str, Any]) -> Conversation:
    conv = Conversation(tools={t["function"]["name"] for t in body.get("tools", ())})
    for m in body.get("messages", ()):
        role = m.get("role")
        if role == "user":
            conv.user_texts.extend(_texts(m.get("content")))
        elif role == "assistant":
            conv.last_calls = [c["function"]["name"] for c in m.get("tool_calls") or ()]
    msgs = body.get("messages") or [{}]
    # Screenshots after a view_page result arrive as a user message: not a new turn.
    after_view = len(msgs) > 1 and msgs[-2].get("role") == "tool" and "view_page" in conv.last_calls
    conv.new_turn = msgs[-1].get("role") == "user" and not after_view
    return conv


def view_anthropic(body: dict[str, Any]) -> Conversation:
    conv = Conversation(tools={t["name"] for t in body.get("tools", ())})
    for m in body.get("messages", ()):
        if m.get("role") == "user":
            conv.user_texts.extend(_texts(m.get("content")))
        else:
            blocks = m.get("content") if isinstance(m.get("content"), list) else []
            conv.last_calls = [b["name"] for b in blocks if b.get("type") == "tool_use"]
    last = body.get("messages", [{}])[-1]
    conv.new_turn = bool(_texts(last.get("content"))) and last.get("role") == "user"
    return conv


def _usage(body: dict[str, Any], reply: Reply) -> tuple[int, int]:
    # Rough but deterministic: four characters a token.
    out = len(reply.text) + sum(len(json.dumps(c.arguments)) for c in reply.calls)
    return len(json.dumps(body)) // 4, out // 4 + 1


def reply_openai(body: dict[str, Any], reply: Reply, n: int) -> dict[str, Any]:
    calls = [
        {
            "id": f"call_{n}_{i}",
            "type": "function",
            "function": {
                "name": c.name,
                "arguments": c.arguments
                if isinstance(c.arguments, str)
                else json.dumps(c.arguments),
            },
        }
        for i, c in enumerate(reply.calls)
    ]
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if calls:
        message["tool_calls"] = calls
    tin, tout = _usage(body, reply)
    return {
        "id": f"chatcmpl-{n}",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", ""),
        "choices": [
            {"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}
        ],
        "usage": {"prompt_tokens": tin, "completion_tokens": tout, "total_tokens": tin + tout},
    }


def reply_anthropic(body: dict[str, Any], reply: Reply, n: int) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": reply.text}] if reply.text else []
    for i, c in enumerate(reply.calls):
        content.append(
            {"type": "tool_use", "id": f"toolu_{n}_{i}", "name": c.name, "input": c.arguments}
        )
    tin, tout = _usage(body, reply)
    return {
        "id": f"msg_{n}",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", ""),
        "content": content,
        "stop_reason": "tool_use" if reply.calls else "end_turn",
        "usage": {"input_tokens": tin, "output_tokens": tout},
    }
