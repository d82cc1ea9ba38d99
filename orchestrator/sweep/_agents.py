"""The sweep's LLM gateway for scaffold solvers: which providers it forwards to, and
where sandboxes reach it (loopback for the local backend; the sweep network's gateway
address for Docker, the one address:port its firewall lets through)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sandbox import ManagedBackend

from ..config import BenchConfig
from ..gateway import Gateway, Upstream
from ..llm import ProviderPool


@asynccontextmanager
async def open_gateway(cfg: BenchConfig, providers: ProviderPool) -> AsyncIterator[Gateway | None]:
    """A gateway when some solver is a scaffold, forwarding to the providers they name."""
    names = sorted({s.provider for s in cfg.solvers if s.kind == "scaffold"})
    if not names:
        yield None
        return
    upstreams = {
        n: Upstream(
            provider=cfg.provider(n),
            base_url=providers.base_url(n),
            breaker=providers.client(n).breaker,  # outages pause agents and LLM cells alike
            keys=providers.keys,  # the sweep's (on a Ray node: its driver's, passed)
            tag_cells=providers.tags_cells(n),  # behind a cassette deck
        )
        for n in names
    }
    async with Gateway(upstreams) as gateway:
        yield gateway


async def expose(gateway: Gateway, backend: ManagedBackend, sweep: str, lock: str = "") -> str:
    """Make the gateway reachable from the sweep's sandboxes; the host they use ('' = loopback).

    A sweep network is created here, before any cell: `lock` (the sweep's run lock) labels
    it so `gc` can tell when its sweep is dead."""
    address = await backend.network_gateway(sweep, lock=lock)
    if address:  # loopback: the gateway listens there already
        await gateway.listen(address)
    return address
