"""The suite's admission record: which contract of each task was admitted, and how.

`tasks/ADMISSION.json` (beside the human-readable `tasks/ADMISSION.md`) holds, per task
id, the contract hash that `admit --repeat 3 --record` admitted and its controls. A task
whose current contract hash is not the recorded one is *unadmitted*: CI fails on it (a
changed task must be admitted again and recorded), and `tasks` says so.

Only a `--repeat` of at least `MIN_REPEAT` is recorded: one run of each control cannot
tell a flaky check from a stable one.

Each admission also records the fingerprint of the grader that made it (`grader`,
`_grader.py`; a record written before it has none). CI checks a changed task
whose record is `current` (its contract, `--repeat 3`, this grader) by R0 and its
reference alone, and admits any other changed task whole (`_select.py`).

`ci_verified` is the contract hash CI's admission sample last verified for the task: a
task whose current contract is another one is *changed* (`unverified`), whatever commit
CI runs on. A passing sample under CI=true writes it (`mark_ci_verified`, `_verified.py`) and the
developer commits the file; `admit --record` keeps it, so re-admitting a task does not
make it verified.

An admission's results are kept where a later run finds them (`kept_admission`): a
task's `<dir>/<task>/admission.json` stands for its current contract at that repeat,
made by this grader, and not ended by a fault of the machine or of ours. The **store**
(`admission_store`: `$XDG_CACHE_HOME/pwb/admissions/<grader>/`, `admit --cache`, the full
tier's whole-suite admission) is such a directory per grader (its code and rendering
environment, `common_fingerprint`; each result carries its task's fingerprint): a whole-suite
admission takes hours, and what it has admitted under a grader is never paid for again,
across sittings and clones. One process at a time admits into a directory
(`admission_lock`).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path

import msgspec

from ..contract import TaskPackage
from ._admit import TaskAdmission
from ._grader import Grader, grader_of

RECORD_NAME = "ADMISSION.json"
MIN_REPEAT = 3
VERSION = 1


class RecordedControl(msgspec.Struct, frozen=True, kw_only=True):
    control: str  # "reference", "r0", "negative:<name>"
    ok: bool
    failing_gates: tuple[str, ...] = ()


class RecordedAdmission(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    contract: str  # the full contract hash that was admitted
    repeat: int
    admitted_at: str  # UTC date, YYYY-MM-DD
    source: str  # how it was admitted (the command's out directory, or a note)
    controls: tuple[RecordedControl, ...]
    # The fingerprint of the grader that made it (`_grader.py`); "" in records made before
    # the fingerprint existed: never current, so CI admits such a changed task whole.
    grader: str = ""
    # The contract hash a passing CI admission sample last checked (R0 and the reference
    # at least) from a package identical to the committed one (`mark_ci_verified`);
    # "" when none has. A task whose current hash is not this one has *changed* for CI.
    ci_verified: str = ""


class AdmissionRecord(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    version: int = VERSION
    tasks: dict[str, RecordedAdmission] = {}


class AdmissionRecordError(ValueError):
    """The record file is unreadable: one line naming the file and what is wrong."""


def record_path(tasks_dir: Path) -> Path:
    return tasks_dir / RECORD_NAME


def load_record(path: Path) -> AdmissionRecord:
    """The record at `path`; a missing file is an empty record."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return AdmissionRecord()
    try:
        record = msgspec.json.decode(raw, type=AdmissionRecord)
    except msgspec.ValidationError as exc:
        raise AdmissionRecordError(f"{path}: {exc}") from None
    except msgspec.DecodeError as exc:
        raise AdmissionRecordError(f"{path}: not JSON: {exc}") from None
    if record.version != VERSION:
        raise AdmissionRecordError(f"{path}: version {record.version}, expected {VERSION}")
    return record


def unadmitted(tasks: Iterable[TaskPackage], record: AdmissionRecord) -> list[str]:
    """One line per task whose current contract has no recorded admission."""
    problems = []
    for t in tasks:
        got = record.tasks.get(t.contract.id)
        if got is None:
            problems.append(
                f"{t.contract.id}: contract {t.contract_hash[:12]} has no recorded admission"
            )
        elif got.contract != t.contract_hash:
            problems.append(
                f"{t.contract.id}: contract {t.contract_hash[:12]} is not the admitted one "
                f"({got.contract[:12]}, {got.admitted_at}): admit it again with --record"
            )
    return problems


