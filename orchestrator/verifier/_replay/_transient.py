"""What the host, not the site, can make a replay fail with: replayed again, never graded.

`verify` (`_verify/_run.py`) and `capture` (`_capture.py`) share these rules, so a
capture never freezes into evidence a failure that `verify` would have retried:

- Chromium aborts in-flight requests with `ERR_NETWORK_CHANGED` when the host's interfaces
  change (Docker adding a veth for another cell): the state is replayed again, up to
  `HOST_NETWORK_RETRIES` times;
- an action or navigation that timed out, or a check that failed on a timeout (a menu
  control not clickable in time), may be the host's load: the state is replayed once more
  with `TIMEOUT_PATIENCE` times the patience; failing again, it is the site's.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from ._drive import ReplayOptions

HOST_NETWORK_RETRIES = 2
TIMEOUT_PATIENCE = 3.0
HOST_NETWORK_FAULTS = ("ERR_NETWORK_CHANGED",)


def host_network_fault(texts: Iterable[object]) -> bool:
    """Whether any of these failure texts is the host's network changing under the page."""
    return any(f in str(t) for t in texts for f in HOST_NETWORK_FAULTS)


def timed_out(texts: Iterable[str]) -> bool:
    """Whether a navigation or action error is a Playwright timeout."""
    return any("Timeout" in t and "exceeded" in t for t in texts)


def patient(opts: ReplayOptions) -> ReplayOptions:
    return replace(
        opts,
        action_timeout=opts.action_timeout * TIMEOUT_PATIENCE,
        navigation_timeout=opts.navigation_timeout * TIMEOUT_PATIENCE,
    )
