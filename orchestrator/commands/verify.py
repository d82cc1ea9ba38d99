"""`python -m orchestrator verify TASK --workspace DIR`: serve DIR, replay, print the gates.

The full suite (no `--checks`) of a task with accessibility evidence (`evidence/a11y.json`,
`capture`) takes each state's accessibility snapshot and grades the continuity rules
against R0's and the reference's captured ones; without evidence there is no base, and
no accessibility continuity check."""

from __future__ import annotations

import argparse
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import msgspec

from sandbox import BackendKind, ServeSpec, adhoc_sweep, open_backend

from ..contract import ContractError, TaskPackage, load_task
from ..records import VerifyReport
from ..verifier import (
    BrowserPool,
    EnvironmentDrift,
    RunHealth,
    VerifierInfraError,
    applicability,
    check_environment,
    read_a11y_evidence,
    verify,
    with_a11y_continuity,
)
from ..workspace import Workspace
from ._loop import run_command
from ._task import task_root

HELP = "serve a workspace, verify every check and health gate, print the gate table"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("task", type=Path, help="task directory, or a task id under --tasks-dir")
    p.add_argument("--tasks-dir", type=Path, default=Path("tasks"))
    p.add_argument("--workspace", type=Path, required=True, help="directory to serve")
    p.add_argument("--backend", choices=("auto", "docker", "local"), default="auto")
    p.add_argument("--checks", nargs="*", default=None, help="check ids (default: all)")
    p.add_argument("--artifacts", type=Path, default=None, help="keep screenshots here")
    p.add_argument(
        "--allow-env-drift",
        action="store_true",
        help="grade visual gates not applicable when rendering differs from the evidence",
    )


@asynccontextmanager
async def served(
    task: TaskPackage, root: Path, backend: BackendKind
) -> AsyncIterator[tuple[str, RunHealth]]:
    """Install, build and serve `root`; yields (base URL, build/serve health)."""
    opened = await open_backend(backend)
    s = task.contract.serve
    spec = ServeSpec(
        stack=task.contract.stack,
        install=s.install,
        build=s.build,
        start=s.start,
        ready_path=s.ready_path,
        ready_timeout=s.ready_timeout,
        # The image a cell of this task runs ('' for the local backend).
        image=await opened.task_image(task.contract.stack, task.repo),
    )
    async with (
        adhoc_sweep("verify") as sweep,  # its sandbox and network are removed on exit
        opened.open(root, spec, sweep.labels(task.contract.id)) as box,
    ):
        built = await box.install()
        if built.ok:
            built = await box.build()
        if not built.ok:
            detail = f"`{built.command}` exited {built.exit_code}: {built.output_tail[-400:]}"
            yield (
                "",
                RunHealth(
                    **applicability(task.contract),
                    build_ok=False,
                    build_detail=detail,
                    serve_ok=False,
                    serve_detail="not started: the build failed",
                ),
            )
            return
        outcome = await box.serve()
        health = RunHealth(
            **applicability(task.contract), serve_ok=outcome.ready, serve_detail=outcome.detail
        )
        yield outcome.base_url, health


async def _scope(task: TaskPackage, root: Path) -> tuple[str, ...]:
    ws = Workspace.attach(root, task.contract.allowed_paths)
    if ws is None:
        return ()  # not a harness workspace: no R0 commit to diff against
    return await ws.scope_violations()


def print_report(report: VerifyReport) -> None:
    for g in report.gates:
        print(f"{g.gate:18} {g.status:4} {' '.join(g.failed_checks) or g.reason}")
    for c in report.failed:
        print(f"  FAIL {c.id}: {c.message}")


async def _main(args: argparse.Namespace) -> int:
    task = load_task(task_root(args.task, args.tasks_dir))
    evidence = await read_a11y_evidence(task)
    full = args.checks is None and evidence is not None
    scope = await _scope(task, args.workspace)
    async with BrowserPool(allow_env_drift=args.allow_env_drift) as pool:
        # Before anything is built: a drifted environment stops here.
        for warning in await check_environment(pool, [task]):
            print(warning, file=sys.stderr)
        async with served(task, args.workspace.resolve(), args.backend) as (url, health):
            health = msgspec.structs.replace(health, scope_violations=scope)
            report = await verify(
                pool,
                task,
                url,
                check_ids=args.checks,
                health=health,
                artifacts=args.artifacts,
                a11y=full,
            )
    if full and evidence is not None:
        report = with_a11y_continuity(report, task.contract, evidence.bases())
    print_report(report)
    return 1 if any(g.status == "fail" for g in report.gates) else 0


def run(args: argparse.Namespace) -> int:
    try:
        return run_command(_main, args)
    except (ContractError, EnvironmentDrift) as exc:
        print(exc, file=sys.stderr)
        return 2
    except VerifierInfraError as exc:
        print(f"infrastructure error: {exc}", file=sys.stderr)
        return 3
