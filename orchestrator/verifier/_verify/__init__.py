"""`verify`: one checkpoint's replays planned (`_jobs.py`), run (`_run.py`) and graded
(`_grade.py`). Below it: `_reuse`, `_replay`, `_browser` and `_core`."""

from ._run import verify as verify

__all__ = [
    "verify",
]
