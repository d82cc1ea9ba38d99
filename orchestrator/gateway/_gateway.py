"""The LLM gateway: the only network path a scaffold agent has, metered per cell.

One per sweep (`async with Gateway(upstreams) as gw`). It listens on loopback (the
local backend's agents) and, via `listen`, on the sweep network's bridge address (the
one address:port the host firewall lets sandboxes reach). A cell opens an `Account`
and hands its agent the account's token in place of an API key; per request the
gateway

1. finds the cell by that token (an unknown token gets the API's 401),
2. refuses a metered call once the cell's cap or the sweep's ledger is spent, or when
   its worst case (the prompt, about four bytes a token, plus the `max_tokens` it asks
   for, else the provider's `max_output_tokens`, at the price) exceeds what is left of
   the cell's `max_usd`, with the API's own out-of-credit error (OpenAI: 429
   `insufficient_quota`; Anthropic: 402 `billing_error`) and sets `Account.stopped`,
3. forwards to the provider with the real key (read from the environment at request
   time; the agent never sees it), streaming included,
4. meters tokens and money from the provider's `usage` (never from what the agent
   prints) into the cell's ledger, which forwards to the sweep's, and logs the call. A
   call without usage (a stream that broke off) is charged an estimate, flagged: the
   request's bytes for the prompt and the text actually received for the answer (about
   four bytes a token), the answer bounded by the `max_tokens` asked for; never the
   stream's framing bytes. Spend past the cell's cap is kept as `overshoot_usd`.

The provider's error answers are judged by the one classifier the LLM clients use
(`orchestrator.llm.error_info`): an account that cannot pay, a parameter or model the
provider rejects, a bad key (the shared breaker opens), or no key in the gateway's
environment mark the account `config` (the cell ends `config_error` and the sweep
stops) and stop the agent; they are never counted as an outage.

Calls the provider answered with an error, or with an error inside a 200 or a stream,
are counted on the account; the scaffold solver judges the cell by them.

An upstream may carry the provider's `Breaker`, the one the sweep's LLM clients share:
the gateway feeds it every metered answer, and while the provider is in an outage it
holds an agent's call (one goes out every probe interval) instead of passing the
failures on. An outage past the breaker's pause bound answers 503, marks the account
and stops the agent (killed after `stop_grace_s`, as for a cap), so the cell ends
`outage` (resumable) within the bound, not the agent's failure. An agent that gave up
on provider failures while the provider was still failing (a stream that died with the
provider, 5xx it could not get past) is judged the same way by the scaffold solver.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Literal
from urllib.parse import urlsplit

import anyio
import httpx
import msgspec
from anyio.abc import TaskGroup

from ..budget import BudgetExceeded, BudgetKind, Ledger
from ..llm import Breaker, Keys, ProviderConfig, ProviderOutage, error_info, refusal_reason
from ._http import Request, Response, serve_connection
from ._meter import Metered, StreamMeter, meter_body

Api = Literal["openai", "anthropic"]
# What an agent may call; anything else is a 404 (the gateway is no open proxy).
_METERED = frozenset({"/v1/chat/completions", "/v1/responses", "/v1/completions", "/v1/messages"})
_FREE = frozenset({"/v1/models", "/v1/messages/count_tokens"})
# Request headers passed on; everything else (auth, hop-by-hop, host) is dropped.
_PASS = frozenset(
    {"content-type", "accept", "user-agent", "anthropic-version", "anthropic-beta", "openai-beta"}
)
_DROP_BACK = frozenset(
    {"content-length", "transfer-encoding", "connection", "content-encoding", "keep-alive"}
)
_RETRYABLE = frozenset({408, 409, 429, 500, 502, 503, 504, 529})
_HUNG_UP = "the agent hung up mid-stream"


class RequestRecord(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One call an agent made through the gateway, as the cell's events show it."""

    t: float
    method: str
    path: str
    status: int
    model: str = ""
    stream: bool = False
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    duration_s: float = 0.0
    estimated: bool = False  # no usage from the provider: tokens estimated from bytes
    error: str = ""  # the provider's error, or why the gateway refused
    refused: bool = False  # answered by the gateway itself, never forwarded


@dataclass(frozen=True, slots=True)
class Upstream:
    provider: ProviderConfig
    base_url: str  # resolved (a fake provider's loopback URL); openai-style ends in /v1
    breaker: Breaker | None = None  # the provider's, shared with the sweep's LLM clients
    keys: Keys = field(default_factory=Keys)  # where its key comes from (`llm.Keys`)


