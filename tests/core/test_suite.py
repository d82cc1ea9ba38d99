"""The suite as a whole: `tasks` prints its composition (regime × capability × facet ×
stack); CI admits the sentinels, the changed tasks and a rotating window of the others
that covers every task within `windows` rotations (orchestrator/suite.py), and every
task's current contract has a recorded admission (tasks/ADMISSION.json)."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import msgspec
import pytest

from orchestrator.authoring import scaffold
from orchestrator.contract import Contract, Negative, Unit, discover_tasks, load_task
from orchestrator.suite import (
    SENTINELS,
    ci_selection,
    ci_selection_from_env,
    composition,
    sentinel_gaps,
    sentinel_negatives,
    suite_twin_problems,
)

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
        stack="astro",
        negatives=(Negative(name="n", expect_fail=("network",), why="w"),),
    )
    assert sentinel_gaps([*shipped, new]) == ["stack astro", "gate network"]
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


def test_the_changed_tasks_are_those_whose_package_differs_from_the_base(tmp_path: Path) -> None:
    from orchestrator.suite import changed_since

    ids = [*SENTINELS, *EXTRA]
    for i in ids:
        (tmp_path / "tasks" / i).mkdir(parents=True)
        (tmp_path / "tasks" / i / "task.toml").write_text(f"id = '{i}'\n")
    (tmp_path / "tasks" / "ADMISSION.json").write_text("{}")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    base = _git(tmp_path, "rev-parse", "HEAD")
    assert changed_since(tmp_path, base) == set()
    (tmp_path / "tasks" / "extra-04" / "task.toml").write_text("id = 'changed'\n")  # uncommitted
    (tmp_path / "tasks" / "extra-09" / "new.txt").write_text("untracked")
    (tmp_path / "tasks" / "ADMISSION.json").write_text("{} ")  # the record is not a task
    assert changed_since(tmp_path, base) == {"extra-04", "extra-09"}
    assert changed_since(tmp_path, "0" * 40) is None  # an unknown base
    day = datetime(2026, 12, 2, tzinfo=UTC)
    (tmp_path / ".ci").mkdir()
    (tmp_path / ".ci" / "landed").write_text(base + "\n")
    sel = ci_selection_from_env(ids, env={}, now=day, root=tmp_path)
    # The two changed tasks take the window's place (size 1): no window this run.
    assert sel.changed == ("extra-04", "extra-09") and sel.sampled == ()
    assert set(sel.admitted) == {*SENTINELS, "extra-04", "extra-09"}
    assert not {"extra-04", "extra-09"} & {*sel.sampled, *sel.left_out}
    # A window of 3 keeps one place beside them, the rotation's first.
    three = ci_selection_from_env(ids, env={"PWB_ADMIT_SAMPLE": "3"}, now=day, root=tmp_path)
    assert len(three.sampled) == 1 and three.changed == sel.changed
    # The whole suite is the whole suite, changed tasks or not.
    every = ci_selection_from_env(ids, env={"PWB_ADMIT_ALL": "1"}, now=day, root=tmp_path)
    assert set(every.admitted) == set(ids)
    assert "extra-04, extra-09" in sel.describe()
    # A base git does not know, or none at all, admits every task: the safe side.
    bad = ci_selection_from_env(ids, env={"PWB_ADMIT_BASE": "nope"}, now=day, root=tmp_path)
    assert set(bad.admitted) == set(ids) and bad.left_out == ()
    (tmp_path / ".ci" / "landed").unlink()
    assert set(ci_selection_from_env(ids, env={}, now=day, root=tmp_path).admitted) == set(ids)


def test_every_shipped_task_has_a_recorded_admission_of_its_current_contract() -> None:
    """No task changes unadmitted: a changed package needs `admit --repeat 3 --record`."""
    from orchestrator.admission_record import load_record, record_path, unadmitted

    shipped = [load_task(p) for p in discover_tasks(ROOT / "tasks")]
    record = load_record(record_path(ROOT / "tasks"))
    assert unadmitted(shipped, record) == []
    for t in shipped:
        got = record.tasks[t.contract.id]
        assert got.repeat >= 3 and all(c.ok for c in got.controls), t.contract.id
        names = {c.control for c in got.controls}
        assert names == {"reference", "r0", *(f"negative:{n.name}" for n in t.contract.negatives)}
