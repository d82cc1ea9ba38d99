"""The shipped suite as a whole: its composition (`tasks` prints it, `_composition.py`)
and which tasks CI admits (`_select.py`, `_verified.py`;
tests/integration/test_suite_admission.py, `scripts/test admission`).

Admitting the whole suite takes hours (`tasks/ADMISSION.md`), so CI admits three kinds of
task, and trusts `tasks/ADMISSION.json` (`admission_record`) for the rest — a fast test
fails when any task's contract has no recorded admission:

- the **sentinels** (`SENTINELS`), on every run: a fixed set with a task on every stack
  and, among their negatives, one failing every gate any negative of the suite fails
  (`sentinel_gaps` says what a grown suite adds that they miss). A sentinel is admitted
  in part: R0, the reference unit by unit and its covering negatives
  (`sentinel_negatives`: the fewest state replays that still fail every gate family);
  its other negatives are trusted to the record like every task CI leaves out. They
  guard changes of the grader. A sentinel that changed and whose record is not
  *current* (below) gets its whole admission;
- the **changed** tasks: every task whose current contract hash is not the one CI last
  verified (`ci_verified` in its record; `admission_record.unverified`). A passing
  sample under CI=true writes `ci_verified` for every task it checked whose package is
  exactly the committed one (no uncommitted, untracked or ignored file under it:
  `mark_ci_verified`), into the work tree's `tasks/ADMISSION.json`, and the developer
  commits that file. Nothing names a commit, so nothing must be edited when a main
  lands; a verification not committed only makes the next CI check those tasks again.
  A changed task whose record is **current** (its contract, recorded with `--repeat 3`
  by this grader: `admission_record.current`, `grader.py`) is checked by R0 and its
  reference alone, unit by unit, no negative (`reproduced`): its negatives' verdicts are
  the record's, and CI proves the committed package reproduces from a clean clone. A
  changed task recorded by another grader (or none) is admitted whole.
  `PWB_ADMIT_BASE=<commit>` takes the changed tasks from git instead (`changed_since`:
  every task whose files differ from that commit; an unknown commit: every task);
- a **window** of the others: sorted by id and cut into windows of `size` (the last one
  wraps around to the start, so every window has `size` tasks); rotation `r` takes window
  `r mod windows`, so `windows` consecutive rotations admit every task at least once. The
  rotation is the UTC day number unless `PWB_ADMIT_ROTATION` fixes it; `PWB_ADMIT_SAMPLE`
  sets `size`. The changed tasks take the window's places (a run with as many changed
  tasks as `size` admits no window), so a submission that changes tasks does not also
  pay for the rotation.

A partial admission (a sentinel's covering negatives, a changed task's none) is never
recorded (`admission_record.with_results`). `PWB_ADMIT_ALL=1` admits the whole suite,
each task whole (the `full` tier; so does `python -m orchestrator admit --repeat 3` with
no task named); `PWB_ADMIT_TASKS=a,b` admits exactly the tasks named, whole (an author
checking a new task the way CI will).
"""

from __future__ import annotations

from ._composition import MIN_TASKS_FOR_INTERVAL as MIN_TASKS_FOR_INTERVAL
from ._composition import composition as composition
from ._composition import suite_twin_problems as suite_twin_problems
from ._select import SAMPLE_SIZE as SAMPLE_SIZE
from ._select import SENTINELS as SENTINELS
from ._select import Selection as Selection
from ._select import changed_since as changed_since
from ._select import ci_selection as ci_selection
from ._select import ci_selection_from_env as ci_selection_from_env
from ._select import sentinel_gaps as sentinel_gaps
from ._select import sentinel_negatives as sentinel_negatives
from ._verified import committed_as_is as committed_as_is
from ._verified import mark_ci_verified as mark_ci_verified

__all__ = [
    "MIN_TASKS_FOR_INTERVAL",
    "SAMPLE_SIZE",
    "SENTINELS",
    "Selection",
    "changed_since",
    "ci_selection",
    "ci_selection_from_env",
    "committed_as_is",
    "composition",
    "mark_ci_verified",
    "sentinel_gaps",
    "sentinel_negatives",
    "suite_twin_problems",
]
