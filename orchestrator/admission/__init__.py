"""Admission and the shipped suite: which tasks enter the suite, on what record, and which
of them CI admits.

Public surface:

- `admit_all(tasks, repeat, ...) -> [TaskAdmission]` with `ControlResult`, `Admitter`,
  `judge_negative`, `verdict` and `admission_work` — a task enters the suite only when
  its controls behave (DESIGN.md §6; the rules in `_admit.py`'s docstring);
- `AdmissionRecord`, `load_record`, `write_record`, `record_path`, `unadmitted`, `current`,
  `unverified`, `with_results`, `with_ci_verified` — the admission record,
  `tasks/ADMISSION.json`: which contract of each task was admitted, how, and by which
  grader; `kept_admission`, `admission_store` and `admission_lock` — admissions' results
  kept where a later run finds them (`_record.py`);
- `Grader`, `grader_of`, `task_grader`, `grader_fingerprint`, `common_fingerprint` and
  `GRADER_SOURCES` — the grader's fingerprint, which grader made an admission
  (`_grader.py`); `grader_parts` (`GraderParts`: the code, render and images digests,
  uncached, of any checkout), `source_files` and `chromium_major` — what it is made of,
  to tell which part made a record stale;
- `composition` and `suite_twin_problems` — the suite's composition (`tasks` prints it,
  `_composition.py`);
- `ci_selection`, `ci_selection_from_env`, `SENTINELS`, `sentinel_negatives`,
  `sentinel_gaps`, `changed_since`, `mark_ci_verified`, `committed_as_is` — which tasks CI
  admits (`_select.py`, `_verified.py`; tests/integration/test_suite_admission.py,
  `scripts/test admission`), below.

Admitting the whole suite takes hours (`tasks/ADMISSION.md`), so CI admits three kinds of
task, and trusts `tasks/ADMISSION.json` (`_record.py`) for the rest — a fast test
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
  verified (`ci_verified` in its record; `unverified`). A passing
  sample under CI=true writes `ci_verified` for every task it checked whose package is
  exactly the committed one (no uncommitted, untracked or ignored file under it:
  `mark_ci_verified`), into the work tree's `tasks/ADMISSION.json`, and the developer
  commits that file. Nothing names a commit, so nothing must be edited when a main
  lands; a verification not committed only makes the next CI check those tasks again.
  A changed task whose record is **current** (its contract, recorded with `--repeat 3`
  by this grader: `current`, `_grader.py`) is checked by R0 and its
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
recorded (`with_results`). `PWB_ADMIT_ALL=1` admits the whole suite,
each task whole (the `full` tier; so does `python -m orchestrator admit --repeat 3` with
no task named); `PWB_ADMIT_TASKS=a,b` admits exactly the tasks named, whole (an author
checking a new task the way CI will).

Inside, the package has rooms, each a module; a room imports only rooms below it (`INNER`
in `tests/layers.py`), top first: the suite (`_composition.py`, `_select.py`,
`_verified.py`), the record (`_record.py`), one task's admission (`_admit.py`) and the
grader's fingerprint (`_grader.py`).
"""

from __future__ import annotations

from ._admit import Admitter as Admitter
from ._admit import ControlResult as ControlResult
from ._admit import TaskAdmission as TaskAdmission
from ._admit import admission_work as admission_work
from ._admit import admit_all as admit_all
from ._admit import judge_negative as judge_negative
from ._admit import verdict as verdict
from ._composition import MIN_TASKS_FOR_INTERVAL as MIN_TASKS_FOR_INTERVAL
from ._composition import composition as composition
from ._composition import suite_twin_problems as suite_twin_problems
from ._grader import GRADER_SOURCES as GRADER_SOURCES
from ._grader import Grader as Grader
from ._grader import GraderParts as GraderParts
from ._grader import chromium_major as chromium_major
from ._grader import common_fingerprint as common_fingerprint
from ._grader import grader_fingerprint as grader_fingerprint
from ._grader import grader_of as grader_of
from ._grader import grader_parts as grader_parts
from ._grader import source_files as source_files
from ._grader import task_grader as task_grader
from ._record import MIN_REPEAT as MIN_REPEAT
from ._record import RECORD_NAME as RECORD_NAME
from ._record import AdmissionBusy as AdmissionBusy
from ._record import AdmissionRecord as AdmissionRecord
from ._record import AdmissionRecordError as AdmissionRecordError
from ._record import RecordedAdmission as RecordedAdmission
from ._record import admission_lock as admission_lock
from ._record import admission_store as admission_store
from ._record import current as current
from ._record import kept_admission as kept_admission
from ._record import load_record as load_record
from ._record import record_path as record_path
from ._record import unadmitted as unadmitted
from ._record import unverified as unverified
from ._record import with_ci_verified as with_ci_verified
from ._record import with_results as with_results
from ._record import write_record as write_record
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
    "GRADER_SOURCES",
    "MIN_REPEAT",
    "MIN_TASKS_FOR_INTERVAL",
    "RECORD_NAME",
    "SAMPLE_SIZE",
    "SENTINELS",
    "AdmissionBusy",
    "AdmissionRecord",
    "AdmissionRecordError",
    "Admitter",
    "ControlResult",
    "Grader",
    "GraderParts",
    "RecordedAdmission",
    "Selection",
    "TaskAdmission",
    "admission_lock",
    "admission_store",
    "admission_work",
    "admit_all",
    "changed_since",
    "chromium_major",
    "ci_selection",
    "ci_selection_from_env",
    "committed_as_is",
    "common_fingerprint",
    "composition",
    "current",
    "grader_fingerprint",
    "grader_of",
    "grader_parts",
    "judge_negative",
    "kept_admission",
    "load_record",
    "mark_ci_verified",
    "record_path",
    "sentinel_gaps",
    "sentinel_negatives",
    "source_files",
    "suite_twin_problems",
    "task_grader",
    "unadmitted",
    "unverified",
    "verdict",
    "with_ci_verified",
    "with_results",
    "write_record",
]
