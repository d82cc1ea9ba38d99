"""What a provider's error body means, judged by its documented codes and types.

Both APIs put an `error` object in the body: OpenAI `{"error": {"message", "type",
"param", "code"}}`, Anthropic `{"type": "error", "error": {"type", "message",
"details"?}, "request_id"}`. The verdicts that need the body, not just the status:

- `no_credit`: the account cannot pay (OpenAI 429 `insufficient_quota` and its spend-limit
  codes, any 402, Anthropic `billing_error` and the 429 spend-limit `details.error_code`s).
  Retrying cannot help, and every other cell of the sweep would get the same answer.
- `config`: the provider rejects the setup, not this conversation: a parameter or value
  the model does not support (OpenAI `unsupported_parameter`/`unsupported_value`,
  Anthropic's documented messages for temperature with thinking, a `max_tokens` above the
  model's or not above the thinking budget), or a model that does not exist (OpenAI
  `model_not_found`, Anthropic's 404 `not_found_error` on a model). Every request of the
  sweep to this provider would get the same answer.
- `context`: the request is longer than the model's context window (OpenAI
  `context_length_exceeded`, Anthropic's "prompt is too long: N tokens > M maximum",
  a 413 from either). Matched by code, and by message only where the API has no code.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

Verdict = Literal["no_credit", "config", "context", "other"]

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
_CONFIG_CODES = frozenset(
    {
        "unsupported_parameter",  # OpenAI: a parameter this model does not take
        "unsupported_value",  # OpenAI: a value this model does not take
        "model_not_found",  # OpenAI: no such model, or no access to it
    }
)
_CONFIG_MESSAGE = re.compile(
    r"temperature may only be set to 1 when thinking is enabled"
    r"|`max_tokens` must be greater than `thinking\.budget_tokens`"
    r"|max_tokens: \d+ > \d+, which is the maximum allowed"
    r"|^model: ",  # Anthropic 404 not_found_error: "model: claude-x"
    re.IGNORECASE,
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
        if {self.type, self.code} & _CONFIG_CODES:
            return "config"
        if self.status in (400, 404) and _CONFIG_MESSAGE.search(self.message):
            return "config"
        if self.status == 413 or self.code in _CONTEXT_CODES or self.type in _CONTEXT_CODES:
            return "context"
        if self.status in (0, 400) and _CONTEXT_MESSAGE.search(self.message):
            return "context"
        return "other"


def refusal_reason(verdict: Verdict, detail: str) -> str:
    """Why the provider refused the setup, for a `config_error` row and the sweep's stop."""
    if verdict == "no_credit":
        return f"the account cannot pay ({detail})"
    return f"the provider rejects the request's setup ({detail})"


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