@dataclass(eq=False)
class Account:
    """One cell's standing with the gateway."""

    cell: str
    upstream: Upstream
    ledger: Ledger  # the cell's; forwards charges to the sweep's
    max_usd: float | None = None
    max_tokens: int | None = None
    token: str = field(default_factory=lambda: "pwb-" + secrets.token_urlsafe(24))
    log: list[RequestRecord] = field(default_factory=list)
    spent_usd: float = 0.0
    spent_tokens: int = 0
    ok_calls: int = 0
    # Provider errors on metered calls: `errors` can't be retried away (401, 400, 404 ...);
    # `transient` ones (429, 5xx, a broken stream) count until a call succeeds again.
    errors: list[str] = field(default_factory=list)
    transient: list[str] = field(default_factory=list)
    budget: tuple[BudgetKind, str] | None = None  # the cap that stopped it
    stopped: anyio.Event = field(default_factory=anyio.Event)
    held_s: float = 0.0  # how long its calls waited out a provider outage
    outage: str = ""  # the provider's outage outlasted the pause bound
    config: str = ""  # the provider refused the setup (no credit, no key, a bad parameter)
    overshoot_usd: float = 0.0  # spend past `max_usd` (a call's usage beyond its estimate)

    async def over_cap(self) -> tuple[BudgetKind, str] | None:
        if self.max_usd is not None and self.spent_usd >= self.max_usd:
            return "money", f"the cell spent ${self.spent_usd:.4f} of its ${self.max_usd:g} cap"
        if self.max_tokens is not None and self.spent_tokens >= self.max_tokens:
            return "tokens", f"the cell spent {self.spent_tokens} of {self.max_tokens} tokens"
        try:  # `acheck`, not `exhausted`: on a Ray cluster it reads the cluster-wide totals
            await self.ledger.acheck()
        except BudgetExceeded as exc:
            return exc.kind, "the sweep's money/token cap is reached"
        return None

    def worst_case(self, req_body: bytes, body: Any) -> tuple[BudgetKind, str] | None:
        """Refuse a call whose worst case would pass the cell's money cap."""
        if self.max_usd is None:
            return None
        cfg = self.upstream.provider
        prompt = len(req_body) // 4 + 1
        most = _max_tokens(body) or cfg.max_output_tokens
        worst = cfg.cost_usd(prompt, most)
        left = self.max_usd - self.spent_usd
        if worst <= left:
            return None
        return "money", (
            f"the call's worst case (${worst:.6f}: about {prompt} prompt tokens + {most} "
            f"max_tokens) exceeds the ${max(left, 0.0):.6f} left of the cell's "
            f"${self.max_usd:g} cap"
        )

    def charge(self, m: Metered, *, estimated: bool = False) -> float:
        usd = self.upstream.provider.cost_usd(
            m.input_tokens,
            m.output_tokens,
            cache_read_tokens=m.cache_read_tokens,
            cache_write_tokens=m.cache_write_tokens,
        )
        tokens = m.input_tokens + m.output_tokens
        self.spent_usd += usd
        self.spent_tokens += tokens
        self.ledger.charge(tokens, usd, estimated=estimated)
        if self.max_usd is not None and self.spent_usd > self.max_usd:
            self.overshoot_usd = self.spent_usd - self.max_usd
            self.ledger.overshoot(self.overshoot_usd)
        return usd


def _max_tokens(body: Any) -> int:
    """The answer's length bound the request asks for (any of the three APIs), or 0."""
    if not isinstance(body, dict):
        return 0
    for key in ("max_tokens", "max_completion_tokens", "max_output_tokens"):
        value = body.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return 0


def _api(path: str) -> Api:
    return "anthropic" if path.startswith("/v1/messages") else "openai"


def error_body(api: Api, status: int, message: str, kind: str) -> bytes:
    """An error in the API's documented shape."""
    if api == "anthropic":
        return json.dumps({"type": "error", "error": {"type": kind, "message": message}}).encode()
    return json.dumps(
        {"error": {"message": message, "type": kind, "param": None, "code": kind}}
    ).encode()


def _error(api: Api, status: int, message: str, kind: str) -> Response:
    return Response(
        status=status,
        headers=[("content-type", "application/json")],
        body=error_body(api, status, message, kind),
    )


