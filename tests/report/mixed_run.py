"""A `mixed` sweep over every shipped task package without Docker or a browser: the real
sweep (CLI, scheduler, staged and full-spec cells, the baseline channel, the manifest)
with the cells on the fake sandbox and the oracle verifier (`tests.oracle`), which
grades from the work tree. Three seeded `mixed` solvers stand in for models, with the
controls beside them: completions with and without breaks, flips repaired and not,
baseline regressions, budget stops, twins.

It takes minutes (270 cells of git work trees), so its manifest is recorded in
`fixtures/mixed-run/` (`python -m tests.report.mixed_run` writes it again) and read by
the fast `test_report_sql.py`; `test_mixed_sweep.py` (full tier) checks that a fresh
fake sweep still produces exactly the recorded results, and runs the same sweep with
real Docker and Chromium.
"""

from __future__ import annotations

import gzip
import json
import shutil
import sys
import tempfile
from pathlib import Path

import msgspec
import pytest

from orchestrator.cli import main
from orchestrator.contract import discover_tasks, load_task
from orchestrator.records import read_rows
from orchestrator.solver_cards import read_cards
from tests.fakesweep import fake_engine
from tests.oracle import OracleVerifier
from tests.report.sql_run import SqlRun

ROOT = Path(__file__).resolve().parents[2]
RECORDED = Path(__file__).resolve().parent / "fixtures" / "mixed-run"
MIXED = ("mixed-a", "mixed-b", "mixed-c")

BENCH = """
[sweep]
name = "mixed"
runs_dir = "{runs}"
tasks_dir = "{tasks}"
arms = ["staged", "full-spec"]
repeats = 1
concurrency = {concurrency}
backend = "{backend}"
baseline = true
{extra}

[[solvers]]
name = "mixed-a"
kind = "mixed"

[[solvers]]
name = "mixed-b"
kind = "mixed"

[[solvers]]
name = "mixed-c"
kind = "mixed"

[[solvers]]
name = "reference"
kind = "reference"
arms = ["staged"]

[[solvers]]
name = "noop"
kind = "noop"
arms = ["staged"]

[[solvers]]
name = "thrash"
kind = "thrash"
arms = ["staged"]
"""


def mixed_bench(
    tmp: Path,
    *,
    backend: str = "local",
    concurrency: int = 8,
    extra: str = "",
    path: Path | None = None,
) -> Path:
    """The `mixed` sweep's config, written to `path` (default `tmp/bench.toml`)."""
    path = path or tmp / "bench.toml"
    path.write_text(
        BENCH.format(
            runs=tmp / "runs",
            tasks=ROOT / "tasks",
            backend=backend,
            concurrency=concurrency,
            extra=extra,
        )
    )
    return path


def _twins() -> dict[str, str]:
    twins = {}
    for root in discover_tasks(ROOT / "tasks"):
        twin_of = load_task(root).contract.twin_of
        if twin_of is not None:
            twins[root.name] = twin_of
    return twins


def as_sql_run(run_dir: Path) -> SqlRun:
    """The run's current rows, solver cards and twins, as the SQL test reads a run."""
    rows = {r.cell: r for r in read_rows(run_dir / "manifest.jsonl")}  # the latest per cell
    return SqlRun(rows=list(rows.values()), cards=read_cards(run_dir), twins=_twins())


def recorded_run(recorded: Path = RECORDED) -> SqlRun:
    """A recorded run: by default the fake `mixed` sweep (see the module docstring)."""
    with tempfile.TemporaryDirectory(prefix="pwb-mixed-") as tmp:
        run_dir = Path(tmp)
        with gzip.open(recorded / "manifest.jsonl.gz") as src:
            (run_dir / "manifest.jsonl").write_bytes(src.read())
        shutil.copyfile(recorded / "solvers.json", run_dir / "solvers.json")
        return as_sql_run(run_dir)


def restamped(manifest: bytes) -> bytes:
    """The recorded rows with each task's current contract hash. A re-admission changes a
    task's hash, and the report rightly leaves a stale row out (CI saw 99 of the 270 go);
    a test of how the report looks or is written, not of which rows are current, reads
    the whole recorded population this way."""
    hashes: dict[str, str] = {}
    out = []
    for line in manifest.splitlines():
        row = json.loads(line)
        if row["task"] not in hashes:
            hashes[row["task"]] = load_task(ROOT / "tasks" / row["task"]).contract_hash
        row["contract_hash"] = hashes[row["task"]]
        out.append(json.dumps(row, separators=(",", ":")).encode() + b"\n")
    return b"".join(out)


def record(run_dir: Path, to: Path = RECORDED) -> None:
    """Keep `run_dir`'s manifest and solver cards as the recorded run in `to`."""
    to.mkdir(parents=True, exist_ok=True)
    data = (run_dir / "manifest.jsonl").read_bytes()
    with gzip.GzipFile(to / "manifest.jsonl.gz", "wb", mtime=0) as out:
        out.write(data)
    shutil.copyfile(run_dir / "solvers.json", to / "solvers.json")


def fake_mixed_sweep(tmp: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fake sweep (no report: the tests build it from the rows)."""
    fake_engine(monkeypatch, verifier=OracleVerifier())
    config = mixed_bench(tmp)
    run_dir = tmp / "run"
    code = main(["--config", str(config), "--quiet", "--no-report", "--run-dir", str(run_dir)])
    assert code == 0
    return run_dir


def results(run: SqlRun) -> dict[str, bytes]:
    """What a run decided, per cell: status and result (not the times, hashes or paths)."""
    return {
        r.cell: msgspec.json.encode([r.status, r.result], order="deterministic") for r in run.rows
    }


def main_record() -> None:
    """`python -m tests.report.mixed_run`: run the fake sweep and record it."""
    with tempfile.TemporaryDirectory(prefix="pwb-mixed-") as tmp:
        mp = pytest.MonkeyPatch()
        try:
            run_dir = fake_mixed_sweep(Path(tmp), mp)
        finally:
            mp.undo()
        record(run_dir)
    print(f"recorded {RECORDED}", file=sys.stderr)


if __name__ == "__main__":
    main_record()
