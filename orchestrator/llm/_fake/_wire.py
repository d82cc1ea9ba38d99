"""The fake provider's view of a request body and its replies, in both dialects.

Replies and errors carry every field of the documented shapes (OpenAI `usage` with its
token details, `refusal`, `logprobs`; Anthropic `stop_sequence` and cache counts;
`{"type": "error", "error": {...}, "request_id"}` errors), so the official SDKs parse
them as they would the real APIs'.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Call:
    name: str
    arguments: dict[str, Any] | str  # a str is sent verbatim (to inject invalid JSON)


@dataclass(frozen=True, slots=True)
class ScriptedTurn:
    """One assistant turn the fake's script answers with: its text and its tool calls."""

    text: str = ""
    calls: tuple[Call, ...] = ()


@dataclass(slots=True)
class Conversation:
    """What the script needs: user texts, whether the turn is new, the last calls made."""

    user_texts: list[str] = field(default_factory=list)
    new_turn: bool = True
    last_calls: list[str] = field(default_factory=list)
    tools: set[str] = field(default_factory=set)
    schemas: dict[str, Any] = field(default_factory=dict)  # tool name -> parameters schema
    calls_made: int = 0  # tool calls in the assistant's earlier messages
    system_texts: list[str] = field(default_factory=list)  # system / developer / instructions


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [b["text"] for b in content if isinstance(b, dict) and b.get("type") == "text"]
    return []


def view_openai(body: dict[str, Any]) -> Conversation:
    schemas = {
        t["function"]["name"]: t["function"].get("parameters") for t in body.get("tools", ())
    }
    conv = Conversation(tools=set(schemas), schemas=schemas)
    for m in body.get("messages", ()):
        role = m.get("role")
        if role == "user":
            conv.user_texts.extend(_texts(m.get("content")))
        elif role in ("system", "developer"):
            conv.system_texts.extend(_texts(m.get("content")))
        elif role == "assistant":
            conv.last_calls = [c["function"]["name"] for c in m.get("tool_calls") or ()]
            conv.calls_made += len(conv.last_calls)
    msgs = body.get("messages") or [{}]
    # Screenshots after a view_page result arrive as a user message: not a new turn.
    after_view = len(msgs) > 1 and msgs[-2].get("role") == "tool" and "view_page" in conv.last_calls
    conv.new_turn = msgs[-1].get("role") == "user" and not after_view
    return conv


def view_anthropic(body: dict[str, Any]) -> Conversation:
    schemas = {t["name"]: t.get("input_schema") for t in body.get("tools", ())}
    conv = Conversation(tools=set(schemas), schemas=schemas)
    conv.system_texts.extend(_texts(body.get("system")))
    for m in body.get("messages", ()):
        if m.get("role") == "user":
            conv.user_texts.extend(_texts(m.get("content")))
        else:
            blocks = m.get("content") if isinstance(m.get("content"), list) else []
            conv.last_calls = [b["name"] for b in blocks if b.get("type") == "tool_use"]
            conv.calls_made += len(conv.last_calls)
    last = body.get("messages", [{}])[-1]
    conv.new_turn = bool(_texts(last.get("content"))) and last.get("role") == "user"
    return conv


# The documented error type of each status (OpenAI, Anthropic).
_OPENAI_TYPES = {
    400: "invalid_request_error",
    401: "invalid_request_error",
    403: "permission_error",
    404: "invalid_request_error",
    409: "conflict_error",
    413: "invalid_request_error",
    429: "requests",
}
_OPENAI_CODES = {401: "invalid_api_key", 404: "model_not_found", 429: "rate_limit_exceeded"}
_ANTHROPIC_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    408: "timeout_error",
    409: "conflict_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}


def error_openai(status: int, message: str, *, type_: str = "", code: str | None = None) -> Any:
    kind = type_ or _OPENAI_TYPES.get(status, "server_error")
    code = code if code is not None else _OPENAI_CODES.get(status)
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def error_anthropic(status: int, message: str, *, type_: str = "", n: int = 0) -> Any:
    kind = type_ or _ANTHROPIC_TYPES.get(status, "api_error")
    return {
        "type": "error",
        "error": {"type": kind, "message": message},
        "request_id": f"req_fake{n:06d}",
    }


def models_openai(model: str) -> Any:
    return {
        "object": "list",
        "data": [{"id": model, "object": "model", "created": 0, "owned_by": "pwb-fake"}],
    }