def _token(headers: Mapping[str, str]) -> str:
    auth = headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip()
    return headers.get("x-api-key") or headers.get("api-key") or ""


def _redact(text: str, secret: str) -> str:
    return text.replace(secret, "<redacted>") if secret else text


def _is_loopback(url: str) -> bool:
    return urlsplit(url).hostname in {"127.0.0.1", "localhost", "::1"}


class Gateway:
    def __init__(self, upstreams: Mapping[str, Upstream], *, host: str = "127.0.0.1") -> None:
        self._upstreams = dict(upstreams)
        self._host = host
        self._accounts: dict[str, Account] = {}
        self._http: dict[str, httpx.AsyncClient] = {}
        self._stack: AsyncExitStack | None = None
        self._tg: TaskGroup | None = None
        self.port = 0

    # ------------------------------------------------------------ lifecycle
    async def __aenter__(self) -> Gateway:
        stack = AsyncExitStack()
        try:
            for name, up in self._upstreams.items():
                cfg = up.provider
                client = httpx.AsyncClient(
                    limits=httpx.Limits(max_connections=cfg.max_connections),
                    timeout=httpx.Timeout(
                        connect=cfg.connect_timeout_s,
                        read=cfg.read_timeout_s,
                        write=cfg.read_timeout_s,
                        pool=None,
                    ),
                    trust_env=not _is_loopback(up.base_url),
                )
                self._http[name] = await stack.enter_async_context(client)
            self._tg = await stack.enter_async_context(anyio.create_task_group())
            stack.callback(self._tg.cancel_scope.cancel)  # runs first: stop serving
            self.port = await self._listen(self._host, 0)
        except BaseException:
            await stack.aclose()
            raise
        self._stack = stack
        return self

    async def __aexit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        assert self._stack is not None
        self._accounts.clear()
        await self._stack.aclose()

    async def _listen(self, host: str, port: int) -> int:
        assert self._tg is not None
        listener = await anyio.create_tcp_listener(local_host=host, local_port=port)
        bound = int(listener.extra(anyio.abc.SocketAttribute.local_port))

        async def handle(stream: anyio.abc.SocketStream) -> None:
            await serve_connection(stream, self.handle)

        self._tg.start_soon(listener.serve, handle)
        return bound

    async def listen(self, host: str) -> None:
        """Serve on `host` too, at the same port (e.g. a sweep network's bridge address)."""
        await self._listen(host, self.port)

    def url(self, host: str = "") -> str:
        """The gateway's base URL (no `/v1`) as seen from `host` (default: loopback)."""
        return f"http://{host or self._host}:{self.port}"

    # ------------------------------------------------------------ accounts
    def open_account(
        self,
        cell: str,
        provider: str,
        ledger: Ledger,
        *,
        max_usd: float | None = None,
        max_tokens: int | None = None,
    ) -> Account:
        try:
            upstream = self._upstreams[provider]
        except KeyError:
            raise KeyError(f"the gateway forwards to no provider named {provider!r}") from None
        acct = Account(
            cell=cell, upstream=upstream, ledger=ledger, max_usd=max_usd, max_tokens=max_tokens
        )
        self._accounts[acct.token] = acct
        return acct

    def close_account(self, acct: Account) -> None:
        """Its token stops working: an agent that outlived its cell is refused."""
        self._accounts.pop(acct.token, None)

    # ------------------------------------------------------------ serving
    async def handle(self, req: Request) -> Response:
        path = req.path.split("?", 1)[0]
        api = _api(path)
        acct = self._accounts.get(_token(req.headers))
        if acct is None:
            return _error(
                api,
                401,
                "pwb gateway: unknown or expired token",
                "authentication_error" if api == "anthropic" else "invalid_api_key",
            )
        t0 = time.monotonic()
        if ".." in path.split("/") or "%" in path or "\\" in path:
            resp = _error(api, 400, "pwb gateway: path not allowed", "invalid_request_error")
            self._record(acct, req, path, 400, t0, error="path not allowed", refused=True)
            return resp
        metered = req.method == "POST" and path in _METERED
        if (
            not metered
            and not (req.method == "GET" and path in _FREE)
            and not (req.method == "POST" and path in _FREE)
            and not (req.method == "GET" and path.startswith("/v1/models/"))
        ):
            resp = _error(api, 404, f"pwb gateway: no route {req.method} {path}", "not_found_error")
            self._record(acct, req, path, resp.status, t0, error="no such route", refused=True)
            return resp
        if metered and (cap := await acct.over_cap()) is not None:
            return self._refuse(acct, req, path, api, cap, t0)
        if metered and (setup := self._setup_refusal(acct)):
            return self._refuse_setup(acct, req, path, api, setup, t0)
        if metered and (cap := acct.worst_case(req.body, _json(req.body))) is not None:
            return self._refuse(acct, req, path, api, cap, t0)
        if metered and (breaker := acct.upstream.breaker) is not None:
            return await self._through_outage(acct, req, path, api, breaker, t0)
        return await self._forward(acct, req, path, api, metered, t0)

    async def _through_outage(
        self, acct: Account, req: Request, path: str, api: Api, breaker: Breaker, t0: float
    ) -> Response:
        """Forward a metered call; while the provider is in an outage, hold it (it goes
        out as the breaker's probe) and send it again after a failure that is part of the
        outage, so the agent sees the provider back, not the storm; past the pause bound,
        a 503 and the account marked `outage`."""
        while True:
            held = anyio.current_time()
            try:
                await breaker.admit()  # waits while the provider is in an outage
            except ProviderOutage as exc:
                acct.outage = str(exc)
                acct.stopped.set()  # the bound holds for the agent too: it is stopped
                self._record(acct, req, path, 503, t0, error=acct.outage)
                return _error(api, 503, f"pwb gateway: {exc}", "api_error")
            finally:
                acct.held_s += anyio.current_time() - held
            resp = await self._forward(acct, req, path, api, True, t0)
            if acct.config or not (
                breaker.paused and resp.status in _RETRYABLE and resp.stream is None
            ):
                return resp

    def _setup_refusal(self, acct: Account) -> str:
        """Why no call of this account can succeed as the sweep is set up, or ''."""
        if acct.config:
            return acct.config
        cfg = acct.upstream.provider
        if cfg.api_key_env and not acct.upstream.keys.get(cfg.api_key_env):
            return acct.upstream.keys.missing(cfg.name, cfg.api_key_env)
        breaker = acct.upstream.breaker
        if breaker is not None and breaker.is_open:
            return f"provider {cfg.name!r}: breaker open: {breaker.open_reason}"
        return ""

    def _mark_setup(self, acct: Account, reason: str) -> None:
        """The provider refused the setup: the cell ends `config_error`, its agent stops."""
        if not acct.config:
            acct.config = reason
        acct.stopped.set()

    def _refuse_setup(
        self, acct: Account, req: Request, path: str, api: Api, reason: str, t0: float
    ) -> Response:
        self._mark_setup(acct, reason)
        status = 402 if api == "anthropic" else 429
        self._record(acct, req, path, status, t0, error=reason, refused=True)
        message = f"pwb gateway: the provider refuses this sweep's setup: {reason}"
        if api == "anthropic":
            return _error(api, 402, message, "billing_error")
        return _error(api, 429, message, "insufficient_quota")

    def _refuse(
        self,
        acct: Account,
        req: Request,
        path: str,
        api: Api,
        cap: tuple[BudgetKind, str],
        t0: float,
    ) -> Response:
        detail = cap[1]
        message = f"pwb gateway: budget exhausted ({detail}); no further model calls"
        if acct.budget is None:
            acct.budget = cap
        acct.stopped.set()
        self._record(
            acct, req, path, 429 if api == "openai" else 402, t0, error=detail, refused=True
        )
        if api == "anthropic":
            return _error(api, 402, message, "billing_error")
        return _error(api, 429, message, "insufficient_quota")

    def _record(
        self,
        acct: Account,
        req: Request,
        path: str,
        status: int,
        t0: float,
        *,
        body: Any = None,
        m: Metered | None = None,
        usd: float = 0.0,
        estimated: bool = False,
        error: str = "",
        refused: bool = False,
    ) -> None:
        if body is None:
            body = _json(req.body)
        model = str(body.get("model", "")) if isinstance(body, dict) else ""
        stream = isinstance(body, dict) and body.get("stream") is True
        acct.log.append(
            RequestRecord(
                t=time.time(),
                method=req.method,
                path=path,
                status=status,
                model=model[:100],
                stream=stream,
                input_tokens=m.input_tokens if m else 0,
                output_tokens=m.output_tokens if m else 0,
                cost_usd=usd,
                duration_s=round(time.monotonic() - t0, 3),
                estimated=estimated,
                error=error[:500],
                refused=refused,
            )
        )

    def _upstream_request(
        self, acct: Account, req: Request, path: str, api: Api
    ) -> tuple[httpx.Request, Any, str]:
        up = acct.upstream
        cfg = up.provider
        base = up.base_url.rstrip("/")
        rest = req.path if cfg.kind == "anthropic" else req.path.removeprefix("/v1")
        headers = {k: v for k, v in req.headers.items() if k in _PASS}
        headers["accept-encoding"] = "identity"  # metering reads the bytes as they pass
        key = up.keys.get(cfg.api_key_env)
        if key:
            if api == "anthropic" and cfg.kind != "openai":
                headers["x-api-key"] = key
            else:
                headers["authorization"] = f"Bearer {key}"
        body = _json(req.body)
        content = req.body
        if isinstance(body, dict) and path == "/v1/chat/completions" and body.get("stream") is True:
            # Streamed chat completions report usage only when asked to.
            options = body.get("stream_options")
            body["stream_options"] = {
                **(options if isinstance(options, dict) else {}),
                "include_usage": True,
            }
            content = json.dumps(body).encode()
        client = self._http[cfg.name]
        return (
            client.build_request(req.method, base + rest, headers=headers, content=content),
            body,
            key,
        )

    async def _forward(
        self, acct: Account, req: Request, path: str, api: Api, metered: bool, t0: float
    ) -> Response:
        outgoing, body, key = self._upstream_request(acct, req, path, api)
        client = self._http[acct.upstream.provider.name]
        try:
            upstream = await client.send(outgoing, stream=True)
        except httpx.HTTPError as exc:
            message = _redact(
                f"pwb gateway: provider unreachable: {type(exc).__name__}: {exc}", key
            )
            if metered:
                acct.transient.append(message)
                if acct.upstream.breaker is not None:
                    acct.upstream.breaker.record_transient(message)
            self._record(acct, req, path, 502, t0, body=body, error=message)
            return _error(api, 502, message, "api_error")
        headers = [(k, v) for k, v in upstream.headers.items() if k.lower() not in _DROP_BACK]
        streaming = upstream.headers.get("content-type", "").startswith("text/event-stream")
        if streaming:
            return Response(
                status=upstream.status_code,
                headers=headers,
                stream=self._relay(acct, req, path, body, key, upstream, metered, t0),
            )
        try:
            data = await upstream.aread()
        except httpx.HTTPError as exc:
            data = b""
            message = _redact(f"pwb gateway: provider answer broke off: {exc}", key)
            self._settle(acct, req, path, body, 502, Metered(error=message), len(data), metered, t0)
            return _error(api, 502, message, "api_error")
        finally:
            await upstream.aclose()
        m = meter_body(data) if metered else Metered()
        if upstream.status_code >= 400 and not m.error:
            m.error = _redact(data[:300].decode("utf-8", errors="replace"), key)
        m.error = _redact(m.error, key)
        setup = _setup_verdict(upstream.status_code, m, data, key, acct) if metered else ""
        self._settle(
            acct, req, path, body, upstream.status_code, m, len(data), metered, t0, setup=setup
        )
        return Response(status=upstream.status_code, headers=headers, body=data)

    async def _relay(
        self,
        acct: Account,
        req: Request,
        path: str,
        body: Any,
        key: str,
        upstream: httpx.Response,
        metered: bool,
        t0: float,
    ) -> AsyncIterator[bytes]:
        meter = StreamMeter()
        size = 0
        ended = False  # the provider's side ended (else the agent hung up mid-stream)
        try:
            async for chunk in upstream.aiter_raw():
                meter.feed(chunk)
                size += len(chunk)
                yield chunk
            ended = True
        except httpx.HTTPError as exc:
            ended = True
            meter.metered.error = _redact(f"pwb gateway: the stream broke off: {exc}", key)
        finally:
            await upstream.aclose()
            m = meter.close()
            if not meter.done and not m.error and upstream.status_code < 400:
                m.error = "the stream ended early" if ended else _HUNG_UP
            m.error = _redact(m.error, key)
            self._settle(
                acct,
                req,
                path,
                body,
                upstream.status_code,
                m,
                size,
                metered,
                t0,
                complete=meter.done and not m.error,
                setup=_setup_verdict(upstream.status_code, m, b"", key, acct) if metered else "",
                hung_up=not ended,
            )

    def _settle(
        self,
        acct: Account,
        req: Request,
        path: str,
        body: Any,
        status: int,
        m: Metered,
        answer_bytes: int,
        metered: bool,
        t0: float,
        *,
        complete: bool = True,
        setup: str = "",
        hung_up: bool = False,
    ) -> None:
        """Charge what the call cost and judge it, once it is over. `complete`: the
        answer arrived whole (a stream reached its own end); `setup`: the provider
        refused the sweep's setup (`refusal_reason`); `hung_up`: the agent closed the
        stream before the provider ended it (charged, but no failure of the provider's:
        its breaker is not fed)."""
        estimated = False
        usd = 0.0
        if metered and status < 400:
            if not m.seen or not complete:
                estimated = self._estimate(m, req.body, body, answer_bytes)
            usd = acct.charge(m, estimated=estimated)
        breaker = acct.upstream.breaker
        if metered and setup:
            acct.errors.append(f"HTTP {status}: {m.error}")
            if breaker is not None:  # the sweep's LLM cells stop on it too
                breaker.trip(setup)
            self._mark_setup(acct, f"provider {acct.upstream.provider.name!r}: {setup}")
        elif metered and hung_up and m.error == _HUNG_UP:
            pass  # the agent's own doing (killed, timed out, gave up): nobody's failure
        elif metered:
            if status < 400 and not m.error:
                acct.ok_calls += 1
                acct.transient.clear()  # the agent got past them
            elif status in _RETRYABLE or status < 400:
                acct.transient.append(f"HTTP {status}: {m.error}")
            else:
                acct.errors.append(f"HTTP {status}: {m.error}")
            _feed(breaker, status, m.error)
            if breaker is not None and breaker.is_open and status in (401, 403):
                # The breaker judged the key bad (its window is full of refusals).
                self._mark_setup(acct, f"provider {breaker.provider!r}: {breaker.open_reason}")
        self._record(
            acct,
            req,
            path,
            status,
            t0,
            body=body,
            m=m,
            usd=usd,
            estimated=estimated,
            error=m.error,
        )

    @staticmethod
    def _estimate(m: Metered, req_body: bytes, body: Any, answer_bytes: int) -> bool:
        """Tokens of an answer without (final) usage: the prompt from the request's bytes
        unless the provider reported it, the answer from the text received (a JSON body:
        its bytes), about four bytes a token, at most the `max_tokens` asked for. True:
        the charge is an estimate."""
        if not m.input_tokens:
            m.input_tokens = len(req_body) // 4
        received = m.text_bytes if m.streamed else answer_bytes
        guess = received // 4 + 1 if received else 0
        if bound := _max_tokens(body):
            guess = min(guess, bound)
        m.output_tokens = max(m.output_tokens, guess)
        return True


