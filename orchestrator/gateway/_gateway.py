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

import time
from collections.abc import Mapping
from contextlib import AsyncExitStack
from types import TracebackType

import anyio
import httpx
from anyio.abc import TaskGroup

from ..budget import BudgetKind, Ledger
from ..llm import Breaker, ProviderOutage
from ._account import Account, Upstream
from ._api import (
    FREE,
    METERED,
    RETRYABLE,
    Api,
    api_of,
    error_response,
    is_loopback,
    out_of_credit,
    parse_json,
    token_of,
)
from ._forward import forward
from ._http import Request, Response, serve_connection
from ._settle import mark_setup, record


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
                    trust_env=not is_loopback(up.base_url),
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
        api = api_of(path)
        acct = self._accounts.get(token_of(req.headers))
        if acct is None:
            return error_response(
                api,
                401,
                "pwb gateway: unknown or expired token",
                "authentication_error" if api == "anthropic" else "invalid_api_key",
            )
        t0 = time.monotonic()
        if ".." in path.split("/") or "%" in path or "\\" in path:
            resp = error_response(
                api, 400, "pwb gateway: path not allowed", "invalid_request_error"
            )
            record(acct, req, path, 400, t0, error="path not allowed", refused=True)
            return resp
        metered = req.method == "POST" and path in METERED
        if (
            not metered
            and not (req.method == "GET" and path in FREE)
            and not (req.method == "POST" and path in FREE)
            and not (req.method == "GET" and path.startswith("/v1/models/"))
        ):
            resp = error_response(
                api, 404, f"pwb gateway: no route {req.method} {path}", "not_found_error"
            )
            record(acct, req, path, resp.status, t0, error="no such route", refused=True)
            return resp
        if metered and (cap := await acct.over_cap()) is not None:
            return self._refuse(acct, req, path, api, cap, t0)
        if metered and (setup := self._setup_refusal(acct)):
            return self._refuse_setup(acct, req, path, api, setup, t0)
        if metered and (cap := acct.worst_case(req.body, parse_json(req.body))) is not None:
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
                record(acct, req, path, 503, t0, error=acct.outage)
                return error_response(api, 503, f"pwb gateway: {exc}", "api_error")
            finally:
                acct.held_s += anyio.current_time() - held
            resp = await self._forward(acct, req, path, api, True, t0)
            if acct.config or not (
                breaker.paused and resp.status in RETRYABLE and resp.stream is None
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

    def _refuse_setup(
        self, acct: Account, req: Request, path: str, api: Api, reason: str, t0: float
    ) -> Response:
        mark_setup(acct, reason)
        resp = out_of_credit(api, f"pwb gateway: the provider refuses this sweep's setup: {reason}")
        record(acct, req, path, resp.status, t0, error=reason, refused=True)
        return resp

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
        resp = out_of_credit(api, message)
        record(acct, req, path, resp.status, t0, error=detail, refused=True)
        return resp

    async def _forward(
        self, acct: Account, req: Request, path: str, api: Api, metered: bool, t0: float
    ) -> Response:
        client = self._http[acct.upstream.provider.name]
        return await forward(client, acct, req, path, api, metered, t0)