def models_anthropic(model: str) -> Any:
    entry = {
        "type": "model",
        "id": model,
        "display_name": model,
        "created_at": "2024-01-01T00:00:00Z",
    }
    return {"data": [entry], "has_more": False, "first_id": model, "last_id": model}


def _usage(body: dict[str, Any], reply: ScriptedTurn) -> tuple[int, int]:
    # Rough but deterministic: four characters a token.
    out = len(reply.text) + sum(len(json.dumps(c.arguments)) for c in reply.calls)
    sent = {k: v for k, v in body.items() if k not in ("stream", "stream_options")}
    return len(json.dumps(sent)) // 4, out // 4 + 1


def reply_openai(body: dict[str, Any], reply: ScriptedTurn, n: int) -> dict[str, Any]:
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
    message: dict[str, Any] = {
        "role": "assistant",
        "content": reply.text or None,
        "refusal": None,
        "annotations": [],
    }
    if calls:
        message["tool_calls"] = calls
    tin, tout = _usage(body, reply)
    finish = "tool_calls" if calls else "stop"
    return {
        "id": f"chatcmpl-{n}",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", ""),
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
        "usage": {
            "prompt_tokens": tin,
            "completion_tokens": tout,
            "total_tokens": tin + tout,
            "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
            "completion_tokens_details": {
                "reasoning_tokens": 0,
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            },
        },
        "service_tier": "default",
        "system_fingerprint": "fp_pwbfake",
    }


def reply_anthropic(body: dict[str, Any], reply: ScriptedTurn, n: int) -> dict[str, Any]:
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
        "stop_sequence": None,
        "usage": {
            "input_tokens": tin,
            "output_tokens": tout,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "service_tier": "standard",
        },
    }


REASONING_PREFIXES = ("o1", "o3", "o4", "gpt-5")  # models that reject the classic sampling knobs


def problem_openai(body: dict[str, Any]) -> tuple[str, str, str] | None:
    """The first request shape the real API rejects: (message, param, code), or None."""
    model = str(body.get("model", ""))
    if model.startswith(REASONING_PREFIXES):
        if "max_tokens" in body:
            message = (
                "Unsupported parameter: 'max_tokens' is not supported with this model. "
                "Use 'max_completion_tokens' instead."
            )
            return message, "max_tokens", "unsupported_parameter"
        if "temperature" in body and body["temperature"] != 1:
            message = (
                "Unsupported value: 'temperature' does not support 0.0 with this model. "
                "Only the default (1) value is supported."
            )
            return message, "temperature", "unsupported_value"
    for i, m in enumerate(body.get("messages") or ()):
        if m.get("role") == "assistant" and m.get("content") is None and not m.get("tool_calls"):
            message = "Invalid value for 'content': expected a string, got null."
            return message, f"messages.[{i}].content", "invalid_value"
    return None


def _empty_text(block: Any) -> bool:
    return (
        isinstance(block, dict)
        and block.get("type") == "text"
        and not str(block.get("text", "")).strip()
    )


def problem_anthropic(body: dict[str, Any]) -> str | None:
    """The first request shape the real API rejects, in its words, or None."""
    thinking = body.get("thinking")
    if isinstance(thinking, dict) and thinking.get("type") == "enabled":
        if "temperature" in body and body["temperature"] != 1:
            return "temperature may only be set to 1 when thinking is enabled"
        if int(thinking.get("budget_tokens", 0)) >= int(body.get("max_tokens", 0)):
            return "`max_tokens` must be greater than `thinking.budget_tokens`"
    if "system" in body and not str(body["system"]).strip():
        return "system: text content blocks must be non-empty"
    messages = body.get("messages") or []
    for i, m in enumerate(messages):
        content = m.get("content")
        if i and messages[i - 1].get("role") == m.get("role"):
            return (
                f'messages: roles must alternate between "user" and "assistant", but found '
                f'multiple "{m.get("role")}" roles in a row'
            )
        if not content:
            return (
                f"messages.{i}: all messages must have non-empty content except for the "
                "optional final assistant message"
            )
        blocks = content if isinstance(content, list) else []
        inner: list[Any] = []
        for r in blocks:
            if isinstance(r, dict) and r.get("type") == "tool_result":
                nested = r.get("content")
                inner += nested if isinstance(nested, list) else []
        if any(map(_empty_text, [*blocks, *inner])):
            return "messages: text content blocks must be non-empty"
    return None
