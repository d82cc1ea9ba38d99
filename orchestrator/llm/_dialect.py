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
class Tokens:
    input: int  # every input token, cached ones included
    output: int
    cache_read: int = 0
    cache_write: int = 0


@dataclass(frozen=True, slots=True)
class Decoded:
    message: AssistantMsg
    usage: Tokens | None  # None: the response did not say (estimated by the client)
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


def count(obj: Any, key: str) -> int:
    """A token count from a usage object: absent or null is 0, anything else must be a number."""
    value = obj.get(key) if isinstance(obj, dict) else None
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise MalformedResponse(f"usage field {key!r} has type {type(value).__name__}")
    return int(value)


def field(obj: Any, key: str, kind: type | tuple[type, ...]) -> Any:
    """`obj[key]` checked against `kind`, or `MalformedResponse` naming what was wrong."""
    if not isinstance(obj, dict) or key not in obj:
        raise MalformedResponse(f"response lacks {key!r}")
    value = obj[key]
    if not isinstance(value, kind):
        raise MalformedResponse(f"response field {key!r} has type {type(value).__name__}")
    return value
