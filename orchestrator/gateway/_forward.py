"""Forwarding a call to the provider: the upstream request with the real key, the
answer passed back whole or relayed as a stream, then settled (`_settle`)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx

from ..llm import CassetteDeck
from ._account import Account
from ._api import DROP_BACK, PASS, Api, error_response, parse_json, redact
from ._http import Request, Response
from ._meter import Metered, StreamMeter, meter_body
from ._settle import HUNG_UP, record, settle, setup_verdict


def _upstream_request(
    client: httpx.AsyncClient, acct: Account, req: Request, path: str, api: Api
) -> tuple[httpx.Request, Any, str]:
    """The provider's request: the real key in place of the agent's token, the headers
    that pass, and a streamed chat completion asked to report its usage."""
    up = acct.upstream
    cfg = up.provider
    base = up.base_url.rstrip("/")
    rest = req.path if cfg.kind == "anthropic" else req.path.removeprefix("/v1")
    headers = {k: v for k, v in req.headers.items() if k in PASS}
    headers["accept-encoding"] = "identity"  # metering reads the bytes as they pass
    if up.tag_cells:  # a cassette deck files the exchange under the cell
        headers[CassetteDeck.CELL_HEADER] = acct.cell
    key = up.keys.get(cfg.api_key_env)
    if key:
        if api == "anthropic" and cfg.kind != "openai":
            headers["x-api-key"] = key
        else:
            headers["authorization"] = f"Bearer {key}"
    body = parse_json(req.body)
    content = req.body
    if isinstance(body, dict) and path == "/v1/chat/completions" and body.get("stream") is True:
        # Streamed chat completions report usage only when asked to.
        options = body.get("stream_options")
        body["stream_options"] = {
            **(options if isinstance(options, dict) else {}),
            "include_usage": True,
        }
        content = json.dumps(body).encode()
    return (
        client.build_request(req.method, base + rest, headers=headers, content=content),
        body,
        key,
    )


async def forward(
    client: httpx.AsyncClient,
    acct: Account,
    req: Request,
    path: str,
    api: Api,
    metered: bool,
    t0: float,
) -> Response:
    """Send the call to the provider and pass its answer back (a stream as it arrives),
    metered and settled on the account."""
    outgoing, body, key = _upstream_request(client, acct, req, path, api)
    try:
        upstream = await client.send(outgoing, stream=True)
    except httpx.HTTPError as exc:
        message = redact(f"pwb gateway: provider unreachable: {type(exc).__name__}: {exc}", key)
        if metered:
            acct.transient.append(message)
            if acct.upstream.breaker is not None:
                acct.upstream.breaker.record_transient(message)
        record(acct, req, path, 502, t0, body=body, error=message)
        return error_response(api, 502, message, "api_error")
    headers = [(k, v) for k, v in upstream.headers.items() if k.lower() not in DROP_BACK]
    streaming = upstream.headers.get("content-type", "").startswith("text/event-stream")
    if streaming:
        return Response(
            status=upstream.status_code,
            headers=headers,
            stream=_relay(acct, req, path, body, key, upstream, metered, t0),
        )
    try:
        data = await upstream.aread()
    except httpx.HTTPError as exc:
        data = b""
        message = redact(f"pwb gateway: provider answer broke off: {exc}", key)
        settle(acct, req, path, body, 502, Metered(error=message), len(data), metered, t0)
        return error_response(api, 502, message, "api_error")
    finally:
        await upstream.aclose()
    m = meter_body(data) if metered else Metered()
    if upstream.status_code >= 400 and not m.error:
        m.error = redact(data[:300].decode("utf-8", errors="replace"), key)
    m.error = redact(m.error, key)
    setup = setup_verdict(upstream.status_code, m, data, key, acct) if metered else ""
    settle(acct, req, path, body, upstream.status_code, m, len(data), metered, t0, setup=setup)
    return Response(status=upstream.status_code, headers=headers, body=data)


async def _relay(
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
        meter.metered.error = redact(f"pwb gateway: the stream broke off: {exc}", key)
    finally:
        await upstream.aclose()
        m = meter.close()
        if not meter.done and not m.error and upstream.status_code < 400:
            m.error = "the stream ended early" if ended else HUNG_UP
        m.error = redact(m.error, key)
        settle(
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
            setup=setup_verdict(upstream.status_code, m, b"", key, acct) if metered else "",
            hung_up=not ended,
        )
