"""`ChatClient`: one provider's completions over a shared httpx client, with the retry layer.

No SDK and no retries underneath: httpx transport errors and HTTP statuses are judged
here, once, and become `Transient` (retried), `ContextTooLong`, `LLMError` or
`ProviderRefused` (the setup's fault, judged by `_classify` for this client and the
gateway alike: the cell ends `config_error` and the sweep stops). Provider text copied
into an error has the API key removed.

A 200 whose body is an error (some gateways do that) is judged like the error it holds,
and keeps the provider's message. A 200 that stopped at the model's context window
(Anthropic `model_context_window_exceeded`) is `ContextTooLong` carrying its charged
usage. A response without usage is charged an estimate (about four bytes a token) and
flagged `usage_estimated`, never 0 tokens that would keep the caps from firing.
"""

from __future__ import annotations

import json
import time
from typing import Any, NoReturn

import anyio
import httpx
from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_attempt

from ..budget import provider_call, waiting
from ._breaker import Breaker
from ._cassette import CELL_HEADER, current_cell
from ._classify import ErrorInfo, error_info, error_object, refusal_reason
from ._config import ProviderConfig
from ._dialect import Decoded, Dialect, MalformedResponse, Tokens
from ._errors import ContextTooLong, LLMError, ProviderRefused
from ._keys import Keys
from ._retry import Transient, retry_after, should_retry, wait_policy
from ._types import ChatRequest, Completion

CONTEXT_STOP_REASONS = frozenset({"model_context_window_exceeded"})


def redact(text: str, secret: str) -> str:
    return text.replace(secret, "<redacted>") if secret else text


