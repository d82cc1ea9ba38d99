"""Where a provider's key comes from when a request is sent.

On one host: the process's environment (`api_key_env` names the variable). On a Ray
worker node: first the keys the sweep's driver passed for this sweep (through Ray's
object store: in memory, never written to disk nor into a runtime environment the
dashboard shows), then the node's own environment. The key is read at request time and
never stored in a config, a row or a log.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterable, Mapping

from ._config import ProviderConfig


class Keys:
    """The keys a sweep's providers are called with; `passed`: a driver's (Ray), else
    None (this process is the driver)."""

    def __init__(self, passed: Mapping[str, str] | None = None) -> None:
        self._passed = dict(passed) if passed is not None else None

    def get(self, env: str) -> str:
        if not env:
            return ""
        return (self._passed or {}).get(env) or os.environ.get(env, "")

    def missing(self, provider: str, env: str) -> str:
        """Why provider `provider` has no key: names the variable and where it is missing
        (on a cluster: on the driver, which passes it, and on this worker)."""
        host = socket.gethostname()
        if self._passed is None:
            return (
                f"provider {provider!r}: ${env} is not set in the environment of the process "
                f"running this cell (host {host})"
            )
        return (
            f"provider {provider!r}: ${env} is not set on the sweep's driver (which passes "
            f"it to the worker nodes per sweep) nor in worker host {host}'s environment"
        )

    def __repr__(self) -> str:  # never the keys themselves
        names = sorted(self._passed) if self._passed is not None else None
        return f"Keys(passed={names})"


def driver_keys(configs: Iterable[ProviderConfig]) -> dict[str, str]:
    """The keys this process holds for `configs`, by variable: what a driver passes."""
    return {
        c.api_key_env: os.environ[c.api_key_env]
        for c in configs
        if c.api_key_env and os.environ.get(c.api_key_env)
    }
