"""Typed configuration of an LLM provider and of the agent's ablation options.

`api_key_env` names an environment variable; the key itself is read at request time and
never stored in a config, event, exception message or manifest.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

ProviderKind = Literal["openai", "anthropic", "fake"]
MaxTokensParam = Literal["max_tokens", "max_completion_tokens"]


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
    # Cached input: read from the cache / written to it (Anthropic). Unset = price_in.
    price_cached_in_per_mtok: float | None = None
    price_cache_write_per_mtok: float | None = None
    # Request options. One [[providers]] entry names one model, so these are per model.
    temperature: float | None = 0.0
    send_temperature: bool = True  # false for reasoning models that reject it
    seed: int | None = None
    max_output_tokens: int = 4096
    max_tokens_param: MaxTokensParam = (
        "max_tokens"  # openai reasoning models: max_completion_tokens
    )
    reasoning_effort: str = ""  # openai: sent as `reasoning_effort` when set
    thinking_budget_tokens: int = 0  # anthropic: > 0 enables extended thinking with this budget
    extra_body: dict[str, Any] = {}  # merged last into every request body (new API fields)
    # The one retry layer (DESIGN.md §12).
    max_attempts: int = 6
    backoff_initial_s: float = 1.0
    backoff_max_s: float = 60.0
    retry_after_max_s: float = 300.0
    breaker_window: int = 5  # this many refusals in a row (401/403) open the breaker
    # An outage: this many transient failures in a row (429/5xx/malformed/timeouts, any
    # cell) pause the provider's requests; one probe leaves every `outage_probe_s`; past
    # `outage_max_pause_s` the provider's cells end `outage` (re-run by --resume).
    outage_after: int = 5
    outage_probe_s: float = 5.0
    outage_max_pause_s: float = 900.0
    fake_latency_s: float = 0.0  # kind "fake" only: answer after this delay

    def __post_init__(self) -> None:
        # msgspec turns these into a ValidationError that names the config.
        if self.kind != "fake" and not self.base_url:
            raise ValueError(f"provider {self.name!r}: base_url is required for {self.kind}")
        if min(self.max_connections, self.max_attempts, self.breaker_window) < 1 or (
            self.outage_after < 1
        ):
            raise ValueError(
                f"provider {self.name!r}: max_connections, max_attempts, breaker_window "
                "and outage_after must be positive"
            )
        if not (0 < self.outage_probe_s and 0 <= self.outage_max_pause_s):
            raise ValueError(
                f"provider {self.name!r}: outage_probe_s must be positive and "
                "outage_max_pause_s not negative"
            )
        if self.thinking_budget_tokens and self.kind != "anthropic":
            raise ValueError(f"provider {self.name!r}: thinking_budget_tokens is for anthropic")
        if self.thinking_budget_tokens and not (
            1024 <= self.thinking_budget_tokens < self.max_output_tokens
        ):
            raise ValueError(
                f"provider {self.name!r}: thinking_budget_tokens must be >= 1024 and "
                f"< max_output_tokens ({self.max_output_tokens})"
            )
        if self.reasoning_effort and self.kind == "anthropic":
            raise ValueError(f"provider {self.name!r}: reasoning_effort is for openai")

    def request_options(self) -> dict[str, Any]:
        """The request options that change answers, only where not the default (for hashes)."""
        defaults = ProviderConfig(name=self.name, kind=self.kind, model=self.model, base_url="-")
        names = (
            "send_temperature",
            "max_output_tokens",
            "max_tokens_param",
            "reasoning_effort",
            "thinking_budget_tokens",
            "extra_body",
        )
        return {n: getattr(self, n) for n in names if getattr(self, n) != getattr(defaults, n)}

    @property
    def temperature_sent(self) -> float | None:
        """The temperature to put in a request, or None to leave it out."""
        if not self.send_temperature or self.thinking_budget_tokens:
            return None  # Anthropic rejects a temperature with thinking enabled
        return self.temperature

    def cost_usd(
        self,
        input_tokens: int,
        output_tokens: int,
        *,
        cache_read_tokens: int = 0,
        cache_write_tokens: int = 0,
    ) -> float:
        """`input_tokens` counts every input token, cached ones included."""
        fresh = max(0, input_tokens - cache_read_tokens - cache_write_tokens)
        read = self.price_in_per_mtok
        if self.price_cached_in_per_mtok is not None:
            read = self.price_cached_in_per_mtok
        write = self.price_in_per_mtok
        if self.price_cache_write_per_mtok is not None:
            write = self.price_cache_write_per_mtok
        return (
            fresh * self.price_in_per_mtok
            + cache_read_tokens * read
            + cache_write_tokens * write
            + output_tokens * self.price_out_per_mtok
        ) / 1e6


class AgentOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The paper's ablations plus the agent's own bounds."""

    vision: bool = False
    history_turns: int | None = None  # keep only the last N turns; None = all
    preservation_clause: bool = False
    # How the model may change files (the paper's edit-format ablation): "search_replace"
    # offers the `edit` tool (exact search/replace) beside `write_file`; "whole_file"
    # offers only `write_file`, so every change rewrites the whole file.
    edit_format: Literal["search_replace", "whole_file"] = "search_replace"
    max_steps_per_turn: int = 30  # model requests within one turn
    max_cell_tokens: int | None = None  # per-cell cap (input + output tokens)

    def __post_init__(self) -> None:
        if self.max_steps_per_turn < 1:
            raise ValueError("max_steps_per_turn must be positive")
        if self.history_turns is not None and self.history_turns < 1:
            raise ValueError("history_turns must be positive or unset")
