"""Token usage read from a provider's answer: a JSON body or a server-sent-event stream.

Shapes read (the provider's documented fields, nothing the agent prints):

- OpenAI chat completions: `usage.prompt_tokens` / `completion_tokens`, cached input in
  `prompt_tokens_details.cached_tokens`; streamed, the last chunk carries `usage` (the
  gateway asks for it with `stream_options.include_usage`).
- OpenAI responses: `usage.input_tokens` / `output_tokens`, cached in
  `input_tokens_details.cached_tokens`; streamed, in the `response.completed` event.
- Anthropic messages: `usage.input_tokens` (fresh input only), `cache_read_input_tokens`,
  `cache_creation_input_tokens`, `output_tokens`; streamed, `message_start` then
  cumulative `message_delta` usage.

A stream also counts the answer's own text as it passes (`text_bytes`: content and
thinking deltas, tool names and argument fragments, never the events' framing), so an
answer cut off before its usage can be charged by what was actually received.

An error object in a 200 body or in the stream (`{"error": ...}`, an Anthropic `error`
event) is reported as `error`: the agent saw a failed call.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass(slots=True)
class Metered:
    input_tokens: int = 0  # every input token, cached ones included
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    seen: bool = False  # the provider reported usage at all
    error: str = ""  # an error the provider sent inside a 200 answer or a stream
    streamed: bool = False  # read from a server-sent-event stream
    error_json: str = ""  # the error object as sent (JSON), for the provider's classifier
    text_bytes: int = 0  # streamed: bytes of answer text, tool arguments and thinking seen


def _int(obj: Any, *keys: str) -> int:
    for key in keys:
        if not isinstance(obj, dict):
            return 0
        obj = obj.get(key)
    return obj if isinstance(obj, int) and not isinstance(obj, bool) else 0


def _error_text(obj: Any) -> str:
    err = obj.get("error") if isinstance(obj, dict) else None
    if err is None:
        return ""
    if isinstance(err, dict):
        return str(err.get("message") or err.get("type") or err)[:500]
    return str(err)[:500]


def read_usage(into: Metered, usage: Any) -> None:
    """Fold one `usage` object of any of the three shapes into `into`."""
    if not isinstance(usage, dict):
        return
    into.seen = True
    if "prompt_tokens" in usage or "completion_tokens" in usage:  # OpenAI chat
        into.input_tokens = _int(usage, "prompt_tokens")
        into.output_tokens = _int(usage, "completion_tokens")
        into.cache_read_tokens = _int(usage, "prompt_tokens_details", "cached_tokens")
        return
    if "input_tokens_details" in usage or "output_tokens_details" in usage:  # responses
        into.input_tokens = _int(usage, "input_tokens")
        into.output_tokens = _int(usage, "output_tokens")
        into.cache_read_tokens = _int(usage, "input_tokens_details", "cached_tokens")
        return
    # Anthropic: input_tokens counts only fresh input; message_delta repeats what it knows.
    read = _int(usage, "cache_read_input_tokens")
    write = _int(usage, "cache_creation_input_tokens")
    fresh = _int(usage, "input_tokens")
    if "input_tokens" in usage or read or write:
        into.input_tokens = max(into.input_tokens, fresh + read + write)
        into.cache_read_tokens = max(into.cache_read_tokens, read)
        into.cache_write_tokens = max(into.cache_write_tokens, write)
    if "output_tokens" in usage:
        into.output_tokens = max(into.output_tokens, _int(usage, "output_tokens"))


def meter_body(body: bytes) -> Metered:
    """Usage of a JSON answer (any of the three APIs)."""
    out = Metered()
    try:
        obj = json.loads(body)
    except ValueError:
        out.error = "the provider's answer is not JSON"
        return out
    out.error = _error_text(obj)
    if out.error:
        out.error_json = body.decode("utf-8", errors="replace")[:4000]
    if isinstance(obj, dict):
        read_usage(out, obj.get("usage"))
    return out


class StreamMeter:
    """Reads usage from a server-sent-event stream as it passes through, chunk by chunk."""

    def __init__(self) -> None:
        self.metered = Metered(streamed=True)
        self._buf = b""
        self.done = False  # saw the stream's own end ([DONE], message_stop, completed)

    def feed(self, chunk: bytes) -> None:
        # Normalised on the buffer, not the chunk: a CRLF may be split between chunks.
        self._buf = (self._buf + chunk).replace(b"\r\n", b"\n")
        while b"\n\n" in self._buf:
            block, self._buf = self._buf.split(b"\n\n", 1)
            self._event(block.decode("utf-8", errors="replace"))

    def close(self) -> Metered:
        if self._buf.strip():
            self._event(self._buf.decode("utf-8", errors="replace"))
            self._buf = b""
        return self.metered

    def _event(self, block: str) -> None:
        name = ""
        data: list[str] = []
        for line in block.split("\n"):
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].removeprefix(" "))
        text = "\n".join(data)
        if not text:
            return
        if text.strip() == "[DONE]":
            self.done = True
            return
        try:
            obj = json.loads(text)
        except ValueError:
            return
        if not isinstance(obj, dict):
            return
        kind = name or str(obj.get("type", ""))
        self.metered.text_bytes += _delta_bytes(kind, obj)
        if kind == "error" or obj.get("error") is not None:
            self.metered.error = _error_text(obj) or "error event in the stream"
            self.metered.error_json = text[:4000]
            return
        if kind in ("response.failed", "response.incomplete"):
            response = obj.get("response")
            self.metered.error = (
                _error_text(response) if isinstance(response, dict) else ""
            ) or kind
        if kind in ("message_stop", "response.completed"):
            self.done = True
        if kind == "message_start":
            read_usage(self.metered, (obj.get("message") or {}).get("usage"))
        elif kind.startswith("response."):
            response = obj.get("response")
            if isinstance(response, dict) and response.get("usage") is not None:
                read_usage(self.metered, response.get("usage"))
        elif obj.get("usage") is not None:
            read_usage(self.metered, obj.get("usage"))


# Keys whose string values are the answer itself in a streamed delta (any of the APIs).
_TEXT_KEYS = frozenset(
    {"content", "text", "partial_json", "arguments", "thinking", "refusal", "name", "delta"}
    | {"reasoning_content"}
)


def _strings(value: Any, key: str = "") -> int:
    if isinstance(value, str):
        return len(value.encode()) if key in _TEXT_KEYS else 0
    if isinstance(value, dict):
        return sum(_strings(v, k) for k, v in value.items())
    if isinstance(value, list):
        return sum(_strings(v, key) for v in value)
    return 0


def _delta_bytes(kind: str, obj: dict[str, Any]) -> int:
    """Bytes of answer text in one event: OpenAI chat `choices[].delta`, Responses
    `*.delta` events, Anthropic `content_block_delta` / `content_block_start`. Events that
    repeat the whole answer (`*.done`, `response.completed`) are not counted again."""
    if "choices" in obj:  # OpenAI chat chunk
        return sum(_strings(c.get("delta")) for c in obj["choices"] if isinstance(c, dict))
    if kind.startswith("response."):
        if kind.endswith(".delta"):
            return _strings(obj.get("delta"), "delta")
        if kind == "response.output_item.added":
            return _strings(obj.get("item"))
        return 0
    if kind in ("content_block_delta", "content_block_start"):
        return _strings(obj.get("delta") or obj.get("content_block"))
    return 0
