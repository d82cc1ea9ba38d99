"""Fakes at the far side of the sandbox and verifier seams (Protocols), for tests that
drive whole cells and sweeps without Docker or a browser.

`Faults` injects one failure at a named point (`open`, `alive`, `install`, `build`,
`serve`, `verify`) on chosen calls; everything else behaves like a healthy backend and a
site that passes every check. At `install` and `build` an injected `CommandFails` is not
raised: the command runs and fails (a non-zero exit or a timeout), as a broken build does.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from orchestrator.records import CheckResult, GateResult, VerifyReport
from orchestrator.verifier import VerifyRequest
from sandbox import ExecResult, ImageBuilder, Labels, Limits, Own, Sandbox, ServeOutcome, ServeSpec

Point = Literal["open", "alive", "install", "build", "serve", "verify"]
# (point, cell label, call number at that point for that cell) -> exception or None
Injector = Callable[[Point, str, int], BaseException | None]


@dataclass
class Faults:
    inject: Injector = lambda point, cell, n: None
    calls: Counter[tuple[Point, str]] = field(default_factory=Counter)

    def hit(self, point: Point, cell: str) -> None:
        self.calls[(point, cell)] += 1
        exc = self.inject(point, cell, self.calls[(point, cell)])
        if exc is not None:
            raise exc


_OK = ExecResult(command="", exit_code=0, output_tail="", duration_s=0.0)


class CommandFails(Exception):
    """Injected at `install`/`build`: the command exits `exit_code` (or times out) with
    the message as its output tail, rather than the sandbox failing."""

    def __init__(
        self,
        output: str = "error",
        *,
        command: str = "make",
        exit_code: int = 1,
        timed_out: bool = False,
    ) -> None:
        super().__init__(output)
        self.result = ExecResult(
            command=command,
            exit_code=exit_code,
            output_tail=output,
            duration_s=0.0,
            timed_out=timed_out,
        )


def _command(faults: Faults, point: Point, cell: str) -> ExecResult:
    try:
        faults.hit(point, cell)
    except CommandFails as exc:
        return exc.result
    return _OK


@dataclass
class FakeSandbox:
    root: Path
    cell: str
    faults: Faults
    isolated: bool = False

    @property
    def workspace(self) -> Path:
        return self.root

    async def run(
        self, command: str, *, timeout: float = 600.0, env: Mapping[str, str] | None = None
    ) -> ExecResult:
        return _OK

    async def install(self) -> ExecResult:
        return _command(self.faults, "install", self.cell)

    async def build(self) -> ExecResult:
        return _command(self.faults, "build", self.cell)

    async def serve(self) -> ServeOutcome:
        self.faults.hit("serve", self.cell)
        return ServeOutcome(ready=True, base_url=f"http://fake.invalid/{self.cell}")

    async def stop_server(self) -> None:
        return None

    async def ensure_alive(self) -> None:
        self.faults.hit("alive", self.cell)

    def logs_tail(self) -> str:
        return ""


class NoLifecycle:
    """A test backend's lifecycle hooks (`sandbox.ManagedBackend`): the local backend's,
    no-ops (no network, no image, no daemon)."""

    @asynccontextmanager
    async def session(self, own: Own) -> AsyncIterator[None]:
        yield

    async def network_gateway(
        self, sweep: str, limits: Limits | None = None, *, lock: str = ""
    ) -> str:
        return ""

    async def task_image(self, stack: str, repo: Path, builder: ImageBuilder | None = None) -> str:
        return ""

    async def await_daemon(self, timeout: float) -> None:
        return None


@dataclass
class FakeBackend(NoLifecycle):
    faults: Faults = field(default_factory=Faults)
    name: Literal["docker", "local"] = "local"

    @asynccontextmanager
    async def open(
        self, workspace: Path, spec: ServeSpec, labels: Labels, limits: Limits | None = None
    ) -> AsyncIterator[Sandbox]:
        self.faults.hit("open", labels.cell)
        yield FakeSandbox(root=workspace, cell=labels.cell, faults=self.faults)


class FakeVerifierBase:
    """The tests' fake verifiers, at the `Verifier` seam typed once: `grade` answers a
    request, `amend` may change the answer (a planted change, a drifted environment,
    accessibility snapshots). Each fake overrides one or both."""

    async def verify(self, request: VerifyRequest) -> VerifyReport:
        return self.amend(request, await self.grade(request))

    async def grade(self, request: VerifyRequest) -> VerifyReport:
        raise NotImplementedError

    def amend(self, request: VerifyRequest, report: VerifyReport) -> VerifyReport:
        return report


@dataclass
class FakeVerifier(FakeVerifierBase):
    """A site that passes every check it is asked about (the base URL names the cell)."""

    faults: Faults = field(default_factory=Faults)

    async def grade(self, request: VerifyRequest) -> VerifyReport:
        task, base_url, check_ids = request.task, request.base_url, request.check_ids
        self.faults.hit("verify", base_url.rsplit("/", 1)[-1])
        wanted = [c for c in task.contract.checks if check_ids is None or c.id in check_ids]
        checks = tuple(
            CheckResult(id=c.id, gate=c.gate, state=c.state, passed=bool(base_url)) for c in wanted
        )
        gates = tuple(
            GateResult(gate=g, status="pass" if base_url else "fail")
            for g in sorted({c.gate for c in checks})
        )
        return VerifyReport(checks=checks, gates=gates)
