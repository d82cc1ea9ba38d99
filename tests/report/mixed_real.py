"""The acceptance run of #55: a real `mixed` sweep (Docker, Chromium, the real grader)
sized to fit about two hours of this 2-core machine, recorded for the fast tier.

`REAL_TASKS` is the selection: 13 shipped tasks covering every stack, both regimes and
two complete greenfield twin pairs, the cheapest that do (fewest states and units: a
checkpoint replays every state). The solvers are `mixed_run.py`'s, seeds included: three
`mixed` solvers (`mixed-a`, `mixed-b`, `mixed-c`; each seeded by its name and the task,
so a cell always plays the same) in both arms, and the controls `reference`, `noop` and
`thrash` in the staged arm, with the baseline channel: 9 cells a task, 117 in all.

    python -m tests.report.mixed_real plan                    # the selection, cells, time
    python -m tests.report.mixed_real run --run-dir DIR       # the sweep (Docker)
    python -m tests.report.mixed_real run --run-dir DIR --resume   # after a stop
    python -m tests.report.mixed_real park DIR                # a sitting ends: commit it
    python -m tests.report.mixed_real unpark DIR              # the next one (any machine)
    python -m tests.report.mixed_real record DIR              # keep it (fixture + report)
    python -m tests.report.mixed_real check [FIXTURE]         # report vs SQL, every check

`run` writes the sweep's config into DIR (`DIR/mixed-real.toml`, read again by
`--resume`) and runs `python -m orchestrator` on it; a stop (Ctrl-C, exit 130, or a
stopped sweep, exit 3) is resumed by the same command with `--resume`, which runs only
the cells without a current row. `record` keeps the manifest and solver cards in
`fixtures/mixed-real/` (read by `test_report_sql.py`, its `real` population) and the
report in `tests/perf/results/mixed-real.md`; it refuses a run that is not the whole
selection on Docker. `run --fake` is the same pipeline without Docker (the fake sandbox
and the oracle verifier of `mixed_run.py`): with `record --to` and `check` it shows the
recording and the comparison work, and is never recorded as the real run.

The run takes longer than a sitting, and the next sitting may be on a fresh machine, where
`runs/` is gone. `park` keeps what `--resume` needs, and only that, in `fixtures/
mixed-real-parked/` (committed with the repository): the rows, the config, the run's
plan, the solver cards and the R0 baselines (about 20 kB); a cell's own folder (events,
trajectory, work tree) stays behind, so a parked cell has no cell page. `unpark DIR`
writes them into an empty DIR, and `run --run-dir DIR --resume` runs the cells without a
current row (a re-admitted task's rows are stale, so its cells run again). `record`
removes the parked copy.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from orchestrator.contract import Contract, discover_tasks, load_task
from orchestrator.records import read_rows
from tests.report.mixed_run import MIXED, RECORDED, ROOT, mixed_bench, recorded_run
from tests.report.sql_run import SqlRun

HERE = Path(__file__).resolve().parent
REAL_RECORDED = HERE / "fixtures" / "mixed-real"
REAL_REPORT = ROOT / "tests" / "perf" / "results" / "mixed-real.md"
REAL_PARKED = HERE / "fixtures" / "mixed-real-parked"
CONFIG_NAME = "mixed-real.toml"
# What `--resume` reads of a run directory, with the manifest (kept gzipped).
PARKED_FILES = (CONFIG_NAME, "run.json", "solvers.json")
CONCURRENCY = 4  # cells in flight on 2 cores (the full tier's Docker `mixed` sweep too)
MIN_TASKS = 12
MIN_TWIN_PAIRS = 2
CONTROLS = ("reference", "noop", "thrash")  # staged arm only (`mixed_run.BENCH`)

# Every stack, both regimes, two greenfield twin pairs (both members), 13 tasks; the
# cheapest that cover them (states x units per task, see `plan`). The twins:
# fernhill-save-tools (static) and brackenfold-kiln-classes (eleventy, which took the
# place of coworking-pricing-toggle's php pair when that stack landed: ashdown keeps php,
# and the pair is 48 state-checkpoints against 130). build-gig-board is a
# Build task that is no twin (twins are never pooled into Build: without it the Build
# rows would be empty) and the suite's cheapest vite task with it. The rest: the cheapest
# task of each other stack, then ashdown (a second repair task) and tanners-wharf (the
# regression facet), so every capability and facet has a task; tidemill-repair-sessions
# (astro) joined when that stack landed, as a 13th task (no other could leave without a
# facet or a stack).
REAL_TASKS: tuple[str, ...] = (
    "fernhill-save-tools",
    "build-fernhill-save-tools",
    "brackenfold-kiln-classes",
    "build-brackenfold-kiln-classes",
    "build-gig-board",
    "corran-point-boat-trips",
    "tanners-wharf-bike-kitchen",
    "orchard-harvest-content",
    "recipes-shared-components",
    "quillmere-bindery-tokens",
    "brindle-hill-badges",
    "ashdown-repair-cafe",
    "tidemill-repair-sessions",
)

# What issue #55 put at about 10 h of this machine: the 30-task, 270-cell `mixed` sweep
# at session 24's cost per verdict. The estimate scales it by the states replayed.
REFERENCE_HOURS = 10.0


@cache
def shipped(tasks_dir: Path = ROOT / "tasks") -> dict[str, Contract]:
    """Every shipped task's contract, by id."""
    return {r.name: load_task(r).contract for r in discover_tasks(tasks_dir)}


