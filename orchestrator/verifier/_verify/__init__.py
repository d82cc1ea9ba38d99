"""`verify`: one checkpoint's replays planned, run and graded (`_run.py`). Below it:
`_reuse`, `_replay`, `_browser` and `_core`."""

from ._run import verify as verify

__all__ = [
    "verify",
]
