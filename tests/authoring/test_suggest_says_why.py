"""`suggest` with nothing to propose says why: no evidence yet, or every check it would
propose is already in task.toml (#54: an author, running it again after pasting its checks,
was told to "capture R0 first" though the evidence was there)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from orchestrator.authoring import scaffold, suggest
from orchestrator.commands import suggest as command
from orchestrator.contract import load_task
from tests.authoring.evidence import token_evidence


def _run(root: Path) -> int:
    args = argparse.Namespace(
        task=str(root), tasks_dir=root.parent, negatives=False, nav_boxes=False
    )
    return command.run(args)


def test_without_evidence_it_asks_for_a_capture(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "demo"
    scaffold(root, "demo", "static")
    assert _run(root) == 1
    assert "no evidence/r0 (run capture first)" in capsys.readouterr().err


def test_once_its_checks_are_pasted_it_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "demo"
    scaffold(root, "demo", "static")
    for s in load_task(root).contract.states:
        token_evidence(root, "r0", s.id, [(1, "h2", "color", "--accent")])
    toml, _ = suggest(load_task(root))
    proposed = toml.count("[[checks]]")
    assert proposed > 0
    assert _run(root) == 0
    capsys.readouterr()
    task_toml = root / "task.toml"
    task_toml.write_text(task_toml.read_text(encoding="utf-8") + "\n" + toml, encoding="utf-8")
    assert _run(root) == 1
    err = capsys.readouterr().err
    assert f"nothing new to suggest: the {proposed} check(s) it proposes" in err
    assert "capture" not in err.strip().splitlines()[-1]
