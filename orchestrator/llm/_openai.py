"""OpenAI-compatible chat completions: `POST {base_url}/chat/completions`.

Never sent: an assistant message with `content: null` and no tool calls (an empty reply
in the history), which the API rejects. Reasoning models take `max_completion_tokens`,
no `temperature`, and `reasoning_effort`: all from the provider's config.
"""

from __future__ import annotations

import json
from typing import Any

from ._config import ProviderConfig
from ._dialect import Decoded, Dialect, MalformedResponse, Tokens, count, field, json_object
from ._types import AssistantMsg, ChatRequest, ImagePart, Message, ToolCall, ToolResultMsg, UserMsg


def _headers(key: str) -> dict[str, str]:
    return {"authorization": f"Bearer {key}"} if key else {}


def _image(img: ImagePart) -> dict[str, Any]:
    url = f"data:{img.media_type};base64,{img.data_b64}"
    return {"type": "image_url", "image_url": {"url": url}}


def _user(text: str, images: tuple[ImagePart, ...]) -> dict[str, Any]:
    if not images:
        return {"role": "user", "content": text}
    return {"role": "user", "content": [{"type": "text", "text": text}, *map(_image, images)]}


def _assistant(msg: AssistantMsg) -> dict[str, Any]:
    out: dict[str, Any] = {"role": "assistant", "content": msg.text or None}
    if msg.tool_calls:
        # Echo invalid arguments as {}: some servers reject history holding broken JSON.
        out["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {
                    "name": c.name,
                    "arguments": json.dumps(json_object(c.arguments_json)),
                },
            }
            for c in msg.tool_calls
        ]
    return out


def _messages(system: str, messages: tuple[Message, ...]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"role": "system", "content": system}]
    pending: list[ImagePart] = []  # tool messages carry text only: images follow as a user turn
    for m in messages:
        if not isinstance(m, ToolResultMsg) and pending:
            out.append(_user("Screenshots returned by view_page:", tuple(pending)))
            pending = []
        if isinstance(m, UserMsg):
            out.append(_user(m.text, m.images))
        elif isinstance(m, AssistantMsg):
            if m.text or m.tool_calls:  # an empty reply would be `content: null` alone
                out.append(_assistant(m))
        else:
            out.append({"role": "tool", "tool_call_id": m.call_id, "content": m.content})
            pending.extend(m.images)
    if pending:
        out.append(_user("Screenshots returned by view_page:", tuple(pending)))
    return out


def _encode(cfg: ProviderConfig, req: ChatRequest) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": cfg.model,
        "messages": _messages(req.system, req.messages),
        cfg.max_tokens_param: cfg.max_output_tokens,
    }
    if req.tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.parameters,
                },
            }
            for t in req.tools
        ]
    if cfg.temperature_sent is not None:
        body["temperature"] = cfg.temperature_sent
    if cfg.seed is not None:
        body["seed"] = cfg.seed
    if cfg.reasoning_effort:
        body["reasoning_effort"] = cfg.reasoning_effort
    return body | cfg.extra_body


def _tool_call(raw: Any) -> ToolCall:
    fn = field(raw, "function", dict)
    args = fn.get("arguments", "")
    # Some compatible servers send an object instead of a JSON string.
    text = args if isinstance(args, str) else json.dumps(args)
    return ToolCall(id=str(raw.get("id", "")), name=str(fn.get("name", "")), arguments_json=text)


def _content(value: Any) -> str:
    if isinstance(value, list):  # some compatible servers send parts
        return "".join(
            str(p.get("text", "")) for p in value if isinstance(p, dict) and p.get("type") == "text"
        )
    return value if isinstance(value, str) else ""


def usage_tokens(usage: Any) -> Tokens | None:
    if not isinstance(usage, dict):
        return None
    details = usage.get("prompt_tokens_details")
    return Tokens(
        input=count(usage, "prompt_tokens"),
        output=count(usage, "completion_tokens"),
        cache_read=count(details, "cached_tokens"),
    )


def _decode(body: Any) -> Decoded:
    choices = field(body, "choices", list)
    if not choices:
        raise MalformedResponse("response has no choices")
    msg = field(choices[0], "message", dict)
    calls = tuple(_tool_call(c) for c in msg.get("tool_calls") or ())
    return Decoded(
        message=AssistantMsg(text=_content(msg.get("content")), tool_calls=calls),
        usage=usage_tokens(body.get("usage")),
        stop_reason=str(choices[0].get("finish_reason") or ""),
    )


OPENAI = Dialect(path="/chat/completions", headers=_headers, encode=_encode, decode=_decode)
