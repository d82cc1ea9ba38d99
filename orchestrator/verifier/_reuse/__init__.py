"""What a checkpoint may keep from earlier ones: a cell's replays across checkpoints
(`_cache.py`, on the rules of `_rules.py`), the files a request-scoped server opened
per state (`_opens.py`), identical replays sharing one page (`_share.py`), and a
sweep's reports by work tree (`_verdicts.py`). Below it: `_replay`, `_browser` and `_core`."""

from ._cache import REPLAY_MODES as REPLAY_MODES
from ._cache import CheckpointView as CheckpointView
from ._cache import ReuseCache as ReuseCache
from ._opens import OpenTrace as OpenTrace
from ._opens import Reads as Reads
from ._opens import Untraceable as Untraceable
from ._share import share as share
from ._verdicts import VerdictCache as VerdictCache
from ._verdicts import verdict_key as verdict_key

__all__ = [
    "REPLAY_MODES",
    "CheckpointView",
    "OpenTrace",
    "Reads",
    "ReuseCache",
    "Untraceable",
    "VerdictCache",
    "share",
    "verdict_key",
]
