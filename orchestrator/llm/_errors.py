"""Errors of the LLM path.

    SolverError
    ├── ProviderRefused      the provider refuses every request (bad key, breaker open):
    │                        the sweep stops instead of failing every cell
    └── LLMError             the provider kept failing past the retry budget, or answered
        │                    with a 4xx that retrying cannot fix: the cell ends `llm_error`
        └── ContextTooLong   the request is too long; the solver truncates history once

`ProviderRefused` is deliberately not an `LLMError`: a cell that catches `LLMError`
must not swallow a sweep-wide stop. Messages never contain an API key.
"""

from __future__ import annotations

from ..solvers._protocol import SolverError


class ProviderRefused(SolverError):
    pass


class LLMError(SolverError):
    pass


class ContextTooLong(LLMError):
    pass
