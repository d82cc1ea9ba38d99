"""`python -m orchestrator capture TASK`: freeze evidence from R0 and from the reference.

`evidence/r0/` is captured from R0 as shipped; `evidence/reference/` from R0 with every
unit's reference patch applied in order. Each is served in a throwaway workspace.
`evidence/env.json` fingerprints the pinned rendering environment they were rendered in.
`evidence/a11y.json` holds each side's accessibility snapshot of every state, as the full
suite records it: the base of the accessibility continuity rules on every grading path
(`verifier/_a11y/_evidence.py`); a side whose evidence is refused keeps its old snapshots.

Capture retries what `verify` retries (the host's network changing under the page, a
timeout under load) and refuses to write a side's evidence when a render stays broken:
the host's network still failing, or a failed asset request on the reference.

Exit status: 0 captured; 1 captured, but a state could not be reached (expected of R0
for a state the units add); 2 a bad task package; 3 an infrastructure error; 4 evidence
refused: nothing written for that side (re-run when the host is quiet, or fix the asset).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import anyio

from sandbox import BackendKind

from ..contract import ContractError, TaskPackage, load_task
from ..verifier import BrowserPool, Side, VerifierInfraError, capture, capture_a11y, write_a11y_side
from ..workspace import Workspace
from ._loop import run_command
from ._task import task_root
from .verify import served

HELP = (
    "capture per-state evidence (screenshots, text, accessibility, anchors) from R0 and reference"
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("task", type=Path, help="task directory, or a task id under --tasks-dir")
    p.add_argument("--tasks-dir", type=Path, default=Path("tasks"))
    p.add_argument("--backend", choices=("auto", "docker", "local"), default="auto")


REFUSED = 4


async def _capture_one(
    pool: BrowserPool, task: TaskPackage, name: Side, patches: list[Path], backend: BackendKind
) -> int:
    """The side's exit status: 0 captured, 1 a state not reached, REFUSED nothing written."""
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
                    return 1
                out = task.evidence / name
                summaries = await capture(pool, task, url, out, clean_assets=name == "reference")
                if not any(s.refused for s in summaries):
                    snaps = await capture_a11y(pool, task, url, health)
                    await write_a11y_side(task, name, snaps)
        finally:
            with anyio.move_on_after(60.0, shield=True):
                await ws.discard()
    for s in summaries:
        print(f"{name}/{s.state}: status {s.status} {s.error}".rstrip())
        for line in s.console_errors:
            print(f"  console error: {line}")
        for line in (*s.failed_requests, *s.failed_assets):
            print(f"  failed request: {line}")
        if s.refused:
            print(f"{name}/{s.state}: refused: {s.refused}", file=sys.stderr)
    if any(s.refused for s in summaries):
        print(f"{name}: evidence NOT written (refused above): capture again", file=sys.stderr)
        return REFUSED
    return 0 if all(not s.error for s in summaries) else 1


async def _main(args: argparse.Namespace) -> int:
    task = load_task(task_root(args.task, args.tasks_dir))
    patches = [task.reference_patch(u.id) for u in task.contract.units]
    async with BrowserPool() as pool:
        r0 = await _capture_one(pool, task, "r0", [], args.backend)
        ref = await _capture_one(pool, task, "reference", patches, args.backend)
        env = await pool.environment()
    print(f"env.json: {env.browser} {env.browser_version}, fonts {env.fonts[:12]}")
    return max(r0, ref)


def run(args: argparse.Namespace) -> int:
    try:
        return run_command(_main, args)
    except ContractError as exc:
        print(exc, file=sys.stderr)
        return 2
    except VerifierInfraError as exc:
        print(f"infrastructure error: {exc}", file=sys.stderr)
        return 3
