"""Hostile strings reach no terminal raw and no Markdown as HTML (#36 item 6).

A name, an error or a page's text can carry terminal escape sequences (retitle the
window, clear the screen, hide a line with `\\r`), NUL or bidi overrides, and `<script>`.
Every command's stdout and stderr escape control characters; `report.md` escapes HTML
(the HTML report did already).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from orchestrator.cli import main
from orchestrator.contract import printable
from tests.report.report_run import make_task, row, scores

ROOT = Path(__file__).resolve().parents[2]
ESC = "\x1b]0;pwned\x07\x1b[2J\x1b[31m\r\u202e\x85"


def test_printable_escapes_controls_and_keeps_text_and_json() -> None:
    assert printable("café\tnaïve\n") == "café\tnaïve\n"
    out = printable(ESC)
    assert out.isprintable() and "\\x1b" in out and "\\u202e" in out
    line = msgspec.json.encode({"e": ESC}).decode()
    assert msgspec.json.decode(printable(line)) == {"e": ESC}  # a JSON line stays the same JSON


def test_a_command_never_writes_a_control_character_to_the_terminal(tmp_path: Path) -> None:
    """`tasks` names the folder it was given: the folder's name is hostile."""
    hostile = tmp_path / f"tasks{ESC}"
    hostile.mkdir()
    proc = subprocess.run(
        [sys.executable, "-m", "orchestrator", "tasks", "--tasks-dir", str(hostile)],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1
    (line,) = proc.stderr.splitlines()
    assert line.endswith(": no task.toml found") and "\\x1b]0;pwned\\x07" in line
    assert line.isprintable() and "\r" not in proc.stderr


def test_in_process_output_is_escaped_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hostile = tmp_path / f"t{ESC}"
    hostile.mkdir()
    assert main(["tasks", "--tasks-dir", str(hostile)]) == 1
    err = capsys.readouterr().err
    assert err.isprintable() is False and err.rstrip("\n").isprintable()
    print(ESC)  # the streams are given back after the command
    assert capsys.readouterr().out == ESC + "\n"


def test_report_md_escapes_html_and_control_characters(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks"
    hashes = {"t1": make_task(tasks, "t1", "edit")}
    # A cell key cannot hold `/` or control characters (the report refuses the row); the
    # run directory's name, in the report's title, can.
    tag = "<img src=x onerror=alert(1)>"
    rows = [
        row("t1", tag, "staged", 0, hashes, scores=scores(1.0, 1.0, 1.0)),
        row("t1", tag, "staged", 1, hashes, status="harness_error", error=f"<script>{ESC}"),
    ]
    run = tmp_path / f"run{ESC}<script>"
    run.mkdir()
    (run / "manifest.jsonl").write_bytes(b"".join(msgspec.json.encode(r) + b"\n" for r in rows))
    assert main(["report", str(run), "--tasks-dir", str(tasks)]) == 0
    md = (run / "report.md").read_text()
    assert "&lt;img src=x onerror=alert(1)&gt;" in md and "\\x1b]0;pwned" in md
    assert "<script" not in md and "<img" not in md
    assert not any(ch in md for ch in "\x1b\x07\r\u202e\x85"), "a control character in report.md"
    html = (run / "report" / "index.html").read_text()
    assert "<script" not in html and "<img src=x" not in html
