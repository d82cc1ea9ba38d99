"""The suite as a whole: `tasks` prints its composition (regime × capability × facet ×
stack); CI admits the sentinels, the changed tasks and a rotating window of the others
that covers every task within `windows` rotations (orchestrator/admission/), and every
task's current contract has a recorded admission (tasks/ADMISSION.json)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import msgspec
import pytest

from orchestrator.admission import (
    SENTINELS,
    AdmissionRecord,
    ControlResult,
    Selection,
    TaskAdmission,
    ci_selection,
    ci_selection_from_env,
    committed_as_is,
    composition,
    load_record,
    mark_ci_verified,
    record_path,
    sentinel_gaps,
    sentinel_negatives,
    suite_twin_problems,
    with_ci_verified,
    with_results,
    write_record,
)
from orchestrator.authoring import scaffold
from orchestrator.contract import (
    Contract,
    Negative,
    TaskPackage,
    Unit,
    discover_tasks,
    load_task,
)
from tests.fixtures.tinytask import make_tiny_task

ROOT = Path(__file__).resolve().parents[2]
EXTRA = [f"extra-{i:02d}" for i in range(13)]


def test_every_sentinel_is_shipped_and_the_real_suite_selects_them() -> None:
    shipped = [p.name for p in discover_tasks(ROOT / "tasks")]
    assert set(SENTINELS) <= set(shipped)
    sel = ci_selection(shipped, rotation=0)
    assert set(sel.sentinels) == SENTINELS and set(sel.admitted) >= SENTINELS
    # `windows` consecutive rotations admit every shipped task (the twins included).
    covered = set().union(*(ci_selection(shipped, r).admitted for r in range(sel.windows)))
    assert covered == set(shipped)


@pytest.mark.parametrize("rotation", range(9))
def test_a_window_is_the_sentinels_plus_size_extras_each_admitted_once(rotation: int) -> None:
    sel = ci_selection([*EXTRA, *sorted(SENTINELS)], rotation, size=4)
    assert sel.windows == 4  # 13 extras in windows of 4
    assert set(sel.sentinels) == SENTINELS and len(sel.sampled) == 4
    assert set(sel.sampled) <= set(EXTRA)
    assert set(sel.sampled) | set(sel.left_out) == set(EXTRA)
    assert not set(sel.sampled) & set(sel.left_out)
    assert sel.admitted == tuple(sorted([*SENTINELS, *sel.sampled]))
    # Deterministic, and periodic in the number of windows.
    assert ci_selection(reversed([*EXTRA, *SENTINELS]), rotation, 4) == sel
    assert ci_selection([*EXTRA, *SENTINELS], rotation + sel.windows, 4).sampled == sel.sampled


def test_consecutive_rotations_cover_every_task_and_move_on() -> None:
    ids = [*SENTINELS, *EXTRA]
    sels = [ci_selection(ids, r, size=4) for r in range(100, 104)]  # 100 % 4 == 0
    assert set().union(*(s.sampled for s in sels)) == set(EXTRA)
    # Windows are consecutive runs of the sorted ids; the last wraps to the start.
    assert [s.sampled for s in sels] == [
        tuple(EXTRA[0:4]),
        tuple(EXTRA[4:8]),
        tuple(EXTRA[8:12]),
        tuple(sorted([EXTRA[12], *EXTRA[0:3]])),
    ]


def test_no_extras_or_a_zero_sample_admits_only_the_sentinels() -> None:
    assert ci_selection(SENTINELS, 7).admitted == tuple(sorted(SENTINELS))
    sel = ci_selection([*SENTINELS, *EXTRA], 7, size=0)
    assert sel.sampled == () and set(sel.left_out) == set(EXTRA)
    big = ci_selection([*SENTINELS, *EXTRA], 7, size=50)
    assert set(big.admitted) == {*SENTINELS, *EXTRA} and big.left_out == () and big.windows == 1


def test_a_missing_sentinel_or_a_bad_size_is_an_error() -> None:
    gone = sorted(SENTINELS)[3]
    with pytest.raises(ValueError, match=gone):
        ci_selection([i for i in [*SENTINELS, *EXTRA] if i != gone], 0)
    with pytest.raises(ValueError, match="sample size -1"):
        ci_selection([*SENTINELS, *EXTRA], 0, size=-1)


def test_the_environment_picks_rotation_size_or_everything() -> None:
    ids = [*SENTINELS, *EXTRA]
    day = datetime(2026, 11, 30, 23, 59, tzinfo=UTC)
    sel = ci_selection_from_env(ids, env={}, now=day)
    assert sel == ci_selection(ids, day.date().toordinal(), 1) and len(sel.sampled) == 1
    assert ci_selection_from_env(ids, env={"PWB_ADMIT_ROTATION": "2"}, now=day).rotation == 2
    three = ci_selection_from_env(ids, env={"PWB_ADMIT_SAMPLE": "3"}, now=day)
    assert len(three.sampled) == 3
    full = ci_selection_from_env(ids, env={"PWB_ADMIT_ALL": "1"}, now=day)
    assert set(full.admitted) == set(ids) and not full.left_out
    # An author checks one new task the way CI admits it: exactly the tasks named.
    one = ci_selection_from_env(ids, env={"PWB_ADMIT_TASKS": " extra-03 ,"}, now=day)
    assert one.admitted == ("extra-03",) and one.named and len(one.left_out) == len(ids) - 1
    assert "extra-03" in one.describe()
    sentinel = sorted(SENTINELS)[0]
    pair = ci_selection_from_env(ids, env={"PWB_ADMIT_TASKS": f"extra-01,{sentinel}"}, now=day)
    assert (pair.sentinels, pair.sampled) == ((sentinel,), ("extra-01",))
    with pytest.raises(ValueError, match=r"PWB_ADMIT_TASKS: no such task.*extra-99"):
        ci_selection_from_env(ids, env={"PWB_ADMIT_TASKS": "extra-01,extra-99"}, now=day)
    with pytest.raises(ValueError, match="PWB_ADMIT_TASKS and PWB_ADMIT_ALL"):
        ci_selection_from_env(ids, env={"PWB_ADMIT_TASKS": "extra-01", "PWB_ADMIT_ALL": "1"})
    for env in ({"PWB_ADMIT_ROTATION": "x"}, {"PWB_ADMIT_SAMPLE": "1.5"}, {"PWB_ADMIT_ALL": "y"}):
        with pytest.raises(ValueError, match=next(iter(env))):
            ci_selection_from_env(ids, env=env, now=day)


def _contract(tmp_path: Path, name: str, stack: str, **labels: object) -> Contract:
    root = tmp_path / name
    scaffold(root, name, stack)
    return msgspec.structs.replace(load_task(root).contract, **labels)


def test_composition_counts_every_cell_and_margin(tmp_path: Path) -> None:
    rework = Unit(id="u2", kind="rework", request="again", checks=("u1-headline",))
    negs = tuple(Negative(name=f"n{i}", expect_fail=("text",), why="w") for i in range(3))
    a = _contract(tmp_path, "a-one", "static")
    b = _contract(tmp_path, "b-two", "hugo")
    c = _contract(tmp_path, "c-three", "hugo", units=(*a.units, rework), negatives=negs)
    d = _contract(
        tmp_path, "d-four", "react", regime="build", capability="build", facet="construction"
    )
    e = _contract(tmp_path, "e-five", "static", capability="repair", facet="regression")
    text = composition([a, b, c, d, e])
    assert text.splitlines() == [
        "composition: 5 tasks",
        "  regime: build 1, change 4",
        "  capability: build 1, edit 3, repair 1",
        "  facet: construction 1, content 3, regression 1",
        "  stack: hugo 2, react 1, static 2",
        "regime  capability   facet             hugo  react static | total",
        "build   build        construction         .      1      . |     1",
        "change  edit         content              2      .      1 |     3",
        "change  repair       regression           .      .      1 |     1",
        "total                                     2      1      2 |     5",
        "with a rework unit: 1 of 5; with >= 3 negatives: 1 of 5",
        "greenfield twins of change tasks: 0",
        "under 2 tasks, no interval in the report: regime build (1),"
        " facet construction (1), facet regression (1), stack react (1)",
    ]
    assert composition([]) == "composition: no tasks\n"
    assert composition([a, b, c, e]).splitlines()[-1] == (
        "under 2 tasks, no interval in the report: facet regression (1)"
    )
    assert composition([b, c]).splitlines()[-1] == (
        "every regime, facet and stack has >= 2 tasks (intervals)"
    )


def test_every_shipped_twin_names_a_matched_change_task_of_the_suite() -> None:
    shipped = [load_task(p) for p in discover_tasks(ROOT / "tasks")]
    assert suite_twin_problems(shipped) == []


def test_tasks_prints_the_composition_of_the_shipped_suite() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-m", "orchestrator", "tasks"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    contracts = [load_task(p).contract for p in discover_tasks(ROOT / "tasks")]
    assert out.stdout.endswith(composition(contracts))
    assert f"composition: {len(contracts)} tasks" in out.stdout


def test_the_sentinels_cover_every_stack_and_every_gate_a_negative_fails() -> None:
    shipped = [load_task(p).contract for p in discover_tasks(ROOT / "tasks")]
    assert sentinel_gaps(shipped) == []
    # A suite growing a stack or a negative's gate the sentinels miss is named.
    new = msgspec.structs.replace(
        shipped[0],
        id="zz-new",
        stack="planted",
        negatives=(Negative(name="n", expect_fail=("network",), why="w"),),
    )
    assert sentinel_gaps([*shipped, new]) == ["stack planted", "gate network"]
    # Without the hugo sentinel, the other hugo tasks and the assets/routes negatives
    # of other tasks are not covered.
    gone = [c for c in shipped if c.id != "orchard-harvest-content"]
    assert sentinel_gaps(gone) == ["stack hugo", "gate assets", "gate routes"]


def test_the_covering_negatives_fail_every_gate_family_at_fewer_replays() -> None:
    """CI runs an unchanged sentinel's covering negatives only: together they are expected
    to fail every gate any negative of the suite fails, checked here by brute force over
    the shipped suite, and they replay fewer states than the sentinels' every negative."""
    shipped = [load_task(p).contract for p in discover_tasks(ROOT / "tasks")]
    by_id = {c.id: c for c in shipped}
    covering = sentinel_negatives(shipped)
    assert set(covering) == SENTINELS
    wanted = {g for c in shipped for n in c.negatives for g in n.expect_fail}
    got: set[str] = set()
    for task, names in covering.items():
        negs = {n.name: n for n in by_id[task].negatives}
        assert set(names) <= set(negs), task
        got |= {g for name in names for g in negs[name].expect_fail}
    assert got == wanted
    chosen = sum(len(by_id[t].states) * len(names) for t, names in covering.items())
    every = sum(len(by_id[t].states) * len(by_id[t].negatives) for t in SENTINELS)
    assert chosen < every / 2, (chosen, every)
    # Deterministic, and a gate no sentinel negative fails is left out, not looped on.
    assert sentinel_negatives(reversed(shipped)) == covering
    new = msgspec.structs.replace(
        shipped[0], id="zz-new", negatives=(Negative(name="n", expect_fail=("network",), why="w"),)
    )
    assert sentinel_negatives([*shipped, new]) == covering