class _Waits:
    """Time one `complete` call spent not working: retry sleeps and limiter queueing.

    Both are credited to the cell's wall-time budget as they happen (`waiting`), so a
    deadline cannot fire during a long retry series; these totals are for the record."""

    def __init__(self) -> None:
        self.retry_s = 0.0
        self.queue_s = 0.0

    async def sleep(self, seconds: float) -> None:
        start = time.monotonic()
        with waiting():
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
        keys: Keys | None = None,
        tag_cells: bool = False,
    ) -> None:
        self.config = config
        self._tag_cells = tag_cells  # name the cell to a cassette deck (`_cassette`)
        self._http = http
        self._dialect = dialect
        self._url = base_url.rstrip("/") + dialect.path
        self._limiter = limiter
        self._breaker = breaker
        self._keys = keys or Keys()

    def _api_key(self) -> str:
        env = self.config.api_key_env
        if not env:
            return ""
        key = self._keys.get(env)
        if not key:
            raise ProviderRefused(self._keys.missing(self.config.name, env))
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
        outages = self._breaker.outages
        while True:
            try:
                async for attempt in retrying:
                    with attempt:
                        attempts += 1
                        decoded = await self._attempt(body, waits)
                break
            except Transient as exc:
                if self._breaker.paused or self._breaker.outages > outages:
                    # The provider is (or was, while this request failed) down, not this
                    # request: wait out the outage in `admit` (bounded; `ProviderOutage`
                    # past it) and start over with fresh attempts.
                    outages = self._breaker.outages
                    retrying = retrying.copy()
                    continue
                name = self.config.name
                raise LLMError(
                    f"provider {name!r} kept failing after {attempts} attempts: {exc.reason}"
                ) from None  # the httpx cause holds the request headers; keep it out
        return self._completion(decoded, body, attempts, waits)

    def _completion(
        self, decoded: Decoded, body: dict[str, Any], attempts: int, waits: _Waits
    ) -> Completion:
        usage = decoded.usage or _estimate(body, decoded)
        return Completion(
            message=decoded.message,
            input_tokens=usage.input,
            output_tokens=usage.output,
            cache_read_tokens=usage.cache_read,
            cache_write_tokens=usage.cache_write,
            usage_estimated=decoded.usage is None,
            stop_reason=decoded.stop_reason,
            attempts=attempts,
            retry_wait_s=waits.retry_s,
            queue_wait_s=waits.queue_s,
        )

    @property
    def breaker(self) -> Breaker:
        """The provider's breaker, shared with the sweep's gateway (scaffold agents)."""
        return self._breaker

    async def _attempt(self, body: dict[str, Any], waits: _Waits) -> Decoded:
        self._breaker.check()
        with waiting():  # an outage's pause is not the cell's working time
            await self._breaker.admit()
        key = self._api_key()
        try:
            decoded = await self._send(body, key, waits)
        except Transient as exc:
            if not exc.refused:
                self._breaker.record_transient(exc.reason)
            raise
        return decoded

    async def _send(self, body: dict[str, Any], key: str, waits: _Waits) -> Decoded:
        queued = time.monotonic()
        with waiting():
            await self._limiter.acquire()
        try:
            waits.queue_s += time.monotonic() - queued
            sent = anyio.current_time()
            try:
                # A hung or unreachable provider: the time is not the cell's work, and a
                # hang past the cell's time is cut there and judged like a read timeout
                # (retried, then the provider's failure or outage), never a budget stop.
                headers = self._dialect.headers(key)
                if self._tag_cells and (cell := current_cell()):
                    headers = headers | {CELL_HEADER: cell}
                with provider_call() as call:
                    resp = await self._http.post(self._url, json=body, headers=headers)
            except httpx.TransportError as exc:
                raise Transient(f"{type(exc).__name__} talking to {self._url}") from None
            if call.cancelled_caught:
                raise Transient(
                    f"no answer from {self._url} in {anyio.current_time() - sent:.0f} s, "
                    "all the time the cell had left"
                )
        finally:
            self._limiter.release()
        decoded = self._judge(resp, key)
        if decoded.stop_reason in CONTEXT_STOP_REASONS:
            spent = self._completion(decoded, body, 1, _Waits())
            raise ContextTooLong(
                f"provider {self.config.name!r}: stopped at the model's context window "
                f"({decoded.stop_reason})",
                spent=spent,
            )
        return decoded

    def _judge(self, resp: httpx.Response, key: str) -> Decoded:
        status = resp.status_code
        if 200 <= status <= 299:
            body = self._json(resp)
            err = error_object(body)
            if err is None or "choices" in body or "content" in body:
                decoded = self._decode(body)
                self._breaker.record(refused=False)
                return decoded
            # An error inside a 200: judged by the status it names, else as a server error.
            code = err.get("code")
            named = code if isinstance(code, int) and 400 <= code <= 599 else 0
            info = error_info(named, resp.text)
            self._fail(info, resp.headers, key, in_200=True)
        self._fail(error_info(status, resp.text), resp.headers, key, in_200=False)

    def _fail(self, info: ErrorInfo, headers: httpx.Headers, key: str, *, in_200: bool) -> NoReturn:
        status = info.status
        detail = redact(info.describe(), key)
        http = f"HTTP 200 with error {status or ''}".strip() if in_200 else f"HTTP {status}"
        where = f"provider {self.config.name!r}: {http}"
        verdict = info.verdict
        if verdict in ("no_credit", "config"):  # the setup's fault: every cell would see it
            self._breaker.trip(refusal_reason(verdict, detail))
            self._breaker.check()
        if status in (401, 403):
            self._breaker.record(refused=True, status=status)
            self._breaker.check()
            if self._breaker.undecided:  # maybe a bad key: let the breaker see more
                raise Transient(f"HTTP {status} (refused): {detail}", refused=True)
            raise LLMError(f"{where}: {detail}")
        if verdict == "context":
            raise ContextTooLong(f"{where}: request too long: {detail}")
        if in_200 and status == 0:
            raise Transient(f"{http}: {detail}")
        if should_retry(status, headers):
            wait = retry_after(headers)
            if wait is not None and wait > self.config.retry_after_max_s:
                raise LLMError(
                    f"{where}: {detail} (asked to retry after {wait:.0f} s, more than "
                    f"retry_after_max_s = {self.config.retry_after_max_s:.0f} s)"
                )
            raise Transient(f"{http}: {detail}", wait)
        raise LLMError(f"{where}: {detail}")

    def _json(self, resp: httpx.Response) -> Any:
        try:
            return resp.json()
        except ValueError as exc:
            raise Transient(f"invalid JSON response body: {str(exc)[:200]}") from None

    def _decode(self, body: Any) -> Decoded:
        try:
            return self._dialect.decode(body)
        except MalformedResponse as exc:
            raise Transient(f"malformed response body: {str(exc)[:200]}") from None


def _estimate(body: dict[str, Any], decoded: Decoded) -> Tokens:
    """About four bytes a token: an upper-ish bound that keeps the budget caps honest."""
    sent = len(json.dumps(body, ensure_ascii=False).encode())
    message = decoded.message
    got = len(message.text.encode()) + sum(
        len(c.name) + len(c.arguments_json.encode()) for c in message.tool_calls
    )
    got += sum(len(t.text.encode()) for t in message.thinking)
    return Tokens(input=sent // 4 + 1, output=got // 4 + 1)
