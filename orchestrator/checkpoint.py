"""A checkpoint: (re)build and (re)serve the workspace only as the stack needs, then verify.

Shared by the staged cell, the full-spec cell and admission so they cannot drift apart.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Collection
from pathlib import Path

from sandbox import ExecResult, Sandbox, ServeOutcome

from .contract import TaskPackage
from .records import VerifyReport
from .verifier import RunHealth, Verifier, VerifyRequest, applicability
from .workspace import Workspace


class Checkpointer:
    """Owns the build/serve state of one sandbox across a cell's checkpoints."""

    def __init__(
        self,
        task: TaskPackage,
        workspace: Workspace,
        sandbox: Sandbox,
        verifier: Verifier,
        artifacts: Path,
    ) -> None:
        self.task = task
        self.workspace = workspace
        self.sandbox = sandbox
        self.verifier = verifier
        self.artifacts = artifacts
        self.count = 0
        self._installed: ExecResult | None = None
        self._built_tree: str | None = None
        self._build: ExecResult | None = None
        self._served_tree: str | None = None
        self._serve: ServeOutcome | None = None
        # New at every install, build and (re)start: replay reuse keeps a state's
        # observation across checkpoints only within one server process.
        self._server = ""

    async def _prepare(self) -> tuple[ExecResult | None, ServeOutcome | None]:
        serve = self.task.contract.serve
        tree = await self.workspace.tree_id()
        if self._installed is None or (serve.rebuild_on_change and tree != self._built_tree):
            self._server = uuid.uuid4().hex
            self._installed = await self.sandbox.install()
        build_needed = self._built_tree is None or (
            serve.rebuild_on_change and tree != self._built_tree
        )
        if build_needed:
            self._server = uuid.uuid4().hex
            self._build = await self.sandbox.build() if self._installed.ok else self._installed
            self._built_tree = tree
        if self._build is not None and not self._build.ok:
            return self._build, None
        restart = self._served_tree is None or (
            serve.restart_on_change and tree != self._served_tree
        )
        if restart or (self._serve is not None and not self._serve.ready):
            self._server = uuid.uuid4().hex
            self._serve = await self.sandbox.serve()
            self._served_tree = tree
        return self._build, self._serve

    async def run(
        self, unit: str, check_ids: Collection[str] | None, *, label: str = "", a11y: bool = True
    ) -> tuple[int, VerifyReport, float]:
        """Run one checkpoint; returns (index, report, seconds). `a11y` False: a full
        suite without accessibility snapshots (R0, where the task's evidence has them)."""
        self.count += 1
        index = self.count
        t0 = time.monotonic()
        # A sandbox lost since the last checkpoint (container removed, daemon restarted)
        # must not be graded: the earlier serve outcome would point at nothing.
        await self.sandbox.ensure_alive()
        build, served = await self._prepare()
        health = RunHealth(
            **applicability(self.task.contract),
            build_ok=build is None or build.ok,
            build_detail="" if build is None or build.ok else _exec_detail(build),
            serve_ok=served is not None and served.ready,
            serve_detail=_serve_detail(served, build),
            scope_violations=await self.workspace.scope_violations(),
        )
        out = self.artifacts / f"checkpoint-{index:03d}{label}"
        request = VerifyRequest(
            task=self.task,
            base_url=served.base_url if served is not None and served.ready else "",
            check_ids=check_ids,
            health=health,
            artifacts=out,
            workspace=self.workspace,
            server=self._server,
            a11y=a11y,
        )
        report = await self.verifier.verify(request)
        # ...nor one lost while it was verified: the failures would be the sandbox's.
        await self.sandbox.ensure_alive()
        return index, report, time.monotonic() - t0


def _exec_detail(result: ExecResult) -> str:
    tail = result.output_tail.strip().splitlines()[-5:]
    how = "timed out" if result.timed_out else f"exited {result.exit_code}"
    return f"`{result.command}` {how}: " + " | ".join(tail)


def _serve_detail(served: ServeOutcome | None, build: ExecResult | None) -> str:
    if served is None:
        return "not started: the build failed" if build is not None else "not started"
    return "" if served.ready else served.detail
