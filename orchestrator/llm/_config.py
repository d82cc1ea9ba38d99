"""Typed configuration of an LLM provider and of the agent's ablation options.

`api_key_env` names an environment variable; the key itself is read at request time and
never stored in a config, event, exception message or manifest.
"""

from __future__ import annotations

from typing import Literal

import msgspec

ProviderKind = Literal["openai", "anthropic", "fake"]


class ProviderConfig(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    name: str  # how cells and the pool refer to this provider
    kind: ProviderKind
    model: str
    base_url: str = ""  # openai: ".../v1"; anthropic: "https://api.anthropic.com"; fake: unused
    api_key_env: str = ""  # "" = no key (the fake provider)
    max_connections: int = 8  # shared by every cell using this provider
    connect_timeout_s: float = 10.0
    read_timeout_s: float = 300.0
    price_in_per_mtok: float = 0.0
    price_out_per_mtok: float = 0.0
    temperature: float | None = 0.0
    seed: int | None = None
    max_output_tokens: int = 4096
    # The one retry layer (DESIGN.md §12).
    max_attempts: int = 6
    backoff_initial_s: float = 1.0
    backoff_max_s: float = 60.0
    retry_after_max_s: float = 300.0
    breaker_window: int = 5  # this many refusals in a row (401/403) open the breaker
    fake_latency_s: float = 0.0  # kind "fake" only: answer after this delay

    def __post_init__(self) -> None:
        # msgspec turns these into a ValidationError that names the config.
        if self.kind != "fake" and not self.base_url:
            raise ValueError(f"provider {self.name!r}: base_url is required for {self.kind}")
        if self.max_connections < 1 or self.max_attempts < 1 or self.breaker_window < 1:
            raise ValueError(
                f"provider {self.name!r}: max_connections, max_attempts and "
                "breaker_window must be positive"
            )

    def cost_usd(self, input_tokens: int, output_tokens: int) -> float:
        return (
            input_tokens * self.price_in_per_mtok + output_tokens * self.price_out_per_mtok
        ) / 1e6


class AgentOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The paper's ablations plus the agent's own bounds."""

    vision: bool = False
    history_turns: int | None = None  # keep only the last N turns; None = all
    preservation_clause: bool = False
    max_steps_per_turn: int = 30  # model requests within one turn
    max_cell_tokens: int | None = None  # per-cell cap (input + output tokens)

    def __post_init__(self) -> None:
        if self.max_steps_per_turn < 1:
            raise ValueError("max_steps_per_turn must be positive")
        if self.history_turns is not None and self.history_turns < 1:
            raise ValueError("history_turns must be positive or unset")
