"""Run a coroutine on the event loop the user chose: asyncio unless PWB_LOOP=uvloop.

Plain asyncio is the default because it measured better here: in the sweep benchmark
(tests/perf) uvloop cost the orchestrator 10-50 % more CPU and a higher event-loop lag
p99 in every run, and made 256-cell sweeps 7-22 % slower. uvloop is one switch away.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from typing import TypeVar, TypeVarTuple, Unpack

import anyio

T = TypeVar("T")
Ts = TypeVarTuple("Ts")

LOOPS = ("asyncio", "uvloop")


def chosen_loop() -> str:
    loop = os.environ.get("PWB_LOOP", "asyncio").strip() or "asyncio"
    if loop not in LOOPS:
        raise SystemExit(f"PWB_LOOP={loop!r}: expected one of {', '.join(LOOPS)}")
    return loop


def run_async(fn: Callable[[Unpack[Ts]], Awaitable[T]], *args: *Ts) -> T:
    options = {}
    if chosen_loop() == "uvloop":
        try:
            import uvloop  # noqa: F401
        except ImportError:
            raise SystemExit("PWB_LOOP=uvloop, but uvloop is not installed") from None
        options = {"use_uvloop": True}
    return anyio.run(fn, *args, backend="asyncio", backend_options=options)
