"""The `mixed` sweep over all shipped task packages, for real (#37); full tier.

- The fake sweep (`mixed_run.py`: fake sandbox, oracle verifier) must still produce the
  recorded run the fast `test_report_sql.py` reads: same cells, same statuses, same
  results. A change that alters them re-records it (`python -m tests.report.mixed_run`).
- The same solvers with real Docker and Chromium: the report it writes agrees with the
  second computation (SQL over its manifest) on every comparison `test_report_sql.py`
  makes (`CHECKS` of `sql_check.py`). With `PWB_RECORD_MIXED=1` its report.md is copied to
  `tests/perf/results/mixed-sweep.md`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.report.mixed_run import (
    ROOT,
    as_sql_run,
    fake_mixed_sweep,
    mixed_bench,
    recorded_run,
    results,
)

pytestmark = pytest.mark.full


@pytest.mark.timeout(3600)
def test_the_fake_mixed_sweep_is_the_recorded_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fresh = results(as_sql_run(fake_mixed_sweep(tmp_path, monkeypatch)))
    recorded = results(recorded_run())
    assert fresh.keys() == recorded.keys()
    differ = sorted(c for c in fresh if fresh[c] != recorded[c])
    assert differ == [], f"{len(differ)} cell(s) differ, e.g. {differ[:3]}: re-record"


@pytest.mark.timeout(8 * 3600)
def test_the_mixed_sweep_on_docker_agrees_with_the_second_computation(
    require_docker: None, require_chromium: None, tmp_path: Path
) -> None:
    from tests.report.sql_check import CHECKS, database, report_of

    config = mixed_bench(tmp_path, backend="docker", concurrency=4)
    run_dir = tmp_path / "run"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "orchestrator", "--config", str(config), "--quiet"]
    done = subprocess.run(
        [*cmd, "--run-dir", str(run_dir)], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert (run_dir / "report.md").is_file() and (run_dir / "report" / "index.html").is_file()
    if os.environ.get("PWB_RECORD_MIXED") == "1":
        out = ROOT / "tests" / "perf" / "results" / "mixed-sweep.md"
        shutil.copyfile(run_dir / "report.md", out)
    run = as_sql_run(run_dir)
    assert len({r.task for r in run.rows}) == 30
    con = database(run, tmp_path / "manifest.jsonl")
    try:
        rep = report_of(run)
        for check in CHECKS.values():
            check(con, rep, run)
    finally:
        con.close()