def coverage_problems(
    selection: Sequence[str], suite: dict[str, Contract] | None = None
) -> list[str]:
    """Why `selection` does not cover the shipped suite as #55 asks ([] when it does):
    >= 12 shipped tasks, every stack the suite has, both regimes, >= 2 twin pairs with
    both members."""
    suite = shipped() if suite is None else suite
    problems = [f"not a shipped task: {t}" for t in selection if t not in suite]
    chosen = [suite[t] for t in dict.fromkeys(selection) if t in suite]
    if len(chosen) < MIN_TASKS:
        problems.append(f"{len(chosen)} task(s): expected >= {MIN_TASKS}")
    for what, have, want in (
        ("stack", {c.stack for c in chosen}, {c.stack for c in suite.values()}),
        ("regime", {c.regime for c in chosen}, {"build", "change"}),
    ):
        if missing := sorted(want - have):
            problems.append(f"no task of {what}(s) {', '.join(missing)}")
    ids = {c.id for c in chosen}
    pairs = sorted((c.id, c.twin_of) for c in chosen if c.twin_of is not None)
    complete = [p for p in pairs if p[1] in ids]
    if len(complete) < MIN_TWIN_PAIRS:
        problems.append(
            f"{len(complete)} complete twin pair(s) {complete}: expected >= {MIN_TWIN_PAIRS}"
        )
    return problems


def _weight(c: Contract) -> int:
    """A task's grading cost, roughly: the states a checkpoint replays, times the
    checkpoints of a staged cell (one a unit, and the final one)."""
    return len(c.states) * (len(c.units) + 1)


def estimate_hours(selection: Iterable[str]) -> float:
    """Hours of this machine at #55's rate: `REFERENCE_HOURS` for the recorded fake
    sweep's tasks (`fixtures/mixed-run`), scaled by `_weight`."""
    suite = shipped()
    with gzip.open(RECORDED / "manifest.jsonl.gz") as src:
        reference = {json.loads(line)["task"] for line in src}
    total = sum(_weight(suite[t]) for t in reference if t in suite)
    return REFERENCE_HOURS * sum(_weight(suite[t]) for t in selection) / total


def cells_per_task() -> int:
    """The sweep's cells of one task: each `mixed` solver in both arms, each control in
    the staged arm (every selected task has the 3 units `thrash` needs)."""
    return 2 * len(MIXED) + len(CONTROLS)


def write_config(run_dir: Path, *, backend: str, concurrency: int) -> Path:
    run_dir.mkdir(parents=True, exist_ok=True)
    return mixed_bench(
        run_dir,
        backend=backend,
        concurrency=concurrency,
        path=run_dir / CONFIG_NAME,
    )


# ---------------------------------------------------------------------- the commands


def plan(_: argparse.Namespace) -> int:
    suite = shipped()
    for t in REAL_TASKS:
        c = suite[t]
        twin = f" twin_of={c.twin_of}" if c.twin_of else ""
        print(
            f"{t:34} {c.regime:6} {c.stack:7} units={len(c.units)} states={len(c.states):3}{twin}"
        )
    cells = cells_per_task() * len(REAL_TASKS)
    print(
        f"{len(REAL_TASKS)} tasks, {cells} cells (+ one R0 baseline a task); about "
        f"{estimate_hours(REAL_TASKS):.1f} h at #55's cost per verdict (the 30-task sweep "
        f"= {REFERENCE_HOURS:.0f} h), resumable"
    )
    for p in coverage_problems(REAL_TASKS):
        print(f"coverage: {p}", file=sys.stderr)
    return 0


