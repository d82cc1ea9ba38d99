"""`python -m orchestrator cell TASK --solver S`: run one cell and print what happened."""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from sandbox import adhoc_sweep, open_backend

from .. import events as ev
from ..budget import Ledger
from ..cell import BaselineCache, CellReport, CellSetup, run_cell
from ..config import ConfigError, load_config
from ..contract import ContractError, load_task
from ..events import CheckpointSummary, read_events
from ..llm import ProviderConfig, ProviderPool
from ..records import Arm, CheckResult
from ..solvers import Solver, make_solver, offline_solver
from ..verifier import (
    BrowserPool,
    EnvironmentDrift,
    check_environment,
    read_a11y_evidence,
)
from ._loop import run_command
from ._task import task_root
from .run import add_replay_argument

HELP = "run one cell (task x solver x arm) and print its units, checkpoints and scores"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_replay_argument(p)
    p.add_argument("task", help="task id (under --tasks-dir) or a task directory")
    p.add_argument(
        "--solver",
        default="reference",
        help="reference|noop|thrash|negative:NAME or a bench.toml solver",
    )
    p.add_argument("--arm", choices=("staged", "full-spec"), default="staged")
    p.add_argument("--backend", choices=("auto", "docker", "local"), default="auto")
    p.add_argument("--config", type=Path, default=Path("bench.toml"))
    p.add_argument("--tasks-dir", type=Path, default=Path("tasks"))
    p.add_argument("--out", type=Path, help="cell directory (default: a temporary one)")
    p.add_argument("--no-baseline", action="store_true")
    p.add_argument(
        "--allow-env-drift",
        action="store_true",
        help="grade visual gates not applicable when rendering differs from the evidence",
    )


async def _run(args: argparse.Namespace, out: Path) -> CellReport:
    root = task_root(args.task, args.tasks_dir)
    task = load_task(root)
    await read_a11y_evidence(task)  # a malformed evidence/a11y.json: one line, exit 2
    ledger = Ledger()
    providers_cfg: tuple[ProviderConfig, ...] = ()
    solver: Solver
    try:
        solver = offline_solver(args.solver, task)
        bench = None
    except ValueError:
        bench = load_config(args.config)
        providers_cfg = bench.providers
    backend = await open_backend(args.backend)
    async with (
        adhoc_sweep("cell") as sweep,  # its sandbox and network are removed on exit
        BrowserPool(allow_env_drift=args.allow_env_drift, replay=args.replay or "reuse") as pool,
        ProviderPool(providers_cfg, fake_tasks=[task.root]) as providers,
    ):
        for warning in await check_environment(pool, [task]):
            print(warning, file=sys.stderr)
        if bench is not None:
            matches = [s for s in bench.solvers if s.name == args.solver]
            if not matches:
                raise ConfigError(f"{args.config}: no solver named {args.solver!r}")
            solver = make_solver(matches[0], task, bench, providers, ledger)
        baseline = None if args.no_baseline else BaselineCache(out / "baseline-cache")
        ctx = CellSetup(backend=backend, pool=pool, baseline=baseline).context(
            task, out, sweep.labels(f"{task.contract.id}-{int(time.time())}")
        )
        arm: Arm = args.arm
        try:
            return await run_cell(ctx, solver, arm)
        finally:
            await solver.aclose()


def failing_checks(c: CheckpointSummary, most: int = 24) -> list[str]:
    """A line per failing check of checkpoint `c`, by gate: an author reads here which
    checks a negative broke (the accessibility rules' `a11y-*` ones among them) without
    opening `events.jsonl`."""
    failed = sorted((r for r in c.checks if not r.passed and r.applicable), key=_by_gate)
    lines = [f"    fail {r.gate:16} {r.id}: {(r.message or r.observed)[:110]}" for r in failed]
    if len(lines) > most:
        lines[most:] = [f"    ... and {len(lines) - most} more (events.jsonl)"]
    return lines


def _by_gate(r: CheckResult) -> tuple[str, str]:
    return (r.gate, r.id)


def run(args: argparse.Namespace) -> int:
    out = args.out or Path(tempfile.mkdtemp(prefix="pwb-cell-"))
    try:
        report = run_command(_run, args, out)
    except (ContractError, ConfigError, ValueError, EnvironmentDrift) as exc:
        print(exc, file=sys.stderr)
        return 2
    for e in read_events(out / "events.jsonl"):
        match e:
            case ev.Checkpoint(checkpoint=c):
                failing = sorted(g for g, s in c.gates.items() if s == "fail")
                print(
                    f"  checkpoint {c.index:2} unit={c.unit or 'FINAL':12} passed={c.passed:3} "
                    f"failed={c.failed:3} failing gates={failing} ({c.duration_s:.1f} s)"
                )
                if not c.unit:  # the final: what failed, the continuity rules' too
                    for line in failing_checks(c):
                        print(line)
            case ev.FlipEvent(check=detail) | ev.Repair(check=detail):
                print(f"{e.kind:8} {e.unit:12} {detail}")
            case ev.Reveal(text=text):
                print(f"{e.kind:8} {e.unit:12} {(text.splitlines() or [''])[0][:90]}")
            case ev.Cleared() | ev.Cap():
                print(f"{e.kind:8} {e.unit:12}")
            case ev.Slip(what=what, text=text):
                print(f"{e.kind:8} {e.unit:12} {what}: {text[:180]}")
            case ev.Broken(text=text) | ev.Error(error=text):
                print(f"{e.kind:8} {e.unit:12} {text[:200]}")
    print()
    result = report.result
    for u in result.units:
        state = "cleared" if u.cleared else "capped" if u.capped else "not cleared"
        print(f"unit {u.id:16} {state:12} turns={u.turns} at checkpoint {u.cleared_at}")
    s = result.scores
    print(
        f"stage={s.stage:.2f} gate={s.gate:.2f} final_pass={s.final_pass} breaks={s.breaks} "
        f"whole_task={s.whole_task} WCS={s.wcs:.3f} complete_not_cleared={s.complete_not_cleared}"
    )
    for f in result.flips:
        print(
            f"flip {f.check} ({f.gate}): passed@{f.passed_at} failed@{f.failed_at} "
            f"repaired@{f.repaired_at}"
        )
    for b in result.baseline_regressions:
        print(f"baseline regression: gate {b.gate} ({', '.join(b.failed_checks)})")
    print(f"cell directory: {out}")
    return 0
