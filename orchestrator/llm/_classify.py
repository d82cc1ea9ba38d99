"""What a provider's error body means, judged by its documented codes and types.

Both APIs put an `error` object in the body: OpenAI `{"error": {"message", "type",
"param", "code"}}`, Anthropic `{"type": "error", "error": {"type", "message",
"details"?}, "request_id"}`. The verdicts that need the body, not just the status:

- `no_credit`: the account cannot pay (OpenAI 429 `insufficient_quota` and its spend-limit
  codes, any 402, Anthropic `billing_error` and the 429 spend-limit `details.error_code`s).
  Retrying cannot help, and every other cell of the sweep would get the same answer.
- `context`: the request is longer than the model's context window (OpenAI
  `context_length_exceeded`, Anthropic's "prompt is too long: N tokens > M maximum",
  a 413 from either). Matched by code, and by message only where the API has no code.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

Verdict = Literal["no_credit", "context", "other"]

_NO_CREDIT_CODES = frozenset(
    {
        "insufficient_quota",  # OpenAI: type and code
        "billing_hard_limit_reached",
        "credit_balance_exhausted",
        "organization_spend_limit_exceeded",
        "project_spend_limit_exceeded",
        "billing_error",  # Anthropic type
        "enforced_spend_limit_reached",  # Anthropic 429 details.error_code
        "contract_spend_limit_reached",
        "linked_organization_spend_limit_reached",
    }
)
_CONTEXT_CODES = frozenset({"context_length_exceeded", "exceed_context_size_error"})
# Anthropic has no code for it; these are its documented messages (and OpenAI's, which
# OpenAI-compatible servers copy without the code).
_CONTEXT_MESSAGE = re.compile(
    r"prompt is too long: \d+ tokens > \d+ maximum"
    r"|input length and `max_tokens` exceed context limit"
    r"|maximum context length is \d+ tokens",
    re.IGNORECASE,
)
_NO_CREDIT_MESSAGE = re.compile(r"your credit balance is too low", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class ErrorInfo:
    status: int
    type: str = ""
    code: str = ""
    detail_code: str = ""  # Anthropic `error.details.error_code`
    message: str = ""

    def describe(self) -> str:
        kind = self.code or self.detail_code or self.type
        text = f"{kind}: {self.message}" if kind else self.message
        return text.strip() or "no error message"

    @property
    def verdict(self) -> Verdict:
        if self.status == 402 or {self.type, self.code, self.detail_code} & _NO_CREDIT_CODES:
            return "no_credit"
        if _NO_CREDIT_MESSAGE.search(self.message):
            return "no_credit"
        if self.status == 413 or self.code in _CONTEXT_CODES or self.type in _CONTEXT_CODES:
            return "context"
        if self.status in (0, 400) and _CONTEXT_MESSAGE.search(self.message):
            return "context"
        return "other"


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def error_object(body: Any) -> dict[str, Any] | None:
    """The body's `error` object, if the body is an error in either API's shape."""
    if not isinstance(body, dict):
        return None
    err = body.get("error")
    if isinstance(err, dict):
        return err
    if isinstance(err, str) and err:  # some compatible servers: {"error": "text"}
        return {"message": err}
    return None


def error_info(status: int, text: str) -> ErrorInfo:
    """Read an error response body; a body that is not JSON becomes the message."""
    try:
        body = json.loads(text)
    except ValueError:
        return ErrorInfo(status=status, message=text[:400])
    err = error_object(body)
    if err is None:
        return ErrorInfo(status=status, message=text[:400])
    details = err.get("details")
    return ErrorInfo(
        status=status,
        type=_text(err.get("type")),
        code=_text(err.get("code")),
        detail_code=_text(details.get("error_code")) if isinstance(details, dict) else "",
        message=_text(err.get("message"))[:400],
    )
