"""The one retry layer of the LLM path: which failures are transient, and how long to wait.

408, 429, 5xx, transport errors and malformed 2xx bodies are transient; `Retry-After`
(seconds or an HTTP date) is honoured, with jitter added on top so that cells told to
come back at the same instant do not all return together.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from tenacity import RetryCallState

from ._config import ProviderConfig

RETRYABLE_STATUS = frozenset({408, 429})
_CONTEXT_WORDS = (
    "context length",
    "context_length",
    "maximum context",
    "context window",
    "too many tokens",
    "prompt is too long",
    "too long",
)


class Transient(Exception):
    """One attempt failed in a way another attempt may fix."""

    def __init__(self, reason: str, retry_after: float | None = None) -> None:
        self.reason = reason
        self.retry_after = retry_after
        super().__init__(reason)


def is_retryable_status(status: int) -> bool:
    return status in RETRYABLE_STATUS or 500 <= status <= 599


def is_context_too_long(status: int, body: str) -> bool:
    text = body.lower()
    return status == 413 or (status == 400 and any(w in text for w in _CONTEXT_WORDS))


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a `Retry-After` header, or None if absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def wait_policy(cfg: ProviderConfig) -> Callable[[RetryCallState], float]:
    def backoff(attempt: int) -> float:
        # Written out: tenacity's jittered-exponential signature differs across versions.
        step = min(cfg.backoff_max_s, cfg.backoff_initial_s * 2.0 ** (attempt - 1))
        return step + random.uniform(0.0, cfg.backoff_initial_s)

    def wait(state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, Transient) and exc.retry_after is not None:
            base = min(exc.retry_after, cfg.retry_after_max_s)
            return base + random.uniform(0.0, 0.1 * base + 0.05)  # never earlier than asked
        return backoff(state.attempt_number)

    return wait
