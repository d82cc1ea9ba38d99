"""Greenfield twins (`twin_of`, issue #24): a build task that reaches a Change task's end
state from an empty baseline, with as many stages and reworks. The field is checked
against the suite the twin ships in, and adding it left every stored hash as it was."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from orchestrator.admission import composition, suite_twin_problems
from orchestrator.commands.admit import _load as admit_load
from orchestrator.contract import (
    ContractError,
    Unit,
    contract_hash,
    decode_contract,
    load_task,
    twin_problems,
)
from tests.fixtures.tinytask import make_tiny_task

ROOT = Path(__file__).resolve().parents[2]

GOLDEN_TOML = """
id = "golden"
regime = "change"
capability = "edit"
facet = "content"
stack = "static"
framework = "vanilla"
allowed_paths = ["*.html"]
[serve]
start = "python3 -m http.server $PORT"
[[states]]
id = "home"
route = "/"
actions = [{ do = "click", selector = "#go" }]
[[checks]]
id = "c1"
gate = "text"
state = "home"
assert = { kind = "text_equals", selector = "h1", value = "Hi" }
describe = "The headline says Hi."
[[units]]
id = "u1"
request = "Say hi."
checks = ["c1"]
[[negatives]]
name = "n1"
expect_fail = ["text"]
why = "says bye"
"""
# contract_hash of GOLDEN_TOML with repo/index.html = "<h1>Hello</h1>", computed by the
# code before `twin_of` existed (b35a648). Manifest rows, baseline caches and recorded
# admissions store hashes: a new optional contract field must not change them.
GOLDEN_HASH = "0af2e2eb7bcb9bc7416b91d4fa70806dc39917a82f4dac9f1fd0cc7b29745b21"


def _golden(tmp_path: Path, extra: str = "") -> str:
    (tmp_path / "repo").mkdir(exist_ok=True)
    (tmp_path / "repo" / "index.html").write_text("<h1>Hello</h1>")
    return contract_hash(tmp_path, decode_contract(extra + GOLDEN_TOML, "golden"))


def test_a_contract_without_a_twin_keeps_the_hash_it_had_before_the_field(
    tmp_path: Path,
) -> None:
    assert _golden(tmp_path) == GOLDEN_HASH


def test_naming_a_twin_source_changes_the_hash(tmp_path: Path) -> None:
    one = _golden(tmp_path, 'twin_of = "a"\n')
    assert one != GOLDEN_HASH
    assert _golden(tmp_path, 'twin_of = "b"\n') not in (one, GOLDEN_HASH)


def _edit(root: Path, old: str, new: str) -> None:
    toml = root / "task.toml"
    text = toml.read_text()
    assert old in text
    toml.write_text(text.replace(old, new, 1))


def _twin(parent: Path, source: str = "tiny-shop", name: str = "tiny-shop-twin") -> Path:
    root = make_tiny_task(parent, name)
    _edit(root, 'regime = "change"', f'twin_of = "{source}"\nregime = "build"')
    _edit(root, 'capability = "edit"', 'capability = "build"')
    _edit(root, 'facet = "content"', 'facet = "construction"')
    return root


def test_a_twin_of_a_change_task_with_matched_units_is_valid(tmp_path: Path) -> None:
    source = load_task(make_tiny_task(tmp_path))
    twin = load_task(_twin(tmp_path))
    assert twin.contract.twin_of == "tiny-shop"
    assert suite_twin_problems([source, twin]) == []
    # Named alone, the twin is checked against the task beside it.
    assert suite_twin_problems([twin]) == []


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ('regime = "build"', 'regime = "change"', "expected only on a build task"),
        ('twin_of = "tiny-shop"', 'twin_of = "tiny-shop-twin"', "expected the id of another"),
    ],
)
def test_what_the_twin_package_alone_can_say_is_checked_at_load(
    tmp_path: Path, old: str, new: str, expected: str
) -> None:
    root = _twin(tmp_path)
    _edit(root, old, new)
    with pytest.raises(ContractError) as info:
        load_task(root)
    assert len(info.value.problems) == 1
    assert info.value.problems[0].startswith(f"{root / 'task.toml'}:twin_of: {expected}")


def test_the_source_must_be_a_change_task_of_the_suite_with_the_same_units(
    tmp_path: Path,
) -> None:
    source = load_task(make_tiny_task(tmp_path)).contract
    twin = load_task(_twin(tmp_path)).contract
    where = "tasks/t/task.toml"
    missing = twin_problems(twin, where, {})
    assert missing == [f"{where}:twin_of: expected the id of a task in the suite, got 'tiny-shop'"]
    build = msgspec.structs.replace(source, regime="build")
    assert twin_problems(twin, where, {"tiny-shop": build}) == [
        f"{where}:twin_of: expected a change task, got 'tiny-shop' (regime build)"
    ]
    # Same number of units, but a rework in place of a stage: not matched.
    units = (*source.units[:2], Unit(id="u3", kind="rework", request="r", checks=("nav-entries",)))
    reworked = msgspec.structs.replace(source, units=units)
    assert twin_problems(twin, where, {"tiny-shop": reworked}) == [
        f"{where}:twin_of: expected a change task with 3 stages and 0 reworks like this twin, "
        "got 'tiny-shop' with 2 stages and 1 rework"
    ]
    shorter = msgspec.structs.replace(source, units=source.units[:2])
    assert "with 2 stages and 0 reworks" in twin_problems(twin, where, {"tiny-shop": shorter})[0]
    assert twin_problems(twin, where, {"tiny-shop": source}) == []
    assert twin_problems(source, where, {}) == []  # not a twin: nothing to check


def _cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "orchestrator", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_tasks_lists_twin_pairs_and_rejects_a_dangling_or_mismatched_twin(
    tmp_path: Path,
) -> None:
    make_tiny_task(tmp_path)
    twin = _twin(tmp_path)
    out = _cli("tasks", "--tasks-dir", str(tmp_path))
    assert out.returncode == 0, out.stderr
    assert "twin_of=tiny-shop" in out.stdout
    assert "greenfield twins of change tasks: 1 (tiny-shop-twin -> tiny-shop)" in out.stdout
    # The source loses a unit: `tasks`, `lint` and `admit` refuse the twin, one line each.
    _edit(tmp_path / "tiny-shop", 'id = "u3"', 'id = "u3"\nkind = "rework"')
    line = (
        f"{twin / 'task.toml'}:twin_of: expected a change task with 3 stages and 0 reworks "
        "like this twin, got 'tiny-shop' with 2 stages and 1 rework"
    )
    for cmd, code in (("tasks", 1), ("lint", 2)):
        out = _cli(cmd, "--tasks-dir", str(tmp_path))
        assert out.returncode == code, (cmd, out.stdout, out.stderr)
        assert line in out.stderr.splitlines(), (cmd, out.stderr)
    # `admit` loads its tasks the same way before it starts anything.
    args = argparse.Namespace(tasks=["tiny-shop-twin"], tasks_dir=tmp_path)
    with pytest.raises(ContractError) as info:
        admit_load(args)
    assert info.value.problems == [line]
    # A twin of a task that is not in the suite.
    _edit(twin, 'twin_of = "tiny-shop"', 'twin_of = "tiny-shoppe"')
    out = _cli("tasks", "tiny-shop-twin", "--tasks-dir", str(tmp_path))
    assert out.returncode == 1
    assert f"{twin / 'task.toml'}:twin_of: expected the id of a task in the suite" in out.stderr


def test_composition_counts_only_twins_of_change_tasks_in_the_set(tmp_path: Path) -> None:
    source = load_task(make_tiny_task(tmp_path)).contract
    twin = load_task(_twin(tmp_path)).contract
    other = load_task(_twin(tmp_path, name="tiny-shop-twin2")).contract
    last = composition([source, twin, other]).splitlines()[-2]
    assert last == (
        "greenfield twins of change tasks: 2 "
        "(tiny-shop-twin -> tiny-shop; tiny-shop-twin2 -> tiny-shop)"
    )
    assert composition([twin]).splitlines()[-2] == "greenfield twins of change tasks: 0"
