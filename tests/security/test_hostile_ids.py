"""Hostile task packages are data (#36 item 2): every id is one plain path component.

A task package is an adversary: an id of `../`, an absolute path, NUL, terminal escapes
or 10 MB must be refused at load, before any path is built from it, with one line that
names the field, the file and the value (escaped and cut), and `tasks`, `admit` and
`report` exit non-zero on it. No link in the package may make grading read a file the
contract hash does not cover.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from orchestrator.contract import ContractError, load_task
from orchestrator.records import TaskLabels
from tests.fixtures.tinytask import make_tiny_task
from tests.rows import manifest_row

ROOT = Path(__file__).resolve().parents[2]

# TOML basic-string spellings of the attacks.
HOSTILE = {
    "dotdot": "../../../escape",
    "absolute": "/tmp/pwned",
    "nul": "u1\\u0000x",
    "escapes": "\\u001b]0;pwned\\u0007\\u001b[2J\\u001b[31mred",
    "huge": "a" * 10_000_000,
}
# (field as the error names it, the TOML line it replaces, what to write instead)
FIELDS = {
    "id": ('id = "tiny-shop"', 'id = "{v}"'),
    "stack": ('stack = "static"', 'stack = "{v}"'),
    "states[0].id": ('id = "home"', 'id = "{v}"'),
    "checks[0].id": ('id = "nav-entries"', 'id = "{v}"'),
    "checks[0].state": ('state = "home"', 'state = "{v}"'),
    "units[0].id": ('id = "u1"', 'id = "{v}"'),
    "units[0].checks[0]": ('checks = ["greeting-text"]', 'checks = ["{v}"]'),
    "negatives[0].name": ('name = "drop-about"', 'name = "{v}"'),
    "negatives[0].after_unit": ('why = "removes', 'after_unit = "{v}"\nwhy = "removes'),
}


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_tiny_task(tmp_path_factory.mktemp("template"))


def _hostile_task(template: Path, parent: Path, field: str, attack: str) -> Path:
    root = parent / template.name
    shutil.copytree(template, root)
    toml = root / "task.toml"
    old, new = FIELDS[field]
    text = toml.read_text()
    assert old in text
    toml.write_text(text.replace(old, new.format(v=HOSTILE[attack]), 1))
    return root


def _assert_one_safe_line(line: str, field: str) -> None:
    assert f"task.toml:{field}: expected a safe id" in line, line
    assert not any(not ch.isprintable() for ch in line), repr(line[:200])
    assert len(line) < 1000


# 10 MB takes tomllib a second: three fields are enough to show its size is cut.
CASES = [
    (f, a)
    for f in sorted(FIELDS)
    for a in sorted(HOSTILE)
    if a != "huge" or f in ("id", "states[0].id", "units[0].id")
]


@pytest.mark.parametrize(("field", "attack"), CASES)
def test_the_loader_refuses_a_hostile_id_in_every_field(
    template: Path, tmp_path: Path, field: str, attack: str
) -> None:
    root = _hostile_task(template, tmp_path, field, attack)
    with pytest.raises(ContractError) as err:
        load_task(root)
    named = [p for p in err.value.problems if f":{field}:" in p]
    assert len(named) == 1, err.value.problems
    _assert_one_safe_line(named[0], field)
    assert "\n" not in str(err.value).replace("\n", "", len(err.value.problems) - 1)


def test_no_reference_patch_is_read_from_outside_the_package(tmp_path: Path) -> None:
    """The admitted-with-an-outside-patch attack: a unit id `../../x` that named a real
    patch outside the package (which the contract hash did not cover)."""
    root = make_tiny_task(tmp_path / "tasks")
    outside = tmp_path / "evil.patch"
    outside.write_bytes((root / "reference" / "u1.patch").read_bytes())
    toml = root / "task.toml"
    toml.write_text(toml.read_text().replace('id = "u1"', 'id = "../../../evil"'))
    assert (root / "reference" / "../../../evil.patch").resolve() == outside.resolve()
    with pytest.raises(ContractError, match=r"units\[0\]\.id: expected a safe id"):
        load_task(root)


@pytest.mark.parametrize("where", ["reference", "reference/u1.patch", "evidence", "task.toml"])
def test_a_link_outside_repo_is_refused(tmp_path: Path, where: str) -> None:
    root = make_tiny_task(tmp_path / "tasks")
    target = tmp_path / "elsewhere"
    (target.parent / "keep").mkdir()
    real = root / where
    if real.exists():
        os.rename(real, target)
    else:
        target.mkdir()
    real.symlink_to(target)
    with pytest.raises(ContractError) as err:
        load_task(root)
    assert err.value.problems == [
        f"{root / 'task.toml'}: {where}: expected a file or folder, got a link"
    ]


def test_a_link_in_repo_may_point_inside_but_not_out(tmp_path: Path) -> None:
    root = make_tiny_task(tmp_path / "tasks")
    (root / "repo" / "home.html").symlink_to("index.html")
    load_task(root)  # an in-tree link of the site is the site's business
    (root / "repo" / "secret.html").symlink_to(tmp_path / "outside.html")
    with pytest.raises(ContractError, match=r"repo/secret\.html: expected a link inside"):
        load_task(root)


def test_the_contract_hash_covers_every_reference_patch(tmp_path: Path) -> None:
    root = make_tiny_task(tmp_path / "tasks")
    before = load_task(root)
    for unit in before.contract.units:
        patch = before.reference_patch(unit.id)
        assert patch.resolve().is_relative_to(root.resolve())
        patch.write_bytes(patch.read_bytes() + b"\n")
        assert load_task(root).contract_hash != before.contract_hash
        patch.write_bytes(patch.read_bytes()[:-1])
    assert load_task(root).contract_hash == before.contract_hash


def test_a_package_path_for_a_name_from_elsewhere_is_refused(tmp_path: Path) -> None:
    task = load_task(make_tiny_task(tmp_path / "tasks"))
    with pytest.raises(ContractError, match="expected a safe id"):
        task.negative_patch("../../../etc/passwd")
    with pytest.raises(ContractError, match="expected a safe id"):
        task.reference_patch("/etc/passwd")


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "orchestrator", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _problem_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "expected a safe id" in line]


@pytest.mark.parametrize("attack", sorted(HOSTILE))
def test_tasks_and_admit_refuse_a_hostile_id_with_one_line(
    template: Path, tmp_path: Path, attack: str
) -> None:
    field = "units[0].id" if attack != "escapes" else "id"
    root = _hostile_task(template, tmp_path / "tasks", field, attack)
    if attack == "escapes":  # the directory carries the same name: `tasks` lists it
        root = root.rename(root.parent / msgspec.json.decode(f'"{HOSTILE[attack]}"'.encode()))
    runs = [(_cli("tasks", "--tasks-dir", str(root.parent), cwd=tmp_path), 1)]
    if attack in ("dotdot", "escapes", "huge"):  # the same loader: three are enough
        runs.append((_cli("admit", str(root), "--out", str(tmp_path / "adm"), cwd=tmp_path), 2))
    for proc, code in runs:
        assert proc.returncode == code, proc.stderr[-2000:]
        assert "Traceback" not in proc.stderr
        (line,) = _problem_lines(proc.stderr)
        _assert_one_safe_line(line, field)
        assert "\x1b" not in proc.stdout + proc.stderr and "\x00" not in proc.stderr
    assert not (tmp_path / "adm").exists() or not any((tmp_path / "adm").iterdir())
    assert not list(tmp_path.glob("escape*")) and not Path("/tmp/pwned").exists()


def _labels() -> TaskLabels:
    return TaskLabels(
        regime="change", capability="edit", facet="content", stack="static", framework="html"
    )


@pytest.mark.parametrize("attack", ["dotdot", "escapes", "huge"])
def test_report_refuses_a_row_with_a_hostile_task_id(tmp_path: Path, attack: str) -> None:
    task = msgspec.json.decode(f'"{HOSTILE[attack]}"'.encode())  # the TOML escapes, decoded
    run = tmp_path / "run"
    run.mkdir()
    row = manifest_row(task, "reference", _labels())
    (run / "manifest.jsonl").write_bytes(msgspec.json.encode(row) + b"\n")
    proc = _cli("report", str(run), "--tasks-dir", str(tmp_path / "tasks"), cwd=tmp_path)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    (line,) = proc.stderr.splitlines()
    assert re.match(r".*manifest\.jsonl: a row's task: expected a safe id", line), line
    assert line.isprintable() and len(line) < 1000
    assert not (run / "report").exists() and not (run / "report.md").exists()
