"""`ProviderPool`: one httpx client, connection limit, limiter and breaker per provider.

An object the sweep opens once and hands to every cell (no process global), so the
per-provider connection limit and the breaker are shared by all cells of a sweep and
by nothing else. A `fake` provider is served from loopback for the life of the pool.
With `cassettes`, every provider is reached through a cassette deck on loopback
(`_cassette`) that records its exchanges per cell, or replays them without the provider
(a `fake` one is then not started); the harness's clients and the gateway name the cell.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import AsyncExitStack
from pathlib import Path
from types import TracebackType
from urllib.parse import urlsplit

import anyio
import httpx

from ._anthropic import ANTHROPIC
from ._breaker import Breaker
from ._cassette import CassetteDeck, Cassettes
from ._client import ChatClient
from ._config import ProviderConfig
from ._fake import FakeProvider
from ._keys import Keys
from ._openai import OPENAI


def _is_loopback(url: str) -> bool:
    return urlsplit(url).hostname in {"127.0.0.1", "localhost", "::1"}


class ProviderPool:
    def __init__(
        self,
        configs: Iterable[ProviderConfig],
        *,
        fake_tasks: Sequence[Path] = (),
        keys: Keys | None = None,
        cassettes: Cassettes | None = None,
    ) -> None:
        self._cassettes = cassettes
        self._decks: dict[str, CassetteDeck] = {}
        self._configs = {c.name: c for c in configs}
        self.keys = keys or Keys()  # read at request time (`_keys`)
        self._fake_tasks = tuple(fake_tasks)
        self._clients: dict[str, ChatClient] = {}
        self._base_urls: dict[str, str] = {}
        self._stack: AsyncExitStack | None = None

    async def __aenter__(self) -> ProviderPool:
        if self._stack is not None:
            raise RuntimeError("a ProviderPool cannot be entered twice")
        self._stack = AsyncExitStack()
        try:
            for cfg in self._configs.values():
                self._clients[cfg.name] = await self._open(cfg, self._stack)
        except BaseException:
            await self._stack.aclose()
            raise
        return self

    async def __aexit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        assert self._stack is not None
        self._clients.clear()
        await self._stack.aclose()

    async def _open(self, cfg: ProviderConfig, stack: AsyncExitStack) -> ChatClient:
        base_url = cfg.base_url
        replay = self._cassettes is not None and self._cassettes.mode == "replay"
        if cfg.kind == "fake" and not replay:
            fake = FakeProvider(
                task_dirs=self._fake_tasks, latency_s=cfg.fake_latency_s, models=(cfg.model,)
            )
            base_url = (await stack.enter_async_context(fake)).base_url
        if self._cassettes is not None:
            deck = CassetteDeck(
                self._cassettes.mode,
                self._cassettes.directory,
                upstream=base_url,
                prefix=urlsplit(base_url).path if base_url else "/v1",
                timeout_s=cfg.read_timeout_s,
                connect_s=cfg.connect_timeout_s,
            )
            self._decks[cfg.name] = await stack.enter_async_context(deck)
            base_url = deck.base_url
        self._base_urls[cfg.name] = base_url
        http = httpx.AsyncClient(
            limits=httpx.Limits(
                max_connections=cfg.max_connections, max_keepalive_connections=cfg.max_connections
            ),
            # Waiting for a pooled connection is bounded by the limiter, not by a timeout.
            timeout=httpx.Timeout(
                connect=cfg.connect_timeout_s,
                read=cfg.read_timeout_s,
                write=cfg.read_timeout_s,
                pool=None,
            ),
            trust_env=not _is_loopback(base_url),  # never send loopback traffic to a proxy
        )
        await stack.enter_async_context(http)
        return ChatClient(
            cfg,
            http,
            ANTHROPIC if cfg.kind == "anthropic" else OPENAI,
            base_url=base_url,
            limiter=anyio.CapacityLimiter(cfg.max_connections),
            breaker=Breaker(
                cfg.name,
                cfg.breaker_window,
                outage_after=cfg.outage_after,
                probe_s=cfg.outage_probe_s,
                max_pause_s=cfg.outage_max_pause_s,
            ),
            keys=self.keys,
            tag_cells=self._cassettes is not None,
        )

    def begin_cell(self, cell: str) -> None:
        """An attempt of `cell` starts: the cassette decks start its cassette over."""
        for deck in self._decks.values():
            deck.begin_cell(cell)

    def tags_cells(self, name: str) -> bool:
        """Whether requests to provider `name` name their cell (a cassette deck)."""
        return name in self._decks

    @property
    def cassette_misses(self) -> list[str]:
        """Requests a replay could not answer (`CassetteDeck.misses`)."""
        return [m for deck in self._decks.values() for m in deck.misses]

    def base_url(self, name: str) -> str:
        """Where provider `name` is served (a fake one: its loopback URL, ending in /v1)."""
        self.client(name)  # the same errors for a closed pool or an unknown name
        return self._base_urls[name]

    def client(self, name: str) -> ChatClient:
        if self._stack is None:
            raise RuntimeError("ProviderPool is not open; use `async with`")
        try:
            return self._clients[name]
        except KeyError:
            raise KeyError(f"no provider named {name!r}; known: {sorted(self._configs)}") from None
