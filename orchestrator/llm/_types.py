"""Provider-neutral conversation records; the dialect modules translate them on the wire."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import msgspec

_MEDIA_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".webp": "image/webp",
}


class ImagePart(msgspec.Struct, frozen=True, kw_only=True):
    media_type: str
    data_b64: str

    @classmethod
    def from_file(cls, path: Path) -> ImagePart:
        media = _MEDIA_TYPES.get(path.suffix.lower(), "image/png")
        return cls(media_type=media, data_b64=base64.b64encode(path.read_bytes()).decode())


class ToolSpec(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    description: str
    parameters: dict[str, Any]  # JSON schema of the arguments object


class ToolCall(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    name: str
    arguments_json: str  # as the model sent it; may be invalid JSON


class UserMsg(msgspec.Struct, frozen=True, kw_only=True, tag="user"):
    text: str
    images: tuple[ImagePart, ...] = ()


class Thinking(msgspec.Struct, frozen=True, kw_only=True):
    """An Anthropic thinking block, echoed back verbatim (signature and all) in the history."""

    text: str = ""
    signature: str = ""
    redacted_data: str = ""  # set for a `redacted_thinking` block


class AssistantMsg(msgspec.Struct, frozen=True, kw_only=True, tag="assistant"):
    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    thinking: tuple[Thinking, ...] = ()


class ToolResultMsg(msgspec.Struct, frozen=True, kw_only=True, tag="tool"):
    call_id: str
    name: str
    content: str
    is_error: bool = False
    images: tuple[ImagePart, ...] = ()


Message = UserMsg | AssistantMsg | ToolResultMsg


class ChatRequest(msgspec.Struct, frozen=True, kw_only=True):
    system: str
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] = ()


class Completion(msgspec.Struct, frozen=True, kw_only=True):
    message: AssistantMsg
    input_tokens: int  # every input token, cached ones included
    output_tokens: int  # reasoning/thinking tokens included
    cache_read_tokens: int = 0  # of input_tokens: read from the provider's prompt cache
    cache_write_tokens: int = 0  # of input_tokens: written to it (Anthropic)
    usage_estimated: bool = False  # the response had no usage: tokens are an estimate
    stop_reason: str = ""
    attempts: int = 1
    retry_wait_s: float = 0.0  # slept between attempts: not the cell's working time
    queue_wait_s: float = 0.0  # waited on the provider's limiter: not working time either
