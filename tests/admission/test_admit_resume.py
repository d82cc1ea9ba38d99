"""`admit --resume DIR` and `admit --cache` continue an admission, `admit --record`
writes the suite's admission record (tasks/ADMISSION.json), and a changed contract is
unadmitted."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import msgspec
import pytest

from orchestrator.admission import (
    AdmissionBusy,
    AdmissionRecord,
    AdmissionRecordError,
    ControlResult,
    TaskAdmission,
    admission_lock,
    admission_store,
    common_fingerprint,
    current,
    kept_admission,
    load_record,
    record_path,
    task_grader,
    unadmitted,
    unverified,
    with_ci_verified,
    with_results,
    write_record,
)
from orchestrator.commands.admit import PLAN_NAME, AdmitPlan
from orchestrator.contract import TaskPackage, load_task
from tests.fixtures.tinytask import make_tiny_task

ROOT = Path(__file__).resolve().parents[2]


def _result(
    task: TaskPackage, repeat: int = 3, admitted: bool = True, error: str = "", grader: str = ""
) -> TaskAdmission:
    controls = (
        ControlResult(control="reference", ok=admitted),
        ControlResult(control="r0", ok=True, failing_gates=("text",)),
    )
    return TaskAdmission(
        task=task.contract.id,
        contract_hash=task.contract_hash,
        admitted=admitted,
        controls=() if error else controls,
        repeat=repeat,
        error=error,
        grader=grader,
    )


def _save(out: Path, result: TaskAdmission) -> None:
    path = out / result.task / "admission.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(msgspec.json.encode(result))


@pytest.fixture
def suite(tmp_path: Path) -> list[TaskPackage]:
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    return [load_task(make_tiny_task(tasks, name)) for name in ("tiny-a", "tiny-b", "tiny-c")]


def _admit(*args: str, **env_extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), **env_extra}
    cmd = [sys.executable, "-m", "orchestrator", "admit", *args]
    return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def _kept(out: Path, task: TaskPackage, repeat: int) -> TaskAdmission | None:
    return kept_admission(out, task, repeat, "g1")


def test_resume_keeps_only_verdicts_on_the_current_contract_at_the_same_repeat(
    suite: list[TaskPackage], tmp_path: Path
) -> None:
    a, b, c = suite
    out = tmp_path / "adm"
    _save(out, _result(a, grader="g1"))
    _save(out, _result(b, error="infra_error: the daemon went away", grader="g1"))
    assert _kept(out, a, 3) == _result(a, grader="g1")
    assert _kept(out, a, 1) is None  # another repeat: admitted again
    assert kept_admission(out, a, 3, "g2") is None  # another grader: admitted again
    assert _kept(out, b, 3) is None  # no verdict: admitted again
    assert _kept(out, c, 3) is None  # never finished
    _save(out, _result(b, admitted=False, grader="g1"))
    assert _kept(out, b, 3) == _result(b, admitted=False, grader="g1")  # even a refusal
    stale = msgspec.structs.replace(_result(c, grader="g1"), contract_hash="0" * 64)
    _save(out, stale)
    assert _kept(out, c, 3) is None  # the task changed since
    (out / "tiny-c" / "admission.json").write_text("{not json")
    assert _kept(out, c, 3) is None


def test_the_store_is_the_users_cache_per_grader_and_one_process_admits_into_it(
    tmp_path: Path,
) -> None:
    assert admission_store("g1", {"XDG_CACHE_HOME": str(tmp_path)}) == (
        tmp_path / "pwb" / "admissions" / "g1"
    )
    assert admission_store("g1", {"HOME": str(tmp_path)}) == (
        tmp_path / ".cache" / "pwb" / "admissions" / "g1"
    )
    out = tmp_path / "store"
    with admission_lock(out):
        # Another process (flock is per open file: a child stands for one) is refused.
        code = (
            "import sys; from pathlib import Path; "
            "from orchestrator.admission import admission_lock, AdmissionBusy\n"
            "try:\n with admission_lock(Path(sys.argv[1])): print('got it')\n"
            "except AdmissionBusy as e: print(e)"
        )
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        cmd = [sys.executable, "-c", code, str(out)]
        got = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)
        assert f"{out}: pid {os.getpid()} is admitting into it" in got.stdout, got
    with admission_lock(out):  # released when its block ends, even by an error
        pass
    with pytest.raises(AdmissionBusy), admission_lock(out):
        with admission_lock(out):
            pass


def test_a_resumed_admission_with_every_verdict_kept_admits_nothing_and_records(
    suite: list[TaskPackage], tmp_path: Path
) -> None:
    """No Docker and no browser here (the fast tier's guard would fail the test): every
    task already has its verdict in DIR, so `--resume` only writes the report and record."""
    out = tmp_path / "adm"
    out.mkdir()
    roots = [str(t.root) for t in suite]
    (out / PLAN_NAME).write_bytes(msgspec.json.encode(AdmitPlan(tasks=roots, repeat=3)))
    for t in suite:  # the child's grader: this checkout's, the task's stack's
        _save(out, _result(t, admitted=t.contract.id != "tiny-b", grader=task_grader(t)))
    proc = _admit("--resume", str(out), "--record")
    assert proc.returncode == 1, proc.stderr  # tiny-b is not admitted
    assert "3 task(s) kept, 0 to admit" in proc.stderr
    assert "not admitted: tiny-b" in proc.stderr
    assert "admission recorded in " in proc.stderr and ": tiny-a, tiny-c" in proc.stderr
    again = _admit("--resume", str(out), "--record")  # the same verdicts: nothing new
    assert f"nothing new recorded in {record_path(tmp_path / 'tasks')}" in again.stderr
    report = (out / "admission.md").read_text()
    assert all(f"| {t.contract.id} | reference |" in report for t in suite)
    record = load_record(record_path(tmp_path / "tasks"))
    assert sorted(record.tasks) == ["tiny-a", "tiny-c"]  # a refusal is never recorded
    assert record.tasks["tiny-a"].contract == suite[0].contract_hash
    assert record.tasks["tiny-a"].repeat == 3 and record.tasks["tiny-a"].source == str(out)
    assert record.tasks["tiny-a"].grader == task_grader(suite[0])
    assert unadmitted(suite, record) == [
        f"tiny-b: contract {suite[1].contract_hash[:12]} has no recorded admission"
    ]


def test_admit_cache_keeps_what_the_store_holds_for_this_grader(
    suite: list[TaskPackage], tmp_path: Path
) -> None:
    """`admit --cache` twice (an interrupted run, or another clone): what the store holds
    for this grader is kept, so with every verdict there nothing is admitted (no Docker,
    no browser here); a busy store is refused in one line."""
    cache = tmp_path / "cache"
    store = admission_store(common_fingerprint(), {"XDG_CACHE_HOME": str(cache)})
    for t in suite:
        _save(store, _result(t, grader=task_grader(t)))
    tasks = ("--tasks-dir", str(tmp_path / "tasks"))
    proc = _admit("--cache", "--repeat", "3", *tasks, XDG_CACHE_HOME=str(cache))
    assert proc.returncode == 0, proc.stderr
    assert "3 task(s) kept, 0 to admit" in proc.stderr
    assert f"admission written to {store}" in proc.stderr
    with admission_lock(store):
        proc = _admit("--cache", "--repeat", "3", *tasks, XDG_CACHE_HOME=str(cache))
    assert proc.returncode == 2 and proc.stderr.strip().endswith("wait for it"), proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--resume", "{tmp}"), "not an admission directory"),
        (("--resume", "{tmp}/adm", "tiny-a"), "name none"),
        (("--resume", "{tmp}/adm", "--out", "{tmp}/x"), "--resume DIR and --out"),
        (("--cache", "--out", "{tmp}/x"), "expected no --out or --resume"),
        (("--record", "--out", "{tmp}/new", "--tasks-dir", "{tmp}/tasks"), "--repeat 3 or more"),
        (("--repeat", "0", "--out", "{tmp}/new", "--tasks-dir", "{tmp}/tasks"), "--repeat 0"),
    ],
)
def test_bad_resume_or_record_arguments_are_one_line_and_exit_2(
    suite: list[TaskPackage], tmp_path: Path, args: tuple[str, ...], says: str
) -> None:
    out = tmp_path / "adm"
    out.mkdir()
    roots = [str(suite[0].root)]
    (out / PLAN_NAME).write_bytes(msgspec.json.encode(AdmitPlan(tasks=roots, repeat=3)))
    proc = _admit(*(a.format(tmp=tmp_path) for a in args))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0], proc.stderr
    assert not (tmp_path / "new").exists() and not record_path(tmp_path / "tasks").exists()


def test_a_changed_task_is_unadmitted_until_recorded_again(
    suite: list[TaskPackage], tmp_path: Path
) -> None:
    a, b, _ = suite
    day = datetime(2026, 12, 2, tzinfo=UTC)
    record = with_results(AdmissionRecord(), [_result(a), _result(b)], 3, "first", now=day)
    assert unadmitted([a, b], record) == []
    (a.root / "repo" / "index.html").write_text("<h1>changed</h1>\n")
    changed = load_task(a.root)
    assert changed.contract_hash != a.contract_hash
    (line,) = unadmitted([changed, b], record)
    assert line.startswith(f"tiny-a: contract {changed.contract_hash[:12]} is not the admitted")
    # A failed admission of the changed task leaves the earlier record as it was ...
    failed = with_results(record, [_result(changed, admitted=False)], 3, "second", now=day)
    assert failed.tasks["tiny-a"] == record.tasks["tiny-a"]
    # ... as does one that ran only some of its negatives (CI's unchanged sentinels) ...
    part = msgspec.structs.replace(_result(changed), trusted_negatives=("n1",))
    assert with_results(record, [part], 3, "part", now=day).tasks == record.tasks
    # ... a passing one replaces it; fewer than 3 runs are never recorded.
    again = with_results(record, [_result(changed)], 3, "second", now=day)
    assert unadmitted([changed, b], again) == [] and again.tasks["tiny-a"].source == "second"
    assert again.tasks["tiny-a"].admitted_at == "2026-12-02"
    with pytest.raises(ValueError, match="--repeat 1"):
        with_results(record, [_result(changed, repeat=1)], 1, "x")


def test_an_unreadable_record_names_its_file(tmp_path: Path) -> None:
    path = tmp_path / "ADMISSION.json"
    assert load_record(path) == AdmissionRecord()  # none yet: nothing admitted
    write_record(path, AdmissionRecord())
    assert load_record(path) == AdmissionRecord()
    for text, says in (
        ("{", "not JSON"),
        ('{"version": 1, "tasks": {}, "extra": 1}', "extra"),
        ('{"version": 2}', "version 2"),
        ('{"tasks": {"t": {"contract": 5}}}', "contract"),
    ):
        path.write_text(text)
        with pytest.raises(AdmissionRecordError, match=f"^{path}: .*{says}"):
            load_record(path)


def test_tasks_names_every_unadmitted_task_and_an_unreadable_record(
    suite: list[TaskPackage], tmp_path: Path
) -> None:
    tasks = tmp_path / "tasks"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "orchestrator", "tasks", "--tasks-dir", str(tasks)]
    write_record(record_path(tasks), with_results(AdmissionRecord(), [_result(suite[0])], 3, "s"))
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    named = [line for line in proc.stderr.splitlines() if line.startswith("unadmitted: ")]
    assert [line.split()[1] for line in named] == ["tiny-b:", "tiny-c:"]
    record_path(tasks).write_text("[]")
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and f"{record_path(tasks)}: " in proc.stderr


def test_a_record_is_current_for_its_contract_its_grader_and_three_runs(
    suite: list[TaskPackage],
) -> None:
    """CI checks a changed task by R0 and its reference alone only when its record is
    current (`orchestrator/admission/`): made by this grader, on this contract, with
    `--repeat 3`."""
    a, b, c = suite
    record = with_results(
        AdmissionRecord(), [_result(a, grader="g1"), _result(b, grader="g1"), _result(c)], 3, "s"
    )
    assert record.tasks["tiny-a"].grader == "g1"
    assert current(record, suite, "g1") == {"tiny-a", "tiny-b"}
    assert current(record, suite, "g2") == set()  # another grader: admitted whole
    assert current(record, suite, "") == set()  # an unknown grader is never current
    (b.root / "repo" / "index.html").write_text("<h1>changed</h1>\n")
    assert current(record, [a, load_task(b.root), c], "g1") == {"tiny-a"}
    one_run = msgspec.structs.replace(record.tasks["tiny-a"], repeat=1)
    hand = AdmissionRecord(tasks={"tiny-a": one_run})
    assert current(hand, suite, "g1") == set()


def test_the_shipped_record_reads_and_writes_back_byte_for_byte(tmp_path: Path) -> None:
    """Records made before the grader fingerprint stay valid (no `grader`: ""), and writing
    a record back adds no empty field: the file changes only where a task's entry does."""
    shipped = record_path(ROOT / "tasks")
    record = load_record(shipped)
    assert record.tasks and all(isinstance(r.grader, str) for r in record.tasks.values())
    write_record(tmp_path / "ADMISSION.json", record)
    assert (tmp_path / "ADMISSION.json").read_bytes() == shipped.read_bytes()


def test_re_admitting_a_task_keeps_what_ci_verified(suite: list[TaskPackage]) -> None:
    """`ci_verified` is CI's word, not the developer's: `admit --record` never sets it, and
    a task re-admitted on a new contract stays changed (`unverified`) until CI verifies it."""
    a, b, _ = suite
    record = with_results(AdmissionRecord(), [_result(a), _result(b)], 3, "s")
    assert record.tasks["tiny-a"].ci_verified == "" and unverified(record, [a, b]) == {
        "tiny-a",
        "tiny-b",
    }
    verified = with_ci_verified(record, {"tiny-a": a.contract_hash, "tiny-zz": "x"})
    assert unverified(verified, [a, b]) == {"tiny-b"}
    assert "tiny-zz" not in verified.tasks  # only a recorded admission can be verified
    (a.root / "repo" / "index.html").write_text("<h1>changed</h1>\n")
    changed = load_task(a.root)
    again = with_results(verified, [_result(changed)], 3, "again")
    assert again.tasks["tiny-a"].contract == changed.contract_hash
    assert again.tasks["tiny-a"].ci_verified == a.contract_hash
    assert unverified(again, [changed, b]) == {"tiny-a", "tiny-b"}