def current(record: AdmissionRecord, tasks: Iterable[TaskPackage], grader: Grader) -> set[str]:
    """Tasks whose current contract was recorded with `--repeat` >= `MIN_REPEAT` by the
    grader whose fingerprint is `grader`'s for the task (never by an unknown one: "")."""
    out = set()
    for t in tasks:
        got = record.tasks.get(t.contract.id)
        fingerprint = grader_of(grader, t)
        if (
            got is not None
            and fingerprint
            and got.grader == fingerprint
            and got.contract == t.contract_hash
            and got.repeat >= MIN_REPEAT
        ):
            out.add(t.contract.id)
    return out


def unverified(record: AdmissionRecord, tasks: Iterable[TaskPackage]) -> set[str]:
    """Tasks whose current contract is not the one CI last verified (`ci_verified`): the
    tasks a submission changed, worked out from the record alone. A task with no record
    or no verification is changed (the safe side)."""
    out = set()
    for t in tasks:
        got = record.tasks.get(t.contract.id)
        if got is None or got.ci_verified != t.contract_hash:
            out.add(t.contract.id)
    return out


def with_ci_verified(record: AdmissionRecord, verified: Mapping[str, str]) -> AdmissionRecord:
    """`record` with `ci_verified` set to the given contract hash for each task it names
    (task id -> hash); a task the record does not hold is left out: only a recorded
    admission can be verified."""
    tasks = {
        task: msgspec.structs.replace(got, ci_verified=verified[task]) if task in verified else got
        for task, got in record.tasks.items()
    }
    return AdmissionRecord(version=record.version, tasks=tasks)


def recorded(result: TaskAdmission, repeat: int, source: str, day: str) -> RecordedAdmission:
    return RecordedAdmission(
        contract=result.contract_hash,
        repeat=repeat,
        admitted_at=day,
        source=source,
        controls=tuple(
            RecordedControl(control=c.control, ok=c.ok, failing_gates=c.failing_gates)
            for c in result.controls
        ),
        grader=result.grader,
    )


def with_results(
    record: AdmissionRecord,
    results: Sequence[TaskAdmission],
    repeat: int,
    source: str,
    now: datetime | None = None,
) -> AdmissionRecord:
    """`record` with every admitted task of `results` recorded (the others are left as
    they were: a failed admission never erases an earlier one, and is never recorded;
    nor is one that ran only some of its negatives)."""
    if repeat < MIN_REPEAT:
        raise ValueError(f"--repeat {repeat}: a recorded admission needs {MIN_REPEAT} or more")
    day = (now or datetime.now(UTC)).strftime("%Y-%m-%d")
    tasks = dict(record.tasks)
    for r in results:
        if r.admitted and not r.trusted_negatives:
            # What CI verified stays: a new admission is not a CI verification.
            was = tasks[r.task].ci_verified if r.task in tasks else ""
            tasks[r.task] = msgspec.structs.replace(
                recorded(r, repeat, source, day), ci_verified=was
            )
    return AdmissionRecord(tasks=dict(sorted(tasks.items())))


def write_record(path: Path, record: AdmissionRecord) -> None:
    """Write `record` whole (a temporary file renamed over the old one)."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(msgspec.json.format(msgspec.json.encode(record)) + b"\n")
    tmp.replace(path)


def kept_admission(
    out: Path, task: TaskPackage, repeat: int, grader: Grader
) -> TaskAdmission | None:
    """The verdict an earlier run in `out` reached on `task`'s current contract at
    `repeat` under `grader`, if any (module docstring)."""
    try:
        got = msgspec.json.decode(
            (out / task.contract.id / "admission.json").read_bytes(), type=TaskAdmission
        )
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return None
    if got.contract_hash != task.contract_hash or got.repeat != repeat:
        return None
    if got.grader != grader_of(grader, task):
        return None
    if got.error.startswith(("infra_error", "harness_error")):
        return None  # no verdict: admitted again, like a sweep's --resume
    return got


def admission_store(common: str, env: Mapping[str, str] | None = None) -> Path:
    """The user's store of admissions made by the grader whose common part is `common`
    (`common_fingerprint`; module docstring)."""
    env = os.environ if env is None else env
    cache = Path(env.get("XDG_CACHE_HOME") or Path(env.get("HOME", "~")) / ".cache")
    return cache.expanduser() / "pwb" / "admissions" / common


class AdmissionBusy(RuntimeError):
    """Another process admits into the directory: one line naming it."""


@contextlib.contextmanager
def admission_lock(out: Path) -> Iterator[None]:
    """`out` for this process alone while the block runs (an advisory lock on
    `out/.lock`; released however the process ends)."""
    out.mkdir(parents=True, exist_ok=True)
    with open(out / ".lock", "a+") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            f.seek(0)
            who = f.read().strip() or "another process"
            raise AdmissionBusy(f"{out}: {who} is admitting into it; wait for it") from None
        f.seek(0)
        f.truncate()
        f.write(f"pid {os.getpid()}")
        f.flush()
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)