def test_only_unchanged_sentinels_are_admitted_in_part() -> None:
    ids = [*SENTINELS, *EXTRA]
    one = sorted(SENTINELS)[0]
    sel = ci_selection(ids, rotation=0, changed=[one, "extra-03"])
    assert set(sel.partial) == SENTINELS - {one} and "extra-03" in sel.changed
    assert "with their covering negatives only" in sel.describe()
    # The whole suite (PWB_ADMIT_ALL=1) and named tasks: every admission whole.
    day = datetime(2026, 12, 3, tzinfo=UTC)
    assert ci_selection_from_env(ids, env={"PWB_ADMIT_ALL": "1"}, now=day).partial == ()
    named = ci_selection_from_env(ids, env={"PWB_ADMIT_TASKS": one}, now=day)
    assert named.partial == ()
    # An unknown base: every task changed, every sentinel whole.
    assert ci_selection(ids, rotation=0, changed=ids).partial == ()


def _git(root: Path, *args: str) -> str:
    out = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def _commit(root: Path, message: str) -> None:
    _git(root, "add", "-A")
    _git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", message)


def _admitted(task: TaskPackage, grader: str) -> TaskAdmission:
    controls = (ControlResult(control="reference", ok=True), ControlResult(control="r0", ok=True))
    return TaskAdmission(
        task=task.contract.id,
        contract_hash=task.contract_hash,
        admitted=True,
        controls=controls,
        repeat=3,
        grader=grader,
    )


