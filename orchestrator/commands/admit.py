"""`python -m orchestrator admit [TASK...]`: admission of task packages (DESIGN.md §6).

`--resume DIR` continues an admission that was interrupted (or run in batches) in DIR:
the tasks and `--repeat` come from `DIR/admit.json`, a task whose `DIR/<task>/admission.json`
holds a verdict on its current contract at that repeat made by this grader keeps it
(`kept_admission`), the others (unfinished, changed since, graded by another grader, or
ended by an infrastructure fault or a bug of ours) are admitted again. `--cache` admits
into the user's store for this grader (`admission_store`): the same command, run again
after an interruption or in another clone, admits only what the store does not hold yet.
One process at a time admits into a directory. `--record` writes every admitted task's
contract hash, controls and grader fingerprint (`orchestrator/admission/_grader.py`; a
kept verdict keeps the fingerprint it was reached with) into `<tasks-dir>/ADMISSION.json`
(`orchestrator/admission/_record.py`; needs `--repeat 3`).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import msgspec

from sandbox import open_backend

from ..admission import (
    MIN_REPEAT,
    RECORD_NAME,
    AdmissionBusy,
    AdmissionRecordError,
    ControlResult,
    TaskAdmission,
    admission_lock,
    admission_store,
    admit_all,
    common_fingerprint,
    kept_admission,
    load_record,
    record_path,
    suite_twin_problems,
    task_grader,
    with_results,
    write_record,
)
from ..contract import ContractError, TaskPackage, discover_tasks, load_task
from ..report import wilson
from ..verifier import BrowserPool, EnvironmentDrift, check_environment, load_a11y_evidence
from ._loop import run_command
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
    p.add_argument(
        "--resume",
        type=Path,
        metavar="DIR",
        help="continue the admission in DIR: only tasks without a verdict there are admitted",
    )
    p.add_argument(
        "--cache",
        action="store_true",
        help="admit into the user's store for this grader, keeping what it already holds "
        "($XDG_CACHE_HOME/pwb/admissions/<grader>)",
    )
    p.add_argument(
        "--record",
        action="store_true",
        help=f"record admitted tasks' contracts in <tasks-dir>/{RECORD_NAME} (--repeat >= 3)",
    )
    p.add_argument("--parallel", type=int, default=2, help="tasks admitted at once")
    p.add_argument(
        "--browser-contexts",
        type=int,
        default=0,
        metavar="N",
        help="browser states replayed at once (default 0: as many as the CPU has room for)",
    )
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
    lines += ["", "| task | wall | negatives run | trusted to the record |", "|---|---|---|---|"]
    for r in results:
        ran = sum(c.control.startswith("negative:") for c in r.controls)
        lines.append(f"| {r.task} | {r.wall_s:.0f} s | {ran} | {len(r.trusted_negatives)} |")
    return "\n".join(lines) + "\n"


def _load(args: argparse.Namespace) -> list[TaskPackage]:
    roots = (
        [task_root(t, args.tasks_dir) for t in args.tasks]
        if args.tasks
        else discover_tasks(args.tasks_dir)
    )
    tasks = [load_task(r) for r in roots]
    for task in tasks:
        load_a11y_evidence(task)  # a malformed evidence/a11y.json stops here, in one line
    twins = suite_twin_problems(tasks)
    if twins:
        raise ContractError(twins)
    return tasks


async def _admit(args: argparse.Namespace, tasks: list[TaskPackage]) -> list[TaskAdmission]:
    backend = await open_backend(args.backend)
    async with BrowserPool(
        max_contexts=args.browser_contexts or None,
        allow_env_drift=args.allow_env_drift,
        replay=args.replay or "reuse",
    ) as pool:
        for warning in await check_environment(pool, tasks):
            print(warning, file=sys.stderr)
        # The grader of this process (its code was imported before anything is admitted),
        # each task's fingerprint with its stack's images.
        return await admit_all(
            tasks, backend, pool, args.out, args.repeat, args.parallel, grader=task_grader
        )


def _out_dir(out: Path | None) -> Path:
    """Where this admission writes: never over an earlier admission's results."""
    if out is None:
        out = Path("runs/admission") / time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ValueError(f"--out {out}: expected a new or empty directory, got one in use")
    return out


class AdmitPlan(msgspec.Struct, frozen=True, kw_only=True):
    """`DIR/admit.json`: what an admission in DIR admits (read back by `--resume`)."""

    tasks: list[str]  # task directories, as given or discovered
    repeat: int


PLAN_NAME = "admit.json"


