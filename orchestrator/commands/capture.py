"""`python -m orchestrator capture TASK`: freeze evidence from R0 and from the reference.

`evidence/r0/` is captured from R0 as shipped; `evidence/reference/` from R0 with every
unit's reference patch applied in order. Each is served in a throwaway workspace.
`evidence/env.json` fingerprints the pinned rendering environment they were rendered in.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import anyio

from sandbox import BackendKind

from ..contract import ContractError, TaskPackage, load_task
from ..verifier import BrowserPool, VerifierInfraError, capture
from ..workspace import Workspace
from ._loop import run_async
from ._task import task_root
from .verify import served

HELP = "capture per-state evidence (screenshots, text, a11y names, anchors) from R0 and reference"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("task", type=Path, help="task directory, or a task id under --tasks-dir")
    p.add_argument("--tasks-dir", type=Path, default=Path("tasks"))
    p.add_argument("--backend", choices=("auto", "docker", "local"), default="auto")


async def _capture_one(
    pool: BrowserPool, task: TaskPackage, name: str, patches: list[Path], backend: BackendKind
) -> bool:
    with tempfile.TemporaryDirectory(prefix="pwb-capture-") as tmp:
        ws = await Workspace.create(task.repo, Path(tmp) / "ws", task.contract.allowed_paths)
        try:
            for patch in patches:
                await ws.apply_patch(patch)
            async with served(task, ws.root, backend) as (url, health):
                if not health.serve_ok:
                    print(
                        f"{name}: not served: {health.build_detail or health.serve_detail}",
                        file=sys.stderr,
                    )
                    return False
                out = task.evidence / name
                summaries = await capture(pool, task, url, out)
        finally:
            with anyio.move_on_after(60.0, shield=True):
                await ws.discard()
    for s in summaries:
        print(f"{name}/{s.state}: status {s.status} {s.error}".rstrip())
        for line in s.console_errors:
            print(f"  console error: {line}")
        for line in s.failed_requests:
            print(f"  failed request: {line}")
    return all(not s.error for s in summaries)


async def _main(args: argparse.Namespace) -> int:
    task = load_task(task_root(args.task, args.tasks_dir))
    patches = [task.reference_patch(u.id) for u in task.contract.units]
    async with BrowserPool() as pool:
        ok = await _capture_one(pool, task, "r0", [], args.backend)
        ok = await _capture_one(pool, task, "reference", patches, args.backend) and ok
        env = await pool.environment()
    print(f"env.json: {env.browser} {env.browser_version}, fonts {env.fonts[:12]}")
    return 0 if ok else 1


def run(args: argparse.Namespace) -> int:
    try:
        return run_async(_main, args)
    except ContractError as exc:
        print(exc, file=sys.stderr)
        return 2
    except VerifierInfraError as exc:
        print(f"infrastructure error: {exc}", file=sys.stderr)
        return 3
