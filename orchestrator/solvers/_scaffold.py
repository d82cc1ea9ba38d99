"""Scaffold solver (full-spec arm): an external CLI agent run inside the cell's sandbox.

The agent's only model access is the sweep's LLM gateway (`orchestrator.gateway`): the
cell opens an account there and the agent gets its token in place of an API key, so
spend is metered from the provider's own usage, capped per cell and per sweep, and the
real key never enters the sandbox. The command is an argv template (see
`ScaffoldConfig`); it runs under `env -i` with only the preset's env, `pass_env` and
HOME (a fresh directory outside the workspace), in a process group the harness kills
once the gateway has refused a call for budget and `stop_grace_s` has passed.

How the run ended is judged from the gateway, not from the agent's exit code alone (some
agents exit 0 after API errors), and kept as `verdict()` for the sweep, which records
the scored delivery with it (the turn itself ends normally, so the cell takes its final
checkpoint and the turn's usage is counted):

    the provider refused the setup         -> ProviderRefused (config_error, sweep stops)
    a budget refusal by the gateway        -> BudgetExceeded(money | tokens)
    an outage past the pause bound, or the
      agent gave up on provider failures
      while the provider was still failing -> ProviderOutage (outage, re-run on resume)
    the agent's (or the cell's) time ran out -> BudgetExceeded(wall_time)
    a non-zero exit                        -> LLMError
    no successful model call               -> LLMError
    provider errors it did not get past    -> LLMError
"""

from __future__ import annotations

import math
import os
import shlex
import shutil
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

import anyio

from sandbox import ExecResult, Sandbox

from ..budget import BudgetExceeded, Ledger, time_left
from ..events import Agent, AgentRun, EventLog
from ..gateway import Account, Gateway
from ..llm import LLMError, ProviderOutage, ProviderRefused
from ..workspace import PROMPT_FILE, Workspace
from ._lifecycle import CellBinding, Verdict
from ._protocol import SolverError, SolverTurn, Usage, UserMessage

if TYPE_CHECKING:
    from ..config import ScaffoldConfig

OUTPUT_LINES = 200
_KILL_S = 5.0
_CLEANUP_S = 30.0
# The agent's own timeout fires this long before the solver phase ends, so its output
# and the gateway's log are still recorded (the final checkpoint has its own grace).
_MARGIN_S = 15.0


def _fill(template: str, values: dict[str, str]) -> str:
    # Plain replacement, not str.format: commands may contain JSON braces.
    for key, value in values.items():
        template = template.replace("{" + key + "}", value)
    return template


def _wrapper(argv: list[str], names: list[str], home: str, pgid_file: str, files: list[str]) -> str:
    """sh: record the process group, write `files` (their text in $PWB_FILE_<i>) into
    $HOME, then run argv with nothing but PATH, HOME and the named variables."""
    keep = " ".join(f'{n}="${n}"' for n in ["PATH", *names])
    q = shlex.quote
    writes = "".join(
        f'mkdir -p "$(dirname {q(home + "/" + f)})" && '
        f'printf %s "$PWB_FILE_{i}" > {q(home + "/" + f)} || exit 125; '
        for i, f in enumerate(files)
    )
    return (
        f"mkdir -p {q(home)} || exit 125; {writes}"
        f"read -r _ _ _ _ pg _ < /proc/$$/stat; echo $pg > {q(pgid_file)}; "
        # The local backend's process marker survives `env -i` (sandbox/_reap.py).
        f"env -i {keep} ${{PWB_SANDBOX:+PWB_SANDBOX=$PWB_SANDBOX}} HOME={q(home)} "
        "LANG=C.UTF-8 TERM=dumb "
        f"{shlex.join(argv)} </dev/null 2>&1; "
        f"code=$?; rm -rf {q(home)}; exit $code"
    )


# The sandbox's own memory cgroup (Docker mounts it read-only in the container: cgroup v1
# or v2): how many processes its limit killed, and the peak, when an agent died of SIGKILL.
_OOM_PROBE = (
    "cat /sys/fs/cgroup/memory/memory.oom_control /sys/fs/cgroup/memory.events 2>/dev/null; "
    "for f in /sys/fs/cgroup/memory/memory.max_usage_in_bytes /sys/fs/cgroup/memory.peak; "
    'do [ -r "$f" ] && echo "peak $(cat "$f")"; done; true'
)


