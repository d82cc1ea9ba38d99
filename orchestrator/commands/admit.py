"""`python -m orchestrator admit [TASK...]`: admission of task packages (DESIGN.md §6)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import msgspec

from sandbox import open_backend

from ..admission import ControlResult, TaskAdmission, admit_all
from ..contract import ContractError, TaskPackage, discover_tasks, load_task
from ..report import wilson
from ..suite import suite_twin_problems
from ..verifier import BrowserPool, EnvironmentDrift, check_environment
from ._loop import run_async
from ._task import task_root
from .run import add_replay_argument

HELP = "admit task packages: reference clears every unit, negatives fail, R0 is outstanding"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_replay_argument(p)
    p.add_argument("tasks", nargs="*", help="task ids or directories (default: every task)")
    p.add_argument("--tasks-dir", type=Path, default=Path("tasks"))
    p.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="replay the reference and every negative K times (a flaky one is not admitted)",
    )
    p.add_argument("--backend", choices=("auto", "docker", "local"), default="auto")
    p.add_argument(
        "--out",
        type=Path,
        help="an empty or new directory (default: runs/admission/<UTC time>)",
    )
    p.add_argument("--parallel", type=int, default=2, help="tasks admitted at once")
    p.add_argument(
        "--allow-env-drift",
        action="store_true",
        help="grade visual gates not applicable when rendering differs from the evidence",
    )


def _rate(label: str, k: int, n: int) -> str:
    lo, hi = wilson(k, n)
    pct = 100 * k / n if n else 0.0
    return f"| {label} | {k}/{n} | {pct:.1f}% | [{100 * lo:.1f}%, {100 * hi:.1f}%] |"


def _stable(c: ControlResult) -> str:
    if not c.control.startswith("negative:"):
        return ""
    if c.unstable_checks:
        return f"NO ({len(c.unstable_checks)} of {len(c.checks)} checks changed in {c.runs} runs)"
    return f"{c.runs}/{c.runs} runs"


def render(results: list[TaskAdmission]) -> str:
    lines = [
        "# Admission report",
        "",
        "| task | control | ok | failing gates | expected | extra gates | stable | detail |",
    ]
    lines.append("|---|---|---|---|---|---|---|---|")
    for r in results:
        if r.error:
            lines.append(f"| {r.task} | (not admitted) | NO | | | | | {r.error} |")
        elif r.attempts > 1:
            lines.append(
                f"| {r.task} | (retried) | yes | | | | | admitted on attempt {r.attempts} "
                "after an infrastructure fault |"
            )
        for c in r.controls:
            lines.append(
                f"| {r.task} | {c.control} | {'yes' if c.ok else 'NO'} | "
                f"{', '.join(c.failing_gates)} | {', '.join(c.expected_gates)} | "
                f"{', '.join(c.extra_gates)} | {_stable(c)} | {c.detail} |"
            )
        if r.flaky_checks:
            lines.append(f"| {r.task} | flaky | NO | | | | | {', '.join(r.flaky_checks)} |")
    controls = [c for r in results for c in r.controls]
    negs = [c for c in controls if c.control.startswith("negative:")]
    lines += ["", "| pool rate | k/n | rate | Wilson 95% |", "|---|---|---|---|"]
    lines.append(_rate("tasks admitted", sum(r.admitted for r in results), len(results)))
    refs = [c for c in controls if c.control == "reference"]
    lines.append(_rate("reference passes", sum(c.ok for c in refs), len(refs)))
    r0s = [c for c in controls if c.control == "r0"]
    lines.append(_rate("R0 fails a completion gate", sum(c.ok for c in r0s), len(r0s)))
    lines.append(_rate("negatives caught as expected", sum(c.ok for c in negs), len(negs)))
    return "\n".join(lines) + "\n"


def _load(args: argparse.Namespace) -> list[TaskPackage]:
    roots = (
        [task_root(t, args.tasks_dir) for t in args.tasks]
        if args.tasks
        else discover_tasks(args.tasks_dir)
    )
    tasks = [load_task(r) for r in roots]
    twins = suite_twin_problems(tasks)
    if twins:
        raise ContractError(twins)
    return tasks


async def _admit(args: argparse.Namespace, tasks: list[TaskPackage]) -> list[TaskAdmission]:
    backend = await open_backend(args.backend)
    async with BrowserPool(
        allow_env_drift=args.allow_env_drift, replay=args.replay or "reuse"
    ) as pool:
        for warning in await check_environment(pool, tasks):
            print(warning, file=sys.stderr)
        return await admit_all(tasks, backend, pool, args.out, args.repeat, args.parallel)


def _out_dir(out: Path | None) -> Path:
    """Where this admission writes: never over an earlier admission's results."""
    if out is None:
        out = Path("runs/admission") / time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ValueError(f"--out {out}: expected a new or empty directory, got one in use")
    return out


def run(args: argparse.Namespace) -> int:
    try:
        args.out = _out_dir(args.out)
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    try:
        tasks = _load(args)
    except ContractError as exc:
        print(exc, file=sys.stderr)
        return 2
    try:
        results = run_async(_admit, args, tasks)
    except EnvironmentDrift as exc:
        print(exc, file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    text = render(results)
    (args.out / "admission.md").write_text(text)
    (args.out / "admission.json").write_bytes(msgspec.json.format(msgspec.json.encode(results)))
    print(text)
    print(f"admission written to {args.out}", file=sys.stderr)
    bad = [r.task for r in results if not r.admitted]
    if bad:
        print(f"not admitted: {', '.join(bad)}", file=sys.stderr)
    return 1 if bad else 0
