"""Scaffold solver (full-spec arm): an external CLI agent run inside the cell's sandbox.

The command is an argv template; `{prompt_file}` and `{workspace}` are relative to the
workspace (every backend runs commands there). Named environment variables (API keys)
are passed through by name, never written into the command line or the transcript.
A CLI may report spend with a line `pwb-usage: {"input_tokens": N, "output_tokens": N,
"cost_usd": X}`; it is charged to the sweep ledger and checked against `max_usd`.
"""

from __future__ import annotations

import os
import re
import shlex
from typing import Protocol, runtime_checkable

import msgspec

from sandbox import Sandbox

from ..budget import BudgetExceeded, Ledger
from ..workspace import PROMPT_FILE, Workspace
from ._protocol import SolverError, SolverTurn, Usage, UserMessage

_USAGE = re.compile(r"^pwb-usage: (\{.*\})\s*$", re.M)


@runtime_checkable
class SandboxedSolver(Protocol):
    """A solver that runs inside the sandbox; the cell attaches it before the first turn."""

    def attach_sandbox(self, sandbox: Sandbox) -> None: ...


class ScaffoldSolver:
    def __init__(self, name: str, config: object, ledger: Ledger) -> None:
        from ..config import ScaffoldConfig  # config imports llm; keep solvers light

        assert isinstance(config, ScaffoldConfig)
        self.name = name
        self.config = config
        self.ledger = ledger
        self._sandbox: Sandbox | None = None

    def attach_sandbox(self, sandbox: Sandbox) -> None:
        self._sandbox = sandbox

    def _command(self) -> str:
        # Plain replacement, not str.format: commands may contain JSON braces.
        argv = [
            part.replace("{prompt_file}", PROMPT_FILE).replace("{workspace}", ".")
            for part in self.config.command
        ]
        return shlex.join(argv)

    async def respond(self, message: UserMessage, workspace: Workspace) -> SolverTurn:
        if self._sandbox is None:
            raise SolverError("scaffold solver has no sandbox attached")
        await workspace.write_prompt(message.text)
        env = {k: os.environ[k] for k in self.config.pass_env if k in os.environ}
        try:
            result = await self._sandbox.run(
                self._command(), timeout=self.config.wall_time_s, env=env
            )
        finally:
            await workspace.remove_prompt()
        usage = _usage(result.output_tail)
        self.ledger.charge(usage.input_tokens + usage.output_tokens, usage.cost_usd)
        if self.config.max_usd is not None and usage.cost_usd > self.config.max_usd:
            raise BudgetExceeded("money", f"scaffold spent ${usage.cost_usd:.4f}")
        if result.timed_out:
            raise BudgetExceeded("wall_time", f"scaffold ran past {self.config.wall_time_s:g} s")
        note = f"exit {result.exit_code}: " + " | ".join(result.output_tail.splitlines()[-5:])
        return SolverTurn(end="done", note=note, usage=usage)

    async def aclose(self) -> None:
        self._sandbox = None


def _usage(output: str) -> Usage:
    found = _USAGE.findall(output)
    if not found:
        return Usage()
    try:
        return msgspec.json.decode(found[-1].encode(), type=Usage)
    except msgspec.DecodeError:
        return Usage()
