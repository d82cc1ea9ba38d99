"""The first Ctrl-C or SIGTERM cancels a run so that its `async with` resources are torn
down; a second one leaves at once. Shared by the sweep, a regrade and the ad-hoc
commands (`commands/_loop.run_command`); kept light, as every command imports it."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Callable

import anyio
import anyio.abc


def _leave_at_once(reap: str) -> Callable[[int, object], None]:
    """The second interrupt's handler: leave at once, no traceback. What the first one's
    teardown had not removed yet (containers, the network and its firewall chain) is
    removed by a `gc` of this sweep started, detached, on the way out (`reap`: the sweep
    id; '' when its cells are not on this host's Docker)."""

    def leave(signum: int, frame: object) -> None:
        if reap:
            with contextlib.suppress(OSError):
                subprocess.Popen(
                    [sys.executable, "-m", "orchestrator", "gc", "--sweep", reap, "--force"],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    start_new_session=True,  # a Ctrl-C of the terminal's group spares it
                )
        os._exit(130)

    return leave


async def watch_signals(
    scope: anyio.CancelScope,
    interrupted: anyio.Event,
    reap: str = "",
    *,
    task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
) -> None:
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        task_status.started()  # from here on an interrupt is ours, never a traceback
        async for _ in signals:
            break
    # Leaving the receiver restored Python's default handlers: a second Ctrl-C would be
    # a KeyboardInterrupt traceback in the middle of the teardown. It exits at once.
    signal.signal(signal.SIGINT, _leave_at_once(reap))
    signal.signal(signal.SIGTERM, _leave_at_once(reap))
    interrupted.set()
    print("\ninterrupted: cancelling cells and tearing down sandboxes...", file=sys.stderr)
    scope.cancel()
