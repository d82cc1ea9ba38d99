"""Anthropic messages API: `POST {base_url}/v1/messages`.

Never sent, because the API rejects them: an empty or whitespace-only text block (a
tool result of an empty file, an empty reply), an assistant message with no content,
an empty `system`. Roles must alternate, so a dropped assistant message merges the user
turns around it. With `thinking_budget_tokens` set, `thinking` is enabled, no
`temperature` is sent, and the thinking blocks of each reply are echoed back unchanged
(the API requires them next to the tool calls they led to).
"""

from __future__ import annotations

import json
from typing import Any

from ._config import ProviderConfig
from ._dialect import Decoded, Dialect, MalformedResponse, Tokens, count, field, json_object
from ._types import AssistantMsg, ChatRequest, ImagePart, Message, Thinking, ToolCall, UserMsg

API_VERSION = "2023-06-01"


def _headers(key: str) -> dict[str, str]:
    return {"x-api-key": key, "anthropic-version": API_VERSION}


def _image(img: ImagePart) -> dict[str, Any]:
    source = {"type": "base64", "media_type": img.media_type, "data": img.data_b64}
    return {"type": "image", "source": source}


def _text(text: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": text}] if text.strip() else []


def _thinking(t: Thinking) -> dict[str, Any]:
    if t.redacted_data:
        return {"type": "redacted_thinking", "data": t.redacted_data}
    return {"type": "thinking", "thinking": t.text, "signature": t.signature}


def _blocks(m: Message) -> tuple[str, list[dict[str, Any]]]:
    if isinstance(m, UserMsg):
        blocks = [*_text(m.text), *map(_image, m.images)]
        return "user", blocks or [{"type": "text", "text": "(empty message)"}]
    if isinstance(m, AssistantMsg):
        blocks = [*map(_thinking, m.thinking), *_text(m.text)]
        for c in m.tool_calls:
            use = {
                "type": "tool_use",
                "id": c.id,
                "name": c.name,
                "input": json_object(c.arguments_json),
            }
            blocks.append(use)
        return "assistant", blocks
    result: dict[str, Any] = {"type": "tool_result", "tool_use_id": m.call_id}
    content = [*_text(m.content), *map(_image, m.images)]
    if content:  # `content` is optional: an empty result is sent without it
        result["content"] = content
    if m.is_error:
        result["is_error"] = True
    return "user", [result]


def _messages(messages: tuple[Message, ...]) -> list[dict[str, Any]]:
    # Roles must alternate: tool results and the next user text merge into one user turn.
    out: list[dict[str, Any]] = []
    for m in messages:
        role, blocks = _blocks(m)
        if not blocks:
            continue  # an empty assistant reply
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
    return out


def _encode(cfg: ProviderConfig, req: ChatRequest) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": cfg.model,
        "messages": _messages(req.messages),
        "max_tokens": cfg.max_output_tokens,
    }
    if req.system.strip():
        body["system"] = req.system
    if req.tools:
        body["tools"] = [
            {"name": t.name, "description": t.description, "input_schema": t.parameters}
            for t in req.tools
        ]
    if cfg.temperature_sent is not None:
        body["temperature"] = cfg.temperature_sent
    if cfg.thinking_budget_tokens:
        body["thinking"] = {"type": "enabled", "budget_tokens": cfg.thinking_budget_tokens}
    return body | cfg.extra_body


def usage_tokens(usage: Any) -> Tokens | None:
    if not isinstance(usage, dict):
        return None
    read = count(usage, "cache_read_input_tokens")
    write = count(usage, "cache_creation_input_tokens")
    return Tokens(
        input=count(usage, "input_tokens") + read + write,  # input_tokens excludes the cache
        output=count(usage, "output_tokens"),
        cache_read=read,
        cache_write=write,
    )


def _decode(body: Any) -> Decoded:
    content = field(body, "content", list)
    texts: list[str] = []
    calls: list[ToolCall] = []
    thinking: list[Thinking] = []
    for block in content:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text":
            texts.append(str(block.get("text", "")))
        elif kind == "tool_use":
            args = json.dumps(block.get("input", {}))
            calls.append(
                ToolCall(
                    id=str(block.get("id", "")),
                    name=str(block.get("name", "")),
                    arguments_json=args,
                )
            )
        elif kind == "thinking":
            thinking.append(
                Thinking(
                    text=str(block.get("thinking", "")), signature=str(block.get("signature", ""))
                )
            )
        elif kind == "redacted_thinking":
            thinking.append(Thinking(redacted_data=str(block.get("data", ""))))
        elif kind is None:
            raise MalformedResponse("content block without a type")
    message = AssistantMsg(text="\n".join(texts), tool_calls=tuple(calls), thinking=tuple(thinking))
    return Decoded(
        message=message,
        usage=usage_tokens(body.get("usage")),
        stop_reason=str(body.get("stop_reason") or ""),
    )


ANTHROPIC = Dialect(path="/v1/messages", headers=_headers, encode=_encode, decode=_decode)
