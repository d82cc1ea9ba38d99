"""Readiness probe shared by the backends: poll a URL until it answers 2xx/3xx."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import anyio
import httpx

# Polls start fast (most servers answer within ~100 ms of starting) and back off.
_FIRST_POLL_S = 0.01
_MAX_POLL_S = 0.05
# How often the (costlier) liveness check runs, in polls.
_ALIVE_EVERY = 10


async def wait_ready(url: str, limit_s: float, alive: Callable[[], Awaitable[bool]]) -> str:
    """Return "" once `url` answers 2xx/3xx, else why not ("timeout" / "exited").

    `alive` lets a server that crashed on start fail fast instead of using the whole
    timeout. Redirects are not followed: a 3xx already proves the server is up.
    """
    with anyio.move_on_after(limit_s):
        # Plain HTTP to our own sandbox: verify=False skips loading the CA bundle, which
        # costs ~40 ms of CPU on the event loop per probe.
        async with httpx.AsyncClient(timeout=2.0, trust_env=False, verify=False) as client:
            polls, pause = 0, _FIRST_POLL_S
            while True:
                try:
                    resp = await client.get(url)
                    if resp.status_code < 400:
                        return ""
                except httpx.HTTPError:
                    pass  # not listening yet
                polls += 1
                if polls % _ALIVE_EVERY == 0 and not await alive():
                    return "exited"
                await anyio.sleep(pause)
                pause = min(pause * 1.5, _MAX_POLL_S)
    return "timeout"
