"""Chromium, and reading a page from outside its own JavaScript world: the pool
(`_pool.py`: one browser per process, slots, recycling, crash relaunch; a job's session
and the errors translated, `_session.py`), a state's context (`_context.py`) or a warm
context's reset tab (`_warm.py`), the browser's own sandbox and network (`_confine.py`,
`_egress.py`), the pinned rendering environment (`_environment.py`), slots sized by the
host's idle CPU (`_headroom.py`), and the isolated-world probes every verdict reads
through (`_world.py`, `_js.py`). Below it: `_core` only."""

from ._context import origin_of as origin_of
from ._environment import ENV_FILE as ENV_FILE
from ._environment import PINNED_FONTS as PINNED_FONTS
from ._environment import VISUAL_GATES as VISUAL_GATES
from ._environment import RenderEnv as RenderEnv
from ._environment import check_environment as check_environment
from ._environment import environment_drift as environment_drift
from ._environment import fonts_digest as fonts_digest
from ._environment import missing_fonts as missing_fonts
from ._environment import read_env as read_env
from ._environment import write_env as write_env
from ._pool import BrowserPool as BrowserPool
from ._pool import ReplayMode as ReplayMode
from ._session import BrowserSession as BrowserSession
from ._warm import WarmContext as WarmContext
from ._warm import WarmContexts as WarmContexts
from ._world import dom_quiet as dom_quiet
from ._world import isolated_await as isolated_await
from ._world import isolated_eval as isolated_eval
from ._world import page_session as page_session
from ._world import probe_each as probe_each
from ._world import probe_elements as probe_elements
from ._world import probe_page as probe_page
from ._world import settle_frames as settle_frames

__all__ = [
    "ENV_FILE",
    "PINNED_FONTS",
    "VISUAL_GATES",
    "BrowserPool",
    "BrowserSession",
    "RenderEnv",
    "ReplayMode",
    "WarmContext",
    "WarmContexts",
    "check_environment",
    "dom_quiet",
    "environment_drift",
    "fonts_digest",
    "isolated_await",
    "isolated_eval",
    "missing_fonts",
    "origin_of",
    "page_session",
    "probe_each",
    "probe_elements",
    "probe_page",
    "read_env",
    "settle_frames",
    "write_env",
]
