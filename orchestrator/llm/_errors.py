"""Errors of the LLM path.

    SolverError
    ├── ProviderRefused      the provider refuses the setup (no credit or quota, no key
    │                        where the cell runs, a bad key, a rejected parameter or
    │                        model; the breaker is open): the cell ends `config_error`
    │                        and the sweep stops instead of failing every cell
    ├── ProviderOutage       the provider was down (429/5xx/timeouts) longer than the
    │                        breaker's pause bound: the cell ends `outage`, resume re-runs it
    └── LLMError             the provider kept failing past the retry budget, or answered
        │                    with a 4xx that retrying cannot fix: the cell ends `llm_error`
        └── ContextTooLong   the request is too long; the solver truncates history once

`ProviderRefused` and `ProviderOutage` are deliberately not `LLMError`s: a cell that
catches `LLMError` must not swallow a sweep-wide stop, nor grade an outage as a verdict.
Messages never contain an API key.

Spend survives a failure: `spent` is what the failing request itself was charged (a 200
that stopped at the context window still bills its tokens), and `cell_usage` is set by
the solver to everything the cell was charged up to the failure, so the cell's row can
carry it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..usage import SolverError, Usage

if TYPE_CHECKING:
    from ._types import Completion


class _Charged(SolverError):
    def __init__(self, message: str, *, spent: Completion | None = None) -> None:
        super().__init__(message)
        self.spent = spent
        self.cell_usage = Usage()


class ProviderRefused(_Charged):
    pass


class ProviderOutage(_Charged):
    pass


class LLMError(_Charged):
    pass


class ContextTooLong(LLMError):
    pass
