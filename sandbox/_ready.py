"""Readiness probe shared by the backends: poll a URL until it answers 2xx/3xx."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import anyio
import httpx

_POLL_S = 0.1
# How often the (costlier) liveness check runs, in polls.
_ALIVE_EVERY = 5


async def wait_ready(url: str, limit_s: float, alive: Callable[[], Awaitable[bool]]) -> str:
    """Return "" once `url` answers 2xx/3xx, else why not ("timeout" / "exited").

    `alive` lets a server that crashed on start fail fast instead of using the whole
    timeout. Redirects are not followed: a 3xx already proves the server is up.
    """
    with anyio.move_on_after(limit_s):
        async with httpx.AsyncClient(timeout=2.0, trust_env=False) as client:
            polls = 0
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
                await anyio.sleep(_POLL_S)
    return "timeout"
