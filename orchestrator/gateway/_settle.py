"""A call's end: what it is charged (the provider's usage, else an estimate), how it is
judged (an error the agent can get past, one it cannot, a refused setup, the agent
hanging up), what the provider's breaker is told, and the record in the cell's log."""

from __future__ import annotations

import time
from typing import Any

from ..llm import Breaker, error_info, refusal_reason
from ._account import Account, RequestRecord, max_tokens_asked
from ._api import RETRYABLE, parse_json, redact
from ._http import Request
from ._meter import Metered

HUNG_UP = "the agent hung up mid-stream"


def record(
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
    """Log the call on the account, as the cell's events show it."""
    if body is None:
        body = parse_json(req.body)
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


def mark_setup(acct: Account, reason: str) -> None:
    """The provider refused the setup: the cell ends `config_error`, its agent stops."""
    if not acct.config:
        acct.config = reason
    acct.stopped.set()


def settle(
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
            estimated = _estimate(m, req.body, body, answer_bytes)
        usd = acct.charge(m, estimated=estimated)
    if metered:
        _judge(acct, status, m, setup=setup, hung_up=hung_up)
    record(acct, req, path, status, t0, body=body, m=m, usd=usd, estimated=estimated, error=m.error)


def _judge(acct: Account, status: int, m: Metered, *, setup: str, hung_up: bool) -> None:
    """Count a metered call's answer on the account and tell the provider's breaker."""
    breaker = acct.upstream.breaker
    if setup:
        acct.errors.append(f"HTTP {status}: {m.error}")
        if breaker is not None:  # the sweep's LLM cells stop on it too
            breaker.trip(setup)
        mark_setup(acct, f"provider {acct.upstream.provider.name!r}: {setup}")
        return
    if hung_up and m.error == HUNG_UP:
        return  # the agent's own doing (killed, timed out, gave up): nobody's failure
    if status < 400 and not m.error:
        acct.ok_calls += 1
        acct.transient.clear()  # the agent got past them
    elif status in RETRYABLE or status < 400:
        acct.transient.append(f"HTTP {status}: {m.error}")
    else:
        acct.errors.append(f"HTTP {status}: {m.error}")
    _feed(breaker, status, m.error)
    if breaker is not None and breaker.is_open and status in (401, 403):
        # The breaker judged the key bad (its window is full of refusals).
        mark_setup(acct, f"provider {breaker.provider!r}: {breaker.open_reason}")


def _estimate(m: Metered, req_body: bytes, body: Any, answer_bytes: int) -> bool:
    """Tokens of an answer without (final) usage: the prompt from the request's bytes
    unless the provider reported it, the answer from the text received (a JSON body:
    its bytes), about four bytes a token, at most the `max_tokens` asked for. True:
    the charge is an estimate."""
    if not m.input_tokens:
        m.input_tokens = len(req_body) // 4
    received = m.text_bytes if m.streamed else answer_bytes
    guess = received // 4 + 1 if received else 0
    if bound := max_tokens_asked(body):
        guess = min(guess, bound)
    m.output_tokens = max(m.output_tokens, guess)
    return True


def setup_verdict(status: int, m: Metered, data: bytes, key: str, acct: Account) -> str:
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
        detail = redact(error_info(status, data.decode("utf-8", errors="replace")).describe(), key)
        return f"the provider rejects the key in {env} (HTTP 401: {detail})"
    if status >= 400:
        info = error_info(status, data.decode("utf-8", errors="replace"))
    elif m.error_json:
        info = error_info(0, m.error_json)  # judged by its code and type, as in a 200
    else:
        return ""
    if info.verdict not in ("no_credit", "config"):
        return ""
    return refusal_reason(info.verdict, redact(info.describe(), key))


def _feed(breaker: Breaker | None, status: int, error: str) -> None:
    """Tell the provider's breaker how a metered call went, as its LLM clients do."""
    if breaker is None:
        return
    if status < 400 and not error:
        breaker.record(refused=False)
    elif status in (401, 403):
        breaker.record(refused=True, status=status)
    elif status in RETRYABLE or status < 400:
        breaker.record_transient(f"HTTP {status}: {error}"[:200])