def _oom_note(probe: str) -> str:
    """' (killed by the sandbox's memory limit ...)' from the probe's output, or ''."""
    fields = dict(line.split(None, 1) for line in probe.splitlines() if len(line.split()) == 2)
    kills = fields.get("oom_kill", "")
    if not kills.isdigit():
        return ""
    peak = fields.get("peak", "")
    mib = f", peak {int(peak) // 2**20} MiB" if peak.isdigit() else ""
    if int(kills):
        return f" (killed by the sandbox's memory limit: oom_kill {kills}{mib})"
    return f" (SIGKILL, not by the sandbox's memory limit: oom_kill 0{mib})"


def _kill_script(pgid_file: str) -> str:
    f = shlex.quote(pgid_file)
    return (
        f"p=$(cat {f} 2>/dev/null) || exit 0; rm -f {f}; "
        f"kill -s TERM -- -$p 2>/dev/null || exit 0; "
        f"i=0; while [ $i -lt 30 ]; do kill -s 0 -- -$p 2>/dev/null || exit 0; "
        f"sleep 0.1; i=$((i+1)); done; kill -s KILL -- -$p 2>/dev/null; exit 0"
    )


class ScaffoldSolver:
    def __init__(self, name: str, config: ScaffoldConfig, ledger: Ledger, provider: str) -> None:
        self.name = name
        self.config = config
        self.ledger = ledger
        self.provider = provider
        self.runs: list[AgentRun] = []
        self._log: EventLog | None = None
        self._timeout_s = 0.0
        self._sandbox: Sandbox | None = None
        self._gateway: Gateway | None = None
        self._host = ""
        self._cell = name
        self._verdict: Verdict | None = None
        self._oom = ""

    @asynccontextmanager
    async def bind(self, cell: CellBinding) -> AsyncIterator[None]:
        """The agent runs in the cell's sandbox, logs to its events and reaches its model
        through the cell's gateway account, for the delivery only."""
        self._sandbox, self._log = cell.sandbox, cell.log
        if cell.gateway is not None:
            self._gateway, self._host = cell.gateway.gateway, cell.gateway.host
            self._cell = cell.gateway.account
        try:
            yield
        finally:
            self._sandbox = self._log = self._gateway = None

    def verdict(self) -> Verdict | None:
        return self._verdict

    async def respond(self, message: UserMessage, workspace: Workspace) -> SolverTurn:
        if self._sandbox is None or self._gateway is None:
            raise SolverError("scaffold solver: no sandbox or gateway attached")
        cfg = self.config
        acct = self._gateway.open_account(
            self._cell, self.provider, self.ledger, max_usd=cfg.max_usd, max_tokens=cfg.max_tokens
        )
        await workspace.write_prompt(message.text)
        run: AgentRun | None = None
        try:
            result, killed = await self._run(self._sandbox, acct)
            run = self._judge(acct, result, killed)
        finally:
            self._gateway.close_account(acct)
            with anyio.move_on_after(_CLEANUP_S, shield=True):
                await workspace.remove_prompt()
                await anyio.to_thread.run_sync(self._remove_state, workspace)
            if run is None:  # cancelled (the cell's deadline, a stopped sweep)
                run = AgentRun(
                    exit_code=-1, timed_out=True, verdict="cancelled", requests=tuple(acct.log)
                )
            self.runs.append(run)
            if self._log is not None:
                self._log.emit(Agent(run=run))
        usage = Usage(
            input_tokens=sum(r.input_tokens for r in acct.log),
            output_tokens=sum(r.output_tokens for r in acct.log),
            cost_usd=acct.spent_usd,
            requests=len(acct.log),
        )
        note = f"exit {run.exit_code}: {run.verdict or 'ok'}"
        return SolverTurn(end="done", note=note, usage=usage)

    def _values(self, acct: Account, home: str) -> dict[str, str]:
        assert self._gateway is not None
        gateway = self._gateway.url(self._host)
        return {
            "prompt_file": PROMPT_FILE,
            "workspace": ".",
            "model": acct.upstream.provider.model,
            "home": home,
            "gateway": gateway,
            "openai_base_url": gateway + "/v1",
            "token": acct.token,
        }

    async def _run(self, sandbox: Sandbox, acct: Account) -> tuple[ExecResult, bool]:
        cfg = self.config
        tag = uuid.uuid4().hex[:12]
        home = f"/tmp/pwb-agent-{tag}"
        pgid_file = f"/tmp/pwb-agent-{tag}.pgid"
        values = self._values(acct, home)
        argv = [_fill(part, values) for part in cfg.command]
        env = {k: _fill(v, values) for k, v in cfg.env.items()}
        env |= {k: os.environ[k] for k in cfg.pass_env if k in os.environ}
        names = sorted(env)
        files = sorted(cfg.files)
        env |= {f"PWB_FILE_{i}": _fill(cfg.files[f], values) for i, f in enumerate(files)}
        script = _wrapper(argv, names, home, pgid_file, files)
        timeout = cfg.wall_time_s
        left = time_left()
        if math.isfinite(left):
            timeout = min(timeout, left - _MARGIN_S)
        self._timeout_s = timeout = max(timeout, 1.0)
        killed = False

        async def stop_on_refusal() -> None:
            nonlocal killed
            await acct.stopped.wait()
            await anyio.sleep(cfg.stop_grace_s)
            killed = True
            with anyio.move_on_after(_KILL_S + 10, shield=True):
                await sandbox.run(_kill_script(pgid_file), timeout=_KILL_S + 5)

        async with anyio.create_task_group() as tg:
            tg.start_soon(stop_on_refusal)
            try:
                result = await sandbox.run(script, timeout=timeout, env=env)
            finally:
                tg.cancel_scope.cancel()
                with anyio.move_on_after(_KILL_S + 10, shield=True):  # whatever it left running
                    await sandbox.run(_kill_script(pgid_file), timeout=_KILL_S + 5)
        self._oom = ""
        if result.exit_code == 137 and not killed:  # SIGKILL: was it the memory limit?
            probe = await sandbox.run(_OOM_PROBE, timeout=10)
            self._oom = _oom_note(probe.output_tail)
        return result, killed

    def _classify(self, acct: Account, result: ExecResult, killed: bool) -> Verdict | None:
        """What ended the agent's run, when it was not a clean finish (None)."""
        failed = bool(acct.errors or acct.transient) or result.exit_code != 0
        breaker = acct.upstream.breaker
        if acct.config:
            return ProviderRefused(acct.config)
        if acct.budget is not None:
            return BudgetExceeded(acct.budget[0], acct.budget[1])
        if acct.outage:
            return ProviderOutage(acct.outage)
        if acct.held_s >= 1.0 and (result.timed_out or failed or acct.ok_calls == 0):
            # The gateway held its calls through a provider outage, and the run did not
            # finish cleanly: the outage took its time, not the agent.
            return ProviderOutage(
                f"the agent's run overlapped a provider outage (its calls waited "
                f"{acct.held_s:.0f} s) and did not finish cleanly"
            )
        if result.timed_out or (
            # `timeout -k` exits 137 when the command had to be killed after its TERM
            result.exit_code == 137 and not killed and result.duration_s >= self._timeout_s
        ):
            return BudgetExceeded("wall_time", "the agent ran out of time")
        if acct.transient and not acct.errors and breaker is not None and breaker.failing:
            # It gave up on failures of the provider's (5xx, 429, a stream that died, the
            # provider unreachable), and the provider has not answered anyone since: as
            # for the LLM path, the provider's outage, not the agent's failure.
            return ProviderOutage(
                "the agent's last model calls failed and the provider has not answered "
                "since: " + " | ".join(acct.transient[-3:])
            )
        if acct.errors or acct.transient:
            return LLMError("provider errors: " + " | ".join([*acct.errors, *acct.transient][-3:]))
        if result.exit_code != 0:
            return LLMError(f"the agent exited {result.exit_code}{self._oom}")
        if acct.ok_calls == 0:
            return LLMError("the agent made no successful model call")
        return None

    def _judge(self, acct: Account, result: ExecResult, killed: bool) -> AgentRun:
        verdict = self._classify(acct, result, killed)
        self._verdict = self._verdict or verdict
        return AgentRun(
            exit_code=result.exit_code,
            timed_out=result.timed_out
            or (isinstance(verdict, BudgetExceeded) and verdict.kind == "wall_time"),
            killed=killed,
            duration_s=round(result.duration_s, 3),
            timeout_s=round(self._timeout_s, 3),
            verdict=str(verdict) if verdict else "",
            output=tuple(result.output_tail.splitlines()[-OUTPUT_LINES:]),
            requests=tuple(acct.log),
            tokens=acct.spent_tokens,
            cost_usd=acct.spent_usd,
        )

    def _remove_state(self, workspace: Workspace) -> None:
        """The agent's own state files in the workspace are not its delivery."""
        root = workspace.root
        for pattern in self.config.state:
            for path in root.glob(pattern):
                parents = path.relative_to(root).parents
                if any((root / p).is_symlink() for p in parents if str(p) != "."):
                    continue  # never through a link the agent planted
                if path.is_symlink() or path.is_file():
                    path.unlink(missing_ok=True)
                elif path.is_dir():
                    shutil.rmtree(path, ignore_errors=True)

    async def aclose(self) -> None:
        self._sandbox = None