def _setup_verdict(status: int, m: Metered, data: bytes, key: str, acct: Account) -> str:
    """Why the provider refused the setup (`refusal_reason`), judged by the LLM clients'
    classifier from an error answer, an error inside a 200 or an error event in a
    stream; '' when it did not.

    A 401 is the setup's at once: the agent's own token was checked here, so what the
    provider refused is the key the gateway sent (wrong, revoked, for another
    account). The LLM clients let their breaker see a few first, as a client of a
    flaky provider would; an agent gives up after one, and every cell would get the
    same answer."""
    if status == 401:
        env = acct.upstream.provider.api_key_env or "its key"
        env = f"${env}" if acct.upstream.provider.api_key_env else env
        detail = _redact(error_info(status, data.decode("utf-8", errors="replace")).describe(), key)
        return f"the provider rejects the key in {env} (HTTP 401: {detail})"
    if status >= 400:
        info = error_info(status, data.decode("utf-8", errors="replace"))
    elif m.error_json:
        info = error_info(0, m.error_json)  # judged by its code and type, as in a 200
    else:
        return ""
    if info.verdict not in ("no_credit", "config"):
        return ""
    return refusal_reason(info.verdict, _redact(info.describe(), key))


def _feed(breaker: Breaker | None, status: int, error: str) -> None:
    """Tell the provider's breaker how a metered call went, as its LLM clients do."""
    if breaker is None:
        return
    if status < 400 and not error:
        breaker.record(refused=False)
    elif status in (401, 403):
        breaker.record(refused=True, status=status)
    elif status in _RETRYABLE or status < 400:
        breaker.record_transient(f"HTTP {status}: {error}"[:200])


def _json(raw: bytes) -> Any:
    try:
        return json.loads(raw) if raw else None
    except ValueError:
        return None
