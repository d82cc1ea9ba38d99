"""What differs between providers on the wire: path, auth headers, body encoding, decoding."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ._config import ProviderConfig
from ._types import AssistantMsg, ChatRequest


class MalformedResponse(ValueError):
    """A 2xx body that is not the documented shape; retried like a transient fault."""


@dataclass(frozen=True, slots=True)
class Decoded:
    message: AssistantMsg
    input_tokens: int
    output_tokens: int
    stop_reason: str


@dataclass(frozen=True, slots=True)
class Dialect:
    path: str
    headers: Callable[[str], dict[str, str]]  # api key -> auth headers
    encode: Callable[[ProviderConfig, ChatRequest], dict[str, Any]]
    decode: Callable[[Any], Decoded]


def json_object(text: str) -> dict[str, Any]:
    """The arguments object of a tool call, or {} if the model sent something else."""
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def field(obj: Any, key: str, kind: type | tuple[type, ...]) -> Any:
    """`obj[key]` checked against `kind`, or `MalformedResponse` naming what was wrong."""
    if not isinstance(obj, dict) or key not in obj:
        raise MalformedResponse(f"response lacks {key!r}")
    value = obj[key]
    if not isinstance(value, kind):
        raise MalformedResponse(f"response field {key!r} has type {type(value).__name__}")
    return value
