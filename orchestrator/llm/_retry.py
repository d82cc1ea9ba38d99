"""The one retry layer of the LLM path: which failures are transient, and how long to wait.

The rules are the official SDKs' (`_base_client._should_retry` of openai and anthropic):
`x-should-retry: true|false` decides when present; otherwise 408, 409, 429 and 5xx are
retried. Transport errors and malformed 2xx bodies are retried too. The wait is
`retry-after-ms`, else `Retry-After` (seconds or an HTTP date), with jitter added on top
so that cells told to come back at the same instant do not all return together; without
either, exponential backoff. A server asking for more than `retry_after_max_s` is not
retried (as the openai SDK does past its cap), and account errors never are (see
`_classify`).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

import httpx
from tenacity import RetryCallState

from ._config import ProviderConfig

RETRYABLE_STATUS = frozenset({408, 409, 429})


class Transient(Exception):
    """One attempt failed in a way another attempt may fix."""

    def __init__(
        self, reason: str, retry_after: float | None = None, *, refused: bool = False
    ) -> None:
        self.reason = reason
        self.retry_after = retry_after
        self.refused = refused  # a 401/403 the breaker is still judging: not an outage
        super().__init__(reason)


def is_retryable_status(status: int) -> bool:
    return status in RETRYABLE_STATUS or status >= 500


def should_retry(status: int, headers: httpx.Headers) -> bool:
    says = headers.get("x-should-retry")
    if says == "true":
        return True
    if says == "false":
        return False
    return is_retryable_status(status)


def retry_after(headers: httpx.Headers, now: datetime | None = None) -> float | None:
    """Seconds the server asked us to wait: `retry-after-ms`, else `Retry-After`."""
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    return parse_retry_after(headers.get("retry-after"), now)


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a `Retry-After` header, or None if absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        return max(0.0, seconds) if seconds == seconds else None  # NaN: unreadable
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
