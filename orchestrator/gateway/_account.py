"""One cell's standing with the gateway (`Account`), the provider it forwards to
(`Upstream`) and the calls it made (`RequestRecord`): its caps and what it was charged."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

import anyio
import msgspec

from ..budget import BudgetExceeded, BudgetKind, Ledger
from ..llm import Breaker, Keys, ProviderConfig
from ._meter import Metered


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
    tag_cells: bool = False  # name the account's cell upstream (a cassette deck, `llm`)


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
        most = max_tokens_asked(body) or cfg.max_output_tokens
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


def max_tokens_asked(body: Any) -> int:
    """The answer's length bound the request asks for (any of the three APIs), or 0."""
    if not isinstance(body, dict):
        return 0
    for key in ("max_tokens", "max_completion_tokens", "max_output_tokens"):
        value = body.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return 0
