"""Run a coroutine on the event loop the user chose: asyncio unless PWB_LOOP=uvloop.

`run_command` runs a command's coroutine; a Ctrl-C or a SIGTERM (what `kill`, `timeout` and
a CI runner send) cancels it, so that every sandbox and browser it holds in an
`async with` is torn down before the process exits 130 (`__main__`), as the sweep's own
handling does (`interrupts.watch_signals`). Before, a SIGTERM killed `admit` on the spot and
left its containers running until the next `gc`. A second signal leaves at once.
`run_async` is the bare runner, for the commands whose coroutine watches signals itself
(a sweep, a regrade: they keep the rows written so far).

Plain asyncio is the default because it measured better here: in the sweep benchmark
(tests/perf) uvloop cost the orchestrator 10-50 % more CPU and a higher event-loop lag
p99 in every run, and made 256-cell sweeps 7-22 % slower. uvloop is one switch away.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from typing import TypeVar, TypeVarTuple, Unpack

import anyio

from ..interrupts import watch_signals

T = TypeVar("T")
Ts = TypeVarTuple("Ts")

LOOPS = ("asyncio", "uvloop")


def chosen_loop() -> str:
    loop = os.environ.get("PWB_LOOP", "asyncio").strip() or "asyncio"
    if loop not in LOOPS:
        raise SystemExit(f"PWB_LOOP={loop!r}: expected one of {', '.join(LOOPS)}")
    return loop


def run_command(fn: Callable[[Unpack[Ts]], Awaitable[T]], *args: *Ts) -> T:
    return run_async(_until_interrupted, fn, *args)


async def _until_interrupted(fn: Callable[[Unpack[Ts]], Awaitable[T]], *args: *Ts) -> T:
    """`fn(*args)`, cancelled by the first SIGINT or SIGTERM (then `KeyboardInterrupt`).
    What `fn` raises comes out as itself, not in the task group's `ExceptionGroup`: the
    commands turn a bad input into one line by its type."""
    interrupted = anyio.Event()
    result: list[T] = []
    failed: list[Exception] = []
    async with anyio.create_task_group() as tg:
        await tg.start(watch_signals, tg.cancel_scope, interrupted)
        try:
            result.append(await fn(*args))
        except Exception as exc:  # a cancellation (BaseException) goes through
            failed.append(exc)
        tg.cancel_scope.cancel()
    if failed and not interrupted.is_set():
        raise failed[0]
    if not result or interrupted.is_set():
        raise KeyboardInterrupt
    return result[0]


def run_async(fn: Callable[[Unpack[Ts]], Awaitable[T]], *args: *Ts) -> T:
    options = {}
    if chosen_loop() == "uvloop":
        try:
            import uvloop  # noqa: F401
        except ImportError:
            raise SystemExit("PWB_LOOP=uvloop, but uvloop is not installed") from None
        options = {"use_uvloop": True}
    return anyio.run(fn, *args, backend="asyncio", backend_options=options)
