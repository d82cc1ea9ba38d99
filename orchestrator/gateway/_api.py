"""The two APIs as the gateway speaks them: its routes, the headers it passes, the
agent's token, and errors in each API's own shape."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal
from urllib.parse import urlsplit

from ._http import Response

Api = Literal["openai", "anthropic"]
# What an agent may call; anything else is a 404 (the gateway is no open proxy).
METERED = frozenset({"/v1/chat/completions", "/v1/responses", "/v1/completions", "/v1/messages"})
FREE = frozenset({"/v1/models", "/v1/messages/count_tokens"})
# Request headers passed on; everything else (auth, hop-by-hop, host) is dropped.
PASS = frozenset(
    {"content-type", "accept", "user-agent", "anthropic-version", "anthropic-beta", "openai-beta"}
)
DROP_BACK = frozenset(
    {"content-length", "transfer-encoding", "connection", "content-encoding", "keep-alive"}
)
RETRYABLE = frozenset({408, 409, 429, 500, 502, 503, 504, 529})


def api_of(path: str) -> Api:
    return "anthropic" if path.startswith("/v1/messages") else "openai"


def error_body(api: Api, status: int, message: str, kind: str) -> bytes:
    """An error in the API's documented shape."""
    if api == "anthropic":
        return json.dumps({"type": "error", "error": {"type": kind, "message": message}}).encode()
    return json.dumps(
        {"error": {"message": message, "type": kind, "param": None, "code": kind}}
    ).encode()


def error_response(api: Api, status: int, message: str, kind: str) -> Response:
    return Response(
        status=status,
        headers=[("content-type", "application/json")],
        body=error_body(api, status, message, kind),
    )


def out_of_credit(api: Api, message: str) -> Response:
    """The API's own out-of-credit answer: Anthropic's 402 `billing_error`, OpenAI's 429
    `insufficient_quota` (what an agent stops on)."""
    if api == "anthropic":
        return error_response(api, 402, message, "billing_error")
    return error_response(api, 429, message, "insufficient_quota")


def token_of(headers: Mapping[str, str]) -> str:
    auth = headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip()
    return headers.get("x-api-key") or headers.get("api-key") or ""


def redact(text: str, secret: str) -> str:
    return text.replace(secret, "<redacted>") if secret else text


def is_loopback(url: str) -> bool:
    return urlsplit(url).hostname in {"127.0.0.1", "localhost", "::1"}


def parse_json(raw: bytes) -> Any:
    try:
        return json.loads(raw) if raw else None
    except ValueError:
        return None
