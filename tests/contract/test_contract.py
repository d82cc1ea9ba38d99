from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from orchestrator.contract import ContractError, load_task
from tests.fixtures.tinytask import make_tiny_task


def _edit(root: Path, old: str, new: str) -> None:
    toml = root / "task.toml"
    text = toml.read_text()
    assert old in text
    toml.write_text(text.replace(old, new, 1))


def test_valid_task_loads_with_preservation_checks(tmp_path: Path) -> None:
    task = load_task(make_tiny_task(tmp_path))
    assert task.contract.effective_persona == "pm"
    assert task.contract.preservation_check_ids() == ("nav-entries", "items-order")
    assert len(task.contract_hash) == 64


def test_every_cross_reference_problem_is_reported_at_once(tmp_path: Path) -> None:
    root = make_tiny_task(tmp_path)
    _edit(root, 'state = "about"', 'state = "nowhere"')
    _edit(root, 'checks = ["plums-listed"]', 'checks = ["no-such-check"]')
    _edit(root, 'route = "/about.html"', 'route = "/about.html"\nfrom = "about"')
    (root / "negatives" / "drop-about.patch").unlink()
    with pytest.raises(ContractError) as info:
        load_task(root)
    problems = info.value.problems
    where = str(root / "task.toml")
    assert f"{where}:checks[3].state: expected a known state id, got 'nowhere'" in problems
    assert f"{where}:units[2].checks[0]: expected a known check id, got 'no-such-check'" in problems
    assert any("states[1].from: expected no cycle" in p for p in problems)
    assert any("negatives[0].name: expected a patch file" in p for p in problems)
    assert len(problems) == 4


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ('route = "/"', 'route = "/"\nviewport = "watch"', "states[0].viewport: expected one of"),
        (
            'route = "/"',
            'route = "/"\nstatus = 4040',
            "states[0].status: expected an HTTP status from 100 to 599, got 4040",
        ),
        ('gate = "text"', 'gate = "txt"', "checks[2].gate: invalid enum value 'txt'"),
        (
            "turns_per_unit = 3",
            'turns_per_unit = "three"',
            "turns_per_unit: expected `int`, got `str`",
        ),
        (
            'title = "Tiny shop"',
            'title = "Tiny shop"\ncolour = "red"',
            "object contains unknown field `colour`",
        ),
        ('gate = "text"', 'gate = "console"', "checks[2].gate: expected an authored gate"),
        (
            'kind = "text_equals", selector = "#greeting", value = "Welcome back"',
            'kind = "text_regex", selector = "#greeting", pattern = "Welcome (back"',
            "checks[2].assert.pattern: expected a Python regex (missing ), unterminated subpattern",
        ),
        (
            'kind = "text_equals", selector = "#greeting", value = "Welcome back"',
            'kind = "value", selector = "#greeting", regex = "*"',
            "checks[2].assert.regex: expected a Python regex (nothing to repeat",
        ),
    ],
)
def test_bad_values_name_file_and_key(tmp_path: Path, old: str, new: str, expected: str) -> None:
    root = make_tiny_task(tmp_path)
    _edit(root, old, new)
    with pytest.raises(ContractError) as info:
        load_task(root)
    text = str(info.value)
    assert text.startswith(str(root / "task.toml") + ":"), text
    assert expected.lower() in text.lower(), text


def test_contract_hash_covers_every_package_file(tmp_path: Path) -> None:
    root = make_tiny_task(tmp_path)
    before = load_task(root).contract_hash
    (root / "repo" / "about.html").write_text("changed")
    assert load_task(root).contract_hash != before


def test_contract_hash_covers_the_evidence(tmp_path: Path) -> None:
    """A re-captured render or fingerprint is a new contract (DESIGN §3): old rows go stale."""
    root = make_tiny_task(tmp_path)
    (root / "evidence" / "reference").mkdir(parents=True, exist_ok=True)
    (root / "evidence" / "reference" / "home.png").write_bytes(b"render 1")
    before = load_task(root).contract_hash
    (root / "evidence" / "reference" / "home.png").write_bytes(b"render 2")
    after = load_task(root).contract_hash
    assert after != before
    (root / "evidence" / "env.json").write_text("{}")
    assert load_task(root).contract_hash not in (before, after)


def test_tasks_command_exits_nonzero_on_invalid_task(tmp_path: Path) -> None:
    make_tiny_task(tmp_path, "good-task")
    bad = make_tiny_task(tmp_path, "bad-task")
    _edit(bad, 'state = "about"', 'state = "nowhere"')
    cmd = [sys.executable, "-m", "orchestrator", "tasks", "--tasks-dir", str(tmp_path)]
    out = subprocess.run(cmd, capture_output=True, text=True)
    assert out.returncode == 1
    assert "good-task" in out.stdout
    assert "checks[3].state: expected a known state id, got 'nowhere'" in out.stderr
