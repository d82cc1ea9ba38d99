"""What a solver's turn spent (`Usage`) and how a solver fails (`SolverError`).

A leaf module: the LLM path builds both (a completion's usage, its provider errors) and
the solvers hand them to the cell, so neither package has to import the other for them.
`orchestrator.solvers` re-exports both, where the cell and the sweep take them from.
"""

from __future__ import annotations

import msgspec


class Usage(msgspec.Struct, frozen=True, kw_only=True):
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    requests: int = 0
    # Seconds spent waiting on retries and provider queues: not charged to working time.
    wait_s: float = 0.0
    cache_read_tokens: int = 0  # of input_tokens: served from the provider's prompt cache
    estimated_requests: int = 0  # responses without usage: their tokens are estimates

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cost_usd=self.cost_usd + other.cost_usd,
            requests=self.requests + other.requests,
            wait_s=self.wait_s + other.wait_s,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            estimated_requests=self.estimated_requests + other.estimated_requests,
        )


class SolverError(Exception):
    """The solver failed for a reason that is not the sandbox's (e.g. the LLM provider)."""