def _resume_selection(args: argparse.Namespace) -> None:
    """Point `args` at the admission in `args.resume` (its tasks and repeat)."""
    if args.out is not None:
        raise ValueError("--resume DIR and --out: expected one of them")
    path = args.resume / PLAN_NAME
    try:
        chosen = msgspec.json.decode(path.read_bytes(), type=AdmitPlan)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise ValueError(f"--resume {args.resume}: not an admission directory ({exc})") from None
    if args.tasks:
        raise ValueError("--resume DIR takes its tasks from DIR/admit.json: name none")
    args.out, args.tasks, args.repeat = args.resume, chosen.tasks, chosen.repeat


def _check_args(args: argparse.Namespace) -> None:
    if args.cache and (args.resume is not None or args.out is not None):
        raise ValueError("--cache admits into the store: expected no --out or --resume")
    if args.resume is not None:
        _resume_selection(args)
    elif args.cache:
        args.out = admission_store(common_fingerprint())
    else:
        args.out = _out_dir(args.out)
    if args.repeat < 1 or args.parallel < 1:
        raise ValueError(f"--repeat {args.repeat} --parallel {args.parallel}: expected >= 1")
    if args.browser_contexts < 0:
        raise ValueError(
            f"--browser-contexts {args.browser_contexts}: expected >= 0 (0: by CPU headroom)"
        )
    if args.record and args.repeat < MIN_REPEAT:
        raise ValueError(f"--record: expected --repeat {MIN_REPEAT} or more, got {args.repeat}")


def _record_file(tasks: list[TaskPackage]) -> Path:
    """The record the admitted tasks go into: their tasks directory's, which must be one."""
    parents = sorted({t.root.resolve().parent for t in tasks})
    if len(parents) != 1:
        raise ValueError(f"--record: expected tasks of one tasks directory, got {len(parents)}")
    path = record_path(parents[0])
    load_record(path)  # unreadable: say so before admitting anything (read again at the
    # end, so an admission recorded meanwhile by another process is merged, not lost)
    return path


def run(args: argparse.Namespace) -> int:
    try:
        _check_args(args)
        tasks = _load(args)
        record = _record_file(tasks) if args.record else None
        with admission_lock(args.out):
            fresh, kept = _admit_unkept(args, tasks)
    except (ValueError, ContractError, AdmissionBusy, EnvironmentDrift) as exc:
        print(exc, file=sys.stderr)
        return 2
    return _report(args, tasks, kept | {r.task: r for r in fresh}, record)


def _admit_unkept(
    args: argparse.Namespace, tasks: list[TaskPackage]
) -> tuple[list[TaskAdmission], dict[str, TaskAdmission]]:
    """Admit what `args.out` does not hold yet: (the new results, the kept ones)."""
    if args.resume is None and not args.cache:
        roots = [str(t.root) for t in tasks]
        selection = AdmitPlan(tasks=roots, repeat=args.repeat)
        (args.out / PLAN_NAME).write_bytes(msgspec.json.encode(selection))
    kept = (
        {
            t.contract.id: k
            for t in tasks
            if (k := kept_admission(args.out, t, args.repeat, task_grader))
        }
        if args.resume is not None or args.cache
        else {}  # a fresh admission's directory is new or empty: nothing to keep
    )
    todo = [t for t in tasks if t.contract.id not in kept]
    if kept:
        print(
            f"resuming {args.out}: {len(kept)} task(s) kept, {len(todo)} to admit", file=sys.stderr
        )
    return (run_command(_admit, args, todo) if todo else []), kept


def _report(
    args: argparse.Namespace,
    tasks: list[TaskPackage],
    by_id: dict[str, TaskAdmission],
    record: Path | None,
) -> int:
    results = [by_id[t.contract.id] for t in tasks]
    text = render(results)
    (args.out / "admission.md").write_text(text)
    (args.out / "admission.json").write_bytes(msgspec.json.format(msgspec.json.encode(results)))
    print(text)
    print(f"admission written to {args.out}", file=sys.stderr)
    if record is not None:
        try:
            earlier = load_record(record)
            before = earlier.tasks
            updated = with_results(earlier, results, args.repeat, str(args.out))
        except AdmissionRecordError as exc:
            print(exc, file=sys.stderr)
            return 2
        write_record(record, updated)
        # Only what was admitted whole is recorded (`with_results`): say which, or none.
        written = sorted(t for t, got in updated.tasks.items() if got != before.get(t))
        if written:
            print(f"admission recorded in {record}: {', '.join(written)}", file=sys.stderr)
        else:
            print(f"nothing new recorded in {record}", file=sys.stderr)
    bad = [r.task for r in results if not r.admitted]
    if bad:
        print(f"not admitted: {', '.join(bad)}", file=sys.stderr)
    return 1 if bad else 0
