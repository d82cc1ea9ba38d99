"""Anthropic messages API: `POST {base_url}/v1/messages`."""

from __future__ import annotations

import json
from typing import Any

from ._config import ProviderConfig
from ._dialect import Decoded, Dialect, MalformedResponse, field, json_object
from ._types import AssistantMsg, ChatRequest, ImagePart, Message, ToolCall, UserMsg

API_VERSION = "2023-06-01"


def _headers(key: str) -> dict[str, str]:
    return {"x-api-key": key, "anthropic-version": API_VERSION}


def _image(img: ImagePart) -> dict[str, Any]:
    source = {"type": "base64", "media_type": img.media_type, "data": img.data_b64}
    return {"type": "image", "source": source}


def _blocks(m: Message) -> tuple[str, list[dict[str, Any]]]:
    if isinstance(m, UserMsg):
        return "user", [{"type": "text", "text": m.text}, *map(_image, m.images)]
    if isinstance(m, AssistantMsg):
        blocks: list[dict[str, Any]] = [{"type": "text", "text": m.text}] if m.text else []
        for c in m.tool_calls:
            use = {
                "type": "tool_use",
                "id": c.id,
                "name": c.name,
                "input": json_object(c.arguments_json),
            }
            blocks.append(use)
        return "assistant", blocks
    content: list[dict[str, Any]] = [{"type": "text", "text": m.content}, *map(_image, m.images)]
    result: dict[str, Any] = {"type": "tool_result", "tool_use_id": m.call_id, "content": content}
    if m.is_error:
        result["is_error"] = True
    return "user", [result]


def _messages(messages: tuple[Message, ...]) -> list[dict[str, Any]]:
    # Roles must alternate: tool results and the next user text merge into one user turn.
    out: list[dict[str, Any]] = []
    for m in messages:
        role, blocks = _blocks(m)
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
    return out


def _encode(cfg: ProviderConfig, req: ChatRequest) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": cfg.model,
        "system": req.system,
        "messages": _messages(req.messages),
        "max_tokens": cfg.max_output_tokens,
    }
    if req.tools:
        body["tools"] = [
            {"name": t.name, "description": t.description, "input_schema": t.parameters}
            for t in req.tools
        ]
    if cfg.temperature is not None:
        body["temperature"] = cfg.temperature
    return body


def _decode(body: Any) -> Decoded:
    content = field(body, "content", list)
    texts: list[str] = []
    calls: list[ToolCall] = []
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
        elif kind is None:
            raise MalformedResponse("content block without a type")
    usage = body.get("usage") or {}
    return Decoded(
        message=AssistantMsg(text="\n".join(texts), tool_calls=tuple(calls)),
        input_tokens=int(usage.get("input_tokens", 0)),
        output_tokens=int(usage.get("output_tokens", 0)),
        stop_reason=str(body.get("stop_reason", "")),
    )


ANTHROPIC = Dialect(path="/v1/messages", headers=_headers, encode=_encode, decode=_decode)
