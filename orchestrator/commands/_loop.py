"""Run a coroutine on the default loop: asyncio with uvloop when available."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar, TypeVarTuple, Unpack

import anyio

T = TypeVar("T")
Ts = TypeVarTuple("Ts")


def run_async(fn: Callable[[Unpack[Ts]], Awaitable[T]], *args: *Ts) -> T:
    try:
        import uvloop  # noqa: F401
    except ImportError:
        return anyio.run(fn, *args, backend="asyncio")
    return anyio.run(fn, *args, backend="asyncio", backend_options={"use_uvloop": True})