IDS = [*sorted(SENTINELS), *EXTRA[:4]]
GRADER = "g-now"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository of tiny tasks named like the sentinels and four extras, each recorded
    `--repeat 3` by grader `GRADER` and verified by CI at its current contract."""
    tiny = make_tiny_task(tmp_path / "src", "tiny")
    root = tmp_path / "repo"
    for i in IDS:
        shutil.copytree(tiny, root / "tasks" / i)
        toml = root / "tasks" / i / "task.toml"
        toml.write_text(toml.read_text().replace('id = "tiny"', f'id = "{i}"'))
    (root / ".gitignore").write_text("node_modules/\n")
    tasks = _load(root)
    record = with_results(AdmissionRecord(), [_admitted(t, GRADER) for t in tasks], 3, "s")
    verified = with_ci_verified(record, {t.contract.id: t.contract_hash for t in tasks})
    write_record(record_path(root / "tasks"), verified)
    _git(root, "init", "-q")
    _commit(root, "base")
    return root


def _load(root: Path) -> list[TaskPackage]:
    return [load_task(root / "tasks" / i) for i in IDS]


def _select(root: Path, env: dict[str, str] | None = None, grader: str = GRADER) -> Selection:
    day = datetime(2026, 12, 2, tzinfo=UTC)
    return ci_selection_from_env(IDS, env=env or {}, now=day, root=root, grader=grader)


def _edit(root: Path, task: str) -> None:
    page = root / "tasks" / task / "repo" / "index.html"
    page.write_text(page.read_text() + "<!-- edited -->\n")


def _record(root: Path, tasks: list[TaskPackage], grader: str) -> None:
    path = record_path(root / "tasks")
    write_record(
        path, with_results(load_record(path), [_admitted(t, grader) for t in tasks], 3, "s")
    )


def test_a_task_is_changed_when_its_contract_is_not_the_one_ci_verified(repo: Path) -> None:
    """No file names a commit: the record says which contract CI last verified."""
    assert _select(repo).changed == ()  # everything verified: sentinels and a window only
    _edit(repo, "extra-01")  # planted: its hash is no longer the verified one
    sel = _select(repo)
    assert sel.changed == ("extra-01",) and "extra-02" not in sel.admitted
    # Not re-recorded yet: its record is of another contract, so it is admitted whole.
    assert sel.reproduced == () and "extra-01" not in sel.negatives({})
    # A task the record holds but CI never verified is changed too (the safe side).
    path = record_path(repo / "tasks")
    record = load_record(path)
    write_record(path, with_ci_verified(record, {"extra-03": ""}))
    assert _select(repo).changed == ("extra-01", "extra-03")


def test_a_changed_task_recorded_by_this_grader_is_checked_by_r0_and_reference_alone(
    repo: Path,
) -> None:
    _edit(repo, "extra-01")
    _edit(repo, "extra-02")
    sentinel = sorted(SENTINELS)[0]
    _edit(repo, sentinel)
    tasks = {t.contract.id: t for t in _load(repo)}
    _record(repo, [tasks["extra-01"], tasks[sentinel]], GRADER)  # re-admitted --repeat 3
    _record(repo, [tasks["extra-02"]], "g-old")  # ... by another grader
    sel = _select(repo)
    # Re-recording keeps what CI verified: still changed, until a CI sample verifies it.
    assert sel.changed == ("extra-01", "extra-02")
    assert sel.reproduced == ("extra-01",)
    plan = sel.negatives({s: ("cover",) for s in SENTINELS})
    assert plan["extra-01"] == ()  # R0 and the reference, no negative
    assert "extra-02" not in plan  # another grader's record: admitted whole
    assert plan[sentinel] == ("cover",) and set(sel.partial) == SENTINELS  # keeps its cover
    assert "1 by R0 and reference alone" in sel.describe()
    # Under another grader nothing is current: every changed task whole, and so is the
    # changed sentinel; the unchanged sentinels keep their covering negatives.
    other = _select(repo, grader="g-next")
    assert other.reproduced == () and set(other.partial) == SENTINELS - {sentinel}
    # The whole suite and named tasks: every admission whole.
    assert _select(repo, {"PWB_ADMIT_ALL": "1"}).negatives({}) == {}
    assert _select(repo, {"PWB_ADMIT_TASKS": "extra-01"}).negatives({}) == {}


def test_a_passing_ci_sample_marks_what_it_verified_from_a_committed_package(
    repo: Path,
) -> None:
    for task in ("extra-00", "extra-01", "extra-02", "extra-03"):
        _edit(repo, task)
    sentinel = sorted(SENTINELS)[1]
    _edit(repo, sentinel)
    _record(repo, _load(repo), GRADER)
    _commit(repo, "four extras and a sentinel changed, re-admitted")
    # A package committed anew after it was admitted is not the one verified.
    stale = _load(repo)[IDS.index("extra-00")]
    _edit(repo, "extra-00")
    _commit(repo, "extra-00 changed again while the sample ran")
    assert mark_ci_verified(repo, [stale]) == []
    # Then the work tree differs from the commit: a modified file, an untracked one, an
    # ignored one (what a clean clone would not have).
    _edit(repo, "extra-01")
    (repo / "tasks" / "extra-02" / "repo" / "new.html").write_text("<p>new</p>")
    (repo / "tasks" / "extra-03" / "repo" / "node_modules").mkdir()
    (repo / "tasks" / "extra-03" / "repo" / "node_modules" / "x.js").write_text("1")
    assert committed_as_is(repo, IDS) == set(IDS) - {"extra-01", "extra-02", "extra-03"}
    before = _select(repo).changed
    assert before == ("extra-00", "extra-01", "extra-02", "extra-03")
    tasks = _load(repo)
    assert mark_ci_verified(repo, tasks) == sorted(["extra-00", sentinel])
    assert _select(repo).changed == ("extra-01", "extra-02", "extra-03")
    assert mark_ci_verified(repo, tasks) == []  # nothing new: the file is not rewritten
    record = load_record(record_path(repo / "tasks"))
    assert record.tasks["extra-00"].ci_verified == tasks[IDS.index("extra-00")].contract_hash
    # Below the repository's top, or outside any, git's paths are not the tasks': none.
    assert committed_as_is(repo / "tasks", IDS) == set()
    shutil.copytree(repo / "tasks", repo.parent / "plain" / "tasks")
    assert committed_as_is(repo.parent / "plain", IDS) == set()


def test_pwb_admit_base_takes_the_changed_tasks_from_git(repo: Path) -> None:
    from orchestrator.admission import changed_since

    base = _git(repo, "rev-parse", "HEAD")
    assert changed_since(repo, base) == set()
    _edit(repo, "extra-01")  # uncommitted
    (repo / "tasks" / "extra-02" / "new.txt").write_text("untracked")
    record = record_path(repo / "tasks")
    record.write_text(record.read_text() + " ")  # the record is not a task
    assert changed_since(repo, base) == {"extra-01", "extra-02"}
    assert changed_since(repo, "0" * 40) is None  # an unknown base
    sel = _select(repo, {"PWB_ADMIT_BASE": base})
    # The two changed tasks take the window's place (size 1): no window this run.
    assert sel.changed == ("extra-01", "extra-02") and sel.sampled == ()
    assert set(sel.admitted) == {*SENTINELS, "extra-01", "extra-02"}
    # A window of 3 keeps one place beside them.
    three = ci_selection([*SENTINELS, *EXTRA], 0, size=3, changed=["extra-04", "extra-09"])
    assert len(three.sampled) == 1 and three.changed == ("extra-04", "extra-09")
    assert "extra-01, extra-02" in sel.describe()
    # A base git does not know admits every task: the safe side.
    bad = _select(repo, {"PWB_ADMIT_BASE": "nope"})
    assert set(bad.admitted) == set(IDS) and bad.left_out == ()


def test_no_file_names_the_commit_ci_compares_with() -> None:
    """`.ci/landed` had to be edited to the last main that landed; nothing replaces it."""
    assert not (ROOT / ".ci" / "landed").exists()
    suite = "".join(f.read_text() for f in (ROOT / "orchestrator" / "admission").glob("*.py"))
    assert suite and ".ci/landed" not in suite


def test_every_shipped_task_has_a_recorded_admission_of_its_current_contract() -> None:
    """No task changes unadmitted: a changed package needs `admit --repeat 3 --record`."""
    from orchestrator.admission import load_record, record_path, unadmitted

    shipped = [load_task(p) for p in discover_tasks(ROOT / "tasks")]
    record = load_record(record_path(ROOT / "tasks"))
    assert unadmitted(shipped, record) == []
    for t in shipped:
        got = record.tasks[t.contract.id]
        assert got.repeat >= 3 and all(c.ok for c in got.controls), t.contract.id
        names = {c.control for c in got.controls}
        assert names == {"reference", "r0", *(f"negative:{n.name}" for n in t.contract.negatives)}
