"""The engine seam (#22): the single-host path never imports Ray; `ray` without Ray
installed is one clear line, not a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

NO_RAY = "import sys; sys.modules['ray'] = None\n"


def _py(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", NO_RAY + code], cwd=ROOT, capture_output=True, text=True
    )


def test_the_local_engine_runs_without_ray() -> None:
    done = _py(
        "import orchestrator.sweep, orchestrator.commands.run, orchestrator.sweep._engine\n"
        "assert 'orchestrator.sweep._ray' not in sys.modules\n"
    )
    assert done.returncode == 0, done.stderr


def test_engine_ray_without_ray_installed_names_the_fix(tmp_path: Path) -> None:
    (tmp_path / "tasks").mkdir()
    cfg = tmp_path / "bench.toml"
    cfg.write_text(
        f'[sweep]\nallow_unadmitted = true\ntasks_dir = "{tmp_path / "tasks"}"\n'
        f'runs_dir = "{tmp_path / "runs"}"\n'
        'backend = "local"\n[[solvers]]\nname = "noop"\nkind = "noop"\n'
    )
    from tests.fixtures.tinytask import make_tiny_task

    make_tiny_task(tmp_path / "tasks")
    argv = ["orchestrator", "--config", str(cfg), "--engine", "ray", "--quiet", "--no-report"]
    argv += ["--run-dir", str(tmp_path / "r")]
    done = _py(
        f"import runpy; sys.argv = {argv!r}\nrunpy.run_module('orchestrator', run_name='__main__')"
    )
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "engine 'ray': Ray is not installed" in done.stderr
    assert "pip install -e '.[ray]'" in done.stderr
    assert "Traceback" not in done.stderr
