"""Every bad input is refused up front: one line naming it, a non-zero exit, and nothing
written (no run directory, no rows)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from orchestrator.cli import main
from tests.fixtures.tinytask import make_tiny_task

ROOT = Path(__file__).resolve().parents[2]

BENCH = """
[sweep]
name = "bad"
runs_dir = "{runs}"
tasks_dir = "{tasks}"
allow_unadmitted = true  # fixture tasks: never admitted
backend = "local"
baseline = false
{extra}

[[solvers]]
name = "reference"
kind = "reference"
"""


def _bench(tmp: Path, extra: str = "", tasks: Path | None = None) -> Path:
    if tasks is None:
        tasks = tmp / "tasks"
        if not tasks.exists():
            make_tiny_task(tasks)
    path = tmp / "bench.toml"
    path.write_text(BENCH.format(runs=tmp / "runs", tasks=tasks, extra=extra))
    return path


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(["--progress", "jsonl", "--no-report", *argv])
    return code, capsys.readouterr().err.strip()


CASES = [
    (("--tasks", "no-such-task"), "", "--tasks: 'no-such-task' matches no task"),
    (("--solvers", "gpt-7"), "", "--solvers: unknown solver 'gpt-7'"),
    (("--repeats", "0"), "", "sweep.repeats: expected a positive integer, got 0"),
    (("--concurrency", "-1"), "", "sweep.concurrency: expected a positive integer, got -1"),
    ((), "infra_retries = -1", "sweep.infra_retries: expected an integer >= 0, got -1"),
    ((), "sandbox_starts = 0", "sweep.sandbox_starts: expected a positive integer, got 0"),
    ((), "repeats = 0", "sweep.repeats: expected a positive integer, got 0"),
    ((), "cell_timeout_s = 0", "sweep.cell_timeout_s: expected seconds > 0, got 0"),
    ((), 'tasks = ["nothing-*"]', "sweep.tasks: 'nothing-*' matches no task"),
]


@pytest.mark.parametrize(("argv", "extra", "message"), CASES)
def test_bad_value_is_one_line_and_a_non_zero_exit(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    argv: tuple[str, ...],
    extra: str,
    message: str,
) -> None:
    config = _bench(tmp_path, extra)
    run_dir = tmp_path / "run"
    code, err = _run(capsys, "--config", str(config), "--run-dir", str(run_dir), *argv)
    assert code == 2 and message in err, err
    assert len(err.splitlines()) == 1, err
    assert not run_dir.exists()  # nothing was started


def test_missing_tasks_dir(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = _bench(tmp_path, tasks=tmp_path / "nowhere")
    code, err = _run(capsys, "--config", str(config), "--run-dir", str(tmp_path / "run"))
    assert code == 2 and err == f"sweep.tasks_dir: no such directory: {tmp_path / 'nowhere'}"


def test_resume_of_a_directory_that_is_not_a_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _bench(tmp_path)
    typo = tmp_path / "runs" / "my-sweep-2O260101"  # mistyped: does not exist
    code, err = _run(capsys, "--config", str(config), "--resume", str(typo))
    assert code == 2 and err == f"--resume {typo}: not a run directory (no manifest.jsonl)"
    assert not typo.exists()  # no fresh sweep started in its place
    (tmp_path / "empty").mkdir()
    code, err = _run(capsys, "--config", str(config), "--resume", str(tmp_path / "empty"))
    assert code == 2 and "not a run directory" in err


def test_bad_input_through_the_real_command_line(tmp_path: Path) -> None:
    config = _bench(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "orchestrator", "--config", str(config), "--tasks", "typo"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.strip().startswith("--tasks: 'typo' matches no task")
    assert not (tmp_path / "runs").exists()