def run(args: argparse.Namespace) -> int:
    run_dir: Path = args.run_dir.resolve()
    config = run_dir / CONFIG_NAME
    if args.resume:
        if not config.is_file():
            print(f"--resume: no {config} (start it without --resume)", file=sys.stderr)
            return 2
        flags = ["--resume", str(run_dir)]
    else:
        if (run_dir / "manifest.jsonl").exists():
            print(f"{run_dir} holds a run: continue it with --resume", file=sys.stderr)
            return 2
        backend = "local" if args.fake else "docker"
        write_config(run_dir, backend=backend, concurrency=args.concurrency)
        flags = ["--run-dir", str(run_dir), "--tasks", *REAL_TASKS]
    argv = ["--config", str(config), *flags]
    if args.fake:
        return _fake(argv)
    cmd = [sys.executable, "-m", "orchestrator", *argv]
    print("$ " + " ".join(cmd), file=sys.stderr)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    sweep = subprocess.Popen(cmd, cwd=ROOT, env=env)
    # Ctrl-C reaches the sweep too (one process group), which stops cleanly: writes its
    # rows, removes its containers, exits 130. This process waits for it (no kill).
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        code = sweep.wait()
    finally:
        signal.signal(signal.SIGINT, previous)
    if code in (3, 130):
        print(
            f"stopped (exit {code}): python -m tests.report.mixed_real run "
            f"--run-dir {run_dir} --resume",
            file=sys.stderr,
        )
    elif code == 0:
        print(f"recorded with: python -m tests.report.mixed_real record {run_dir}")
    return code


def _fake(argv: list[str]) -> int:
    """The sweep in this process, on the fake sandbox and the oracle verifier."""
    import pytest

    from orchestrator.cli import main
    from tests.fakesweep import fake_engine
    from tests.oracle import OracleVerifier

    mp = pytest.MonkeyPatch()
    try:
        fake_engine(mp, verifier=OracleVerifier())
        return main([*argv, "--quiet"])
    finally:
        mp.undo()


@dataclass(frozen=True)
class Refusal(Exception):
    why: str


def check_complete(run_dir: Path, *, backend: str) -> None:
    """`run_dir` is the whole selection, every cell on `backend`, with its report."""
    rows = {r.cell: r for r in read_rows(run_dir / "manifest.jsonl")}.values()
    tasks = {r.task for r in rows}
    if tasks != set(REAL_TASKS):
        raise Refusal(f"tasks {sorted(tasks ^ set(REAL_TASKS))} differ from REAL_TASKS")
    want = cells_per_task() * len(REAL_TASKS)
    if len(rows) != want:
        raise Refusal(f"{len(rows)} cell(s) have a row, expected {want}: --resume it")
    if others := sorted({r.backend for r in rows} - {backend}):
        raise Refusal(f"rows on backend(s) {others}, expected {backend}")
    if not (run_dir / "report.md").is_file():
        raise Refusal(f"no {run_dir / 'report.md'}: the sweep did not finish")


def record(args: argparse.Namespace) -> int:
    from tests.report.mixed_run import record as keep

    fixture: Path = args.to or REAL_RECORDED
    report: Path = args.report_to or REAL_REPORT
    real = fixture.resolve() == REAL_RECORDED or report.resolve() == REAL_REPORT
    try:
        # What is recorded as the real run must be one: never a fake or a partial sweep.
        check_complete(args.run_dir, backend="docker" if real else args.backend)
    except Refusal as exc:
        print(f"not recorded: {exc.why}", file=sys.stderr)
        return 1
    keep(args.run_dir, to=fixture)
    shutil.copyfile(args.run_dir / "run.json", fixture / "run.json")
    report.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(args.run_dir / "report.md", report)
    if real:
        shutil.rmtree(REAL_PARKED, ignore_errors=True)  # the run is whole: nothing to resume
    print(f"recorded {fixture} and {report}")
    return 0


def park(args: argparse.Namespace) -> int:
    run_dir: Path = args.run_dir
    to: Path = args.to or REAL_PARKED
    missing = [n for n in ("manifest.jsonl", *PARKED_FILES) if not (run_dir / n).is_file()]
    if missing:
        print(f"not parked: {run_dir} has no {', '.join(missing)}", file=sys.stderr)
        return 2
    shutil.rmtree(to, ignore_errors=True)
    to.mkdir(parents=True)
    rows = (run_dir / "manifest.jsonl").read_bytes()
    with gzip.GzipFile(to / "manifest.jsonl.gz", "wb", mtime=0) as out:
        out.write(rows)
    for name in PARKED_FILES:
        shutil.copyfile(run_dir / name, to / name)
    if (run_dir / "baseline").is_dir():
        shutil.copytree(run_dir / "baseline", to / "baseline")
    cells = len({r.cell for r in read_rows(run_dir / "manifest.jsonl")})
    print(f"parked {cells} cell(s) of {run_dir} in {to}: commit it")
    return 0


