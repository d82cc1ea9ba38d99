"""`ChatClient`: one provider's completions over a shared httpx client, with the retry layer.

No SDK and no retries underneath: httpx transport errors and HTTP statuses are judged
here, once, and become `Transient` (retried), `ContextTooLong`, `LLMError` or
`ProviderRefused`. Provider text copied into an error has the API key removed.
"""

from __future__ import annotations

import os
import time
from typing import Any

import anyio
import httpx
from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_attempt

from ._breaker import Breaker
from ._config import ProviderConfig
from ._dialect import Decoded, Dialect, MalformedResponse
from ._errors import ContextTooLong, LLMError, ProviderRefused
from ._retry import (
    Transient,
    is_context_too_long,
    is_retryable_status,
    parse_retry_after,
    wait_policy,
)
from ._types import ChatRequest, Completion


def redact(text: str, secret: str) -> str:
    return text.replace(secret, "<redacted>") if secret else text


class _Waits:
    """Time one `complete` call spent not working: retry sleeps and limiter queueing."""

    def __init__(self) -> None:
        self.retry_s = 0.0
        self.queue_s = 0.0

    async def sleep(self, seconds: float) -> None:
        start = time.monotonic()
        await anyio.sleep(seconds)
        self.retry_s += time.monotonic() - start


class ChatClient:
    def __init__(
        self,
        config: ProviderConfig,
        http: httpx.AsyncClient,
        dialect: Dialect,
        *,
        base_url: str,
        limiter: anyio.CapacityLimiter,
        breaker: Breaker,
    ) -> None:
        self.config = config
        self._http = http
        self._dialect = dialect
        self._url = base_url.rstrip("/") + dialect.path
        self._limiter = limiter
        self._breaker = breaker

    def _api_key(self) -> str:
        env = self.config.api_key_env
        if not env:
            return ""
        key = os.environ.get(env, "")
        if not key:
            raise ProviderRefused(f"provider {self.config.name!r}: ${env} is not set")
        return key

    async def complete(self, request: ChatRequest) -> Completion:
        body = self._dialect.encode(self.config, request)
        waits = _Waits()
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.config.max_attempts),
            wait=wait_policy(self.config),
            retry=retry_if_exception_type(Transient),
            sleep=waits.sleep,
            reraise=True,
        )
        attempts = 0
        try:
            async for attempt in retrying:
                with attempt:
                    attempts += 1
                    decoded = await self._attempt(body, waits)
        except Transient as exc:
            name = self.config.name
            raise LLMError(
                f"provider {name!r} kept failing after {attempts} attempts: {exc.reason}"
            ) from None  # the httpx cause holds the request headers; keep it out of tracebacks
        return Completion(
            message=decoded.message,
            input_tokens=decoded.input_tokens,
            output_tokens=decoded.output_tokens,
            stop_reason=decoded.stop_reason,
            attempts=attempts,
            retry_wait_s=waits.retry_s,
            queue_wait_s=waits.queue_s,
        )

    async def _attempt(self, body: dict[str, Any], waits: _Waits) -> Decoded:
        self._breaker.check()
        key = self._api_key()
        queued = time.monotonic()
        async with self._limiter:
            waits.queue_s += time.monotonic() - queued
            try:
                resp = await self._http.post(
                    self._url, json=body, headers=self._dialect.headers(key)
                )
            except httpx.TransportError as exc:
                raise Transient(f"{type(exc).__name__} talking to {self._url}") from None
        return self._judge(resp, key)

    def _judge(self, resp: httpx.Response, key: str) -> Decoded:
        status = resp.status_code
        if 200 <= status <= 299:
            self._breaker.record(refused=False)
            return self._decode(resp)
        detail = redact(resp.text[:400], key)
        where = f"provider {self.config.name!r}: HTTP {status}"
        if status in (401, 403):
            self._breaker.record(refused=True, status=status)
            self._breaker.check()
            if self._breaker.undecided:  # maybe a bad key: let the breaker see more
                raise Transient(f"HTTP {status} (refused)")
            raise LLMError(f"{where}: {detail}")
        if is_retryable_status(status):
            raise Transient(f"HTTP {status}", parse_retry_after(resp.headers.get("retry-after")))
        if is_context_too_long(status, detail):
            raise ContextTooLong(f"{where}: request too long: {detail}")
        raise LLMError(f"{where}: {detail}")

    def _decode(self, resp: httpx.Response) -> Decoded:
        try:
            return self._dialect.decode(resp.json())
        except ValueError as exc:  # invalid JSON or MalformedResponse
            kind = "malformed" if isinstance(exc, MalformedResponse) else "invalid JSON"
            raise Transient(f"{kind} response body: {str(exc)[:200]}") from None