def unpark(args: argparse.Namespace) -> int:
    run_dir: Path = args.run_dir
    parked: Path = args.parked or REAL_PARKED
    if not (parked / "manifest.jsonl.gz").is_file():
        print(f"not unparked: nothing parked in {parked}", file=sys.stderr)
        return 2
    if (run_dir / "manifest.jsonl").exists():
        print(f"not unparked: {run_dir} holds a run (resume it as it is)", file=sys.stderr)
        return 2
    run_dir.mkdir(parents=True, exist_ok=True)
    with gzip.open(parked / "manifest.jsonl.gz") as src:
        (run_dir / "manifest.jsonl").write_bytes(src.read())
    for name in PARKED_FILES:
        shutil.copyfile(parked / name, run_dir / name)
    if (parked / "baseline").is_dir():
        shutil.copytree(parked / "baseline", run_dir / "baseline", dirs_exist_ok=True)
    print(f"continue with: python -m tests.report.mixed_real run --run-dir {run_dir} --resume")
    return 0


def real_run(recorded: Path = REAL_RECORDED) -> SqlRun:
    """The recorded real run, as `test_report_sql.py` reads a run."""
    return recorded_run(recorded)


def compare(run: SqlRun, scratch: Path) -> list[str]:
    """Every comparison of `sql_check.CHECKS` on `run`: the names of those that fail."""
    from tests.report.sql_check import CHECKS, database, report_of

    con = database(run, scratch / "manifest.jsonl")
    failed = []
    try:
        rep = report_of(run)
        for name, check in CHECKS.items():
            try:
                check(con, rep, run)
            except AssertionError as exc:
                failed.append(f"{name}: {exc}")
    finally:
        con.close()
    return failed


def check(args: argparse.Namespace) -> int:
    import tempfile

    run = real_run(args.fixture)
    with tempfile.TemporaryDirectory(prefix="pwb-mixed-real-") as tmp:
        failed = compare(run, Path(tmp))
    print(f"{len(run.rows)} rows, {len({r.task for r in run.rows})} tasks")
    for line in failed:
        print(f"DISAGREE {line}", file=sys.stderr)
    print(f"{len(failed)} comparison(s) failed")
    return 1 if failed else 0


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.report.mixed_real", description=__doc__)
    sub = ap.add_subparsers(dest="command", required=True)
    sub.add_parser("plan", help="the selection, its cells and the time expected")
    p = sub.add_parser("run", help="run (or --resume) the sweep into --run-dir")
    p.add_argument("--run-dir", type=Path, required=True)
    p.add_argument("--resume", action="store_true")
    p.add_argument("--concurrency", type=int, default=CONCURRENCY)
    p.add_argument("--fake", action="store_true", help="no Docker: fake sandbox, oracle")
    p = sub.add_parser("park", help="keep what --resume needs, to commit at a sitting's end")
    p.add_argument("run_dir", type=Path)
    p.add_argument("--to", type=Path, help=f"folder (default {REAL_PARKED})")
    p = sub.add_parser("unpark", help="a parked run into an empty DIR, to --resume")
    p.add_argument("run_dir", type=Path)
    p.add_argument("--parked", type=Path, help=f"folder (default {REAL_PARKED})")
    p = sub.add_parser("record", help="keep a finished run as the recorded one")
    p.add_argument("run_dir", type=Path)
    p.add_argument("--to", type=Path, help=f"fixture folder (default {REAL_RECORDED})")
    p.add_argument("--report-to", type=Path, help=f"report.md copy (default {REAL_REPORT})")
    p.add_argument(
        "--backend", default="docker", help="the rows' backend, elsewhere than the defaults"
    )
    p = sub.add_parser("check", help="the report vs the SQL on a recorded run")
    p.add_argument("fixture", type=Path, nargs="?", default=REAL_RECORDED)
    args = ap.parse_args(argv)
    commands = {"plan": plan, "run": run, "park": park, "unpark": unpark}
    command = {**commands, "record": record, "check": check}[args.command]
    return command(args)


if __name__ == "__main__":
    sys.exit(main())
