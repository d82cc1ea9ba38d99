"""Real CLI agents in the full-spec arm: agent images, the LLM gateway, honest outcomes.

Whole sweeps on Docker (the firewall lets the sandbox reach only the gateway) with the
fake provider behind the gateway, so no key is needed: aider from PyPI, and a scripted
stand-in agent where a test needs an agent that misbehaves on cue.
"""

from __future__ import annotations

import os
from pathlib import Path

import msgspec
import pytest

from orchestrator import events as ev
from orchestrator.config import BenchConfig, ScaffoldConfig, SolverConfig, SweepConfig, load_config
from orchestrator.events import AgentRun, read_events
from orchestrator.llm import FakeProvider, ProviderConfig
from orchestrator.records import ManifestRow
from orchestrator.sweep import SweepOptions, run_sweep
from tests.fixtures.tinytask import make_tiny_task

# A fresh machine builds aider's image in the first test (~3 min on 2 busy cores) unless
# scripts/install already did (`images build --agents bench.toml`).
pytestmark = [
    pytest.mark.anyio,
    pytest.mark.docker,
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.timeout(1800),
]
ROOT = Path(__file__).resolve().parents[2]
KEY_ENV = "PWB_TEST_AGENT_KEY"
KEY = "sk-pwb-AGENT-SECRET-51e0"
FAKE = ProviderConfig(
    name="fake", kind="fake", model="pwb-fake", price_in_per_mtok=10.0, price_out_per_mtok=10.0
)

# A stand-in agent (stdlib Python, runs in any image with python3): one model call, one
# edit, then it keeps calling and never exits on its own, whatever the gateway answers.
STANDIN = r"""
import json, os, sys, time, urllib.error, urllib.request
def call():
    body = json.dumps({"model": "pwb-fake", "messages": [{"role": "user", "content": "hi"}]})
    req = urllib.request.Request(os.environ["BASE"] + "/chat/completions", data=body.encode(),
        headers={"authorization": "Bearer " + os.environ["TOKEN"], "content-type": "application/json"})
    try:
        return urllib.request.urlopen(req, timeout=30).status
    except urllib.error.HTTPError as exc:
        return exc.code
print("first call", call(), flush=True)
text = open("index.html").read()
open("index.html", "w").write(text.replace(">Welcome<", ">Welcome back<"))
print("edited", sorted(os.environ), flush=True)
while True:
    print("call", call(), flush=True)
    time.sleep(0.3)
"""


def preset(name: str) -> SolverConfig:
    cfg = load_config(ROOT / "bench.toml")
    return next(s for s in cfg.solvers if s.name == name)


def aider_preset() -> SolverConfig:
    return preset("aider")


# Agents whose end-to-end tests run by default (their image builds on first use in the
# test, content-hash cached); the others only when named in PWB_TEST_AGENTS
# (comma-separated, or "all"): OpenCode's runs take about a minute each.
CI_AGENTS = ("codex", "mini-swe-agent")
AGENTS_ENV = "PWB_TEST_AGENTS"


def wanted(agent: str) -> None:
    named = {a.strip() for a in os.environ.get(AGENTS_ENV, "").split(",") if a.strip()}
    if agent not in CI_AGENTS and agent not in named and "all" not in named:
        pytest.skip(f"{agent}: set {AGENTS_ENV}={agent} (or all) to run it (too slow for CI)")


def bench(
    tmp: Path, solver: SolverConfig, provider: ProviderConfig = FAKE, **sweep: object
) -> BenchConfig:
    tasks = tmp / "tasks"
    if not tasks.exists():
        make_tiny_task(tasks)
    return BenchConfig(
        sweep=SweepConfig(
            name=tmp.name[:20],
            runs_dir=str(tmp / "runs"),
            tasks_dir=str(tasks),
            arms=("full-spec",),
            backend="docker",
            baseline=False,
            concurrency=1,
            infra_retries=0,
            **sweep,  # type: ignore[arg-type]
        ),
        providers=(provider,),
        solvers=(msgspec.structs.replace(solver, provider=provider.name),),
    )


async def sweep(tmp: Path, cfg: BenchConfig) -> tuple[ManifestRow, list[AgentRun]]:
    out = await run_sweep(cfg, SweepOptions(run_dir=tmp / "run", progress="quiet"))
    run_dir, rows = out.run_dir, out.rows
    (row,) = rows
    events = read_events(run_dir / "cells" / row.cell.replace("/", "__") / "events.jsonl")
    return row, [e.run for e in events if isinstance(e, ev.Agent)]


def error(row: ManifestRow) -> str:
    return str(getattr(row.outcome, "error", ""))


def cleared(row: ManifestRow) -> list[bool]:
    assert row.result is not None, row.outcome
    return [u.cleared for u in row.result.units]


async def test_aider_clears_a_static_task_through_the_metering_gateway(
    require_docker: None, require_chromium: None, tmp_path: Path
) -> None:
    row, runs = await sweep(tmp_path, bench(tmp_path, aider_preset()))
    assert row.image.startswith("pwb-agent:"), row.image  # aider's layer on the stack image
    (run,) = runs
    assert row.status == "ok", (error(row), run.output[-20:])
    assert cleared(row) == [True, True, True]
    assert row.scores is not None and row.scores.final_pass  # its .aider* files are not delivery
    # Metered by the gateway from the provider's usage, never from aider's own output.
    calls = [r for r in run.requests if r.path == "/v1/chat/completions"]
    assert calls and all(r.status == 200 and not r.estimated for r in calls)
    assert calls[0].stream  # aider streams: usage came from the SSE stream
    metered = sum(r.cost_usd for r in run.requests)
    assert metered > 0 and row.spend.cost_usd == pytest.approx(metered)
    assert row.spend.tokens == sum(r.input_tokens + r.output_tokens for r in run.requests)
    assert run.exit_code == 0 and any("Applied edit to index.html" in line for line in run.output)


@pytest.mark.full
async def test_a_low_cap_stops_the_agent_mid_run_and_its_delivery_is_scored(
    require_docker: None, require_chromium: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PWB_PASSED", "visible")
    monkeypatch.setenv("PWB_HOST_ONLY", "must-not-reach-the-agent")
    standin = SolverConfig(
        name="standin",
        kind="scaffold",
        scaffold=ScaffoldConfig(
            command=("python3", "-c", STANDIN),
            env={"BASE": "{openai_base_url}", "TOKEN": "{token}"},
            pass_env=("PWB_PASSED",),
            max_usd=0.000001,  # the first call's worst case is already more (#41)
            stop_grace_s=1.0,
        ),
    )
    row, (run,) = await sweep(tmp_path, bench(tmp_path, standin))
    assert row.status == "budget", error(row)
    assert row.outcome.kind == "money" and "cap" in error(row)  # type: ignore[union-attr]
    # What it delivered before the cap is scored: u1's edit is there, u2/u3 are not.
    assert cleared(row) == [True, False, False]
    assert row.scores is not None and not row.scores.final_pass
    assert run.killed and not run.timed_out  # it never stopped by itself
    forwarded = [r for r in run.requests if not r.refused]
    refused = [r for r in run.requests if r.refused]
    # #41: the gateway refuses a call whose worst case (prompt + max_tokens at the price)
    # does not fit what is left of the cap, so nothing is spent past it (it used to let
    # the first call through and overshoot).
    assert forwarded == [] and refused and all(r.status == 429 for r in refused)
    assert row.spend.cost_usd == 0.0 and row.spend.overshoot_usd == 0.0
    assert "first call 429" in run.output and any(
        line.startswith("call 429") for line in run.output
    )
    env_line = next(line for line in run.output if line.startswith("edited"))
    assert "PWB_PASSED" in env_line and "PWB_HOST_ONLY" not in env_line


def _keyed_provider(fake: FakeProvider) -> ProviderConfig:
    """The fake provider as a real one: it wants the key named by KEY_ENV."""
    return ProviderConfig(
        name="real", kind="openai", model="pwb-fake", base_url=fake.base_url, api_key_env=KEY_ENV
    )


@pytest.mark.full
async def test_a_provider_401_is_config_error_never_ok(
    require_docker: None, require_chromium: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-wrong-key")
    task_dir = make_tiny_task(tmp_path / "tasks")
    async with FakeProvider(task_dir=task_dir, api_key=KEY) as fake:
        provider = _keyed_provider(fake)
        row, (run,) = await sweep(tmp_path, bench(tmp_path, aider_preset(), provider))
    # #41: the key the gateway sent was refused: the operator's setup, not the model's
    # failure (it used to be a scored `llm_error`): no result, the sweep stops.
    assert row.status == "config_error", (row.status, error(row))
    assert "401" in error(row) and f"${KEY_ENV}" in error(row)
    assert row.result is None
    sent = [r for r in run.requests if not r.refused]
    assert len(sent) == 1 and sent[0].status == 401  # one answer decides it
    assert row.spend.cost_usd == 0.0
    for path in (tmp_path / "run").rglob("*"):
        if path.is_file():
            assert b"sk-wrong-key" not in path.read_bytes(), path
    assert os.environ[KEY_ENV] == "sk-wrong-key"


# (preset, the API it speaks, whether it streams)
SHELL_AGENTS = [
    pytest.param("codex", "/v1/responses", True, id="codex"),
    pytest.param("mini-swe-agent", "/v1/chat/completions", False, id="mini-swe-agent"),
    pytest.param("opencode", "/v1/chat/completions", True, id="opencode"),
]


@pytest.mark.full
@pytest.mark.parametrize(("name", "path", "streams"), SHELL_AGENTS)
async def test_a_shell_agent_clears_a_static_task_through_the_gateway(
    require_docker: None,
    require_chromium: None,
    tmp_path: Path,
    name: str,
    path: str,
    streams: bool,
) -> None:
    """The preset as shipped, its image built on first use: the agent works through its
    own shell tool, the fake plays the reference, the gateway meters every call."""
    wanted(name)
    row, runs = await sweep(tmp_path, bench(tmp_path, preset(name)))
    assert row.image.startswith("pwb-agent:"), row.image
    (run,) = runs
    assert row.status == "ok", (error(row), run.output[-30:])
    assert cleared(row) == [True, True, True]
    assert row.scores is not None and row.scores.final_pass  # nothing of its state is left
    calls = [r for r in run.requests if r.path == path]
    assert len(calls) >= 2, run.requests  # the edit, then the finish after its output
    assert all(r.status == 200 and not r.estimated and r.stream == streams for r in calls)
    metered = sum(r.cost_usd for r in run.requests)
    assert metered > 0 and row.spend.cost_usd == pytest.approx(metered)
    assert row.spend.tokens == sum(r.input_tokens + r.output_tokens for r in run.requests)
    assert run.exit_code == 0 and not run.killed


@pytest.mark.full
@pytest.mark.parametrize(("name", "path", "streams"), SHELL_AGENTS)
async def test_a_cap_stops_a_shell_agent_after_its_first_call(
    require_docker: None,
    require_chromium: None,
    tmp_path: Path,
    name: str,
    path: str,
    streams: bool,
) -> None:
    """Its first call's worst case (prompt + max_tokens at the price) is past the cap:
    the gateway refuses it unsent (OpenAI's 429 insufficient_quota; #41: it used to let
    a one-call agent spend past the cap); the cell ends `budget` (Codex exits 1 on it,
    OpenCode keeps retrying and is killed after stop_grace_s), spends nothing, and what
    it delivered (nothing) is scored."""
    wanted(name)
    solver = preset(name)
    assert solver.scaffold is not None
    scaffold = msgspec.structs.replace(solver.scaffold, max_usd=0.000001, stop_grace_s=5.0)
    row, (run,) = await sweep(
        tmp_path, bench(tmp_path, msgspec.structs.replace(solver, scaffold=scaffold))
    )
    assert row.status == "budget", (row.status, error(row), run.output[-30:])
    assert row.outcome.kind == "money" and "cap" in error(row)  # type: ignore[union-attr]
    forwarded = [r for r in run.requests if not r.refused]
    refused = [r for r in run.requests if r.refused]
    assert forwarded == [] and refused and refused[0].path == path
    assert all(r.status == 429 and "worst case" in r.error for r in refused)
    assert row.spend.cost_usd == 0.0 and row.spend.overshoot_usd == 0.0
    assert cleared(row) == [False] * 3  # no model call, no edit: scored as delivered


@pytest.mark.full
@pytest.mark.parametrize(("name", "path", "streams"), SHELL_AGENTS)
async def test_a_provider_401_ends_a_shell_agent_config_error(
    require_docker: None,
    require_chromium: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    path: str,
    streams: bool,
) -> None:
    wanted(name)
    monkeypatch.setenv(KEY_ENV, "sk-wrong-key")
    task_dir = make_tiny_task(tmp_path / "tasks")
    async with FakeProvider(task_dir=task_dir, api_key=KEY) as fake:
        provider = _keyed_provider(fake)
        row, (run,) = await sweep(tmp_path, bench(tmp_path, preset(name), provider))
    assert row.status == "config_error", (row.status, error(row), run.output[-30:])
    assert "401" in error(row) and f"${KEY_ENV}" in error(row)
    assert row.result is None  # no result: never scored, --resume re-runs it
    sent = [r for r in run.requests if not r.refused]
    assert len(sent) == 1 and sent[0].status == 401 and sent[0].path == path
    assert row.spend.cost_usd == 0.0
    for p in (tmp_path / "run").rglob("*"):
        if p.is_file():
            assert b"sk-wrong-key" not in p.read_bytes(), p


@pytest.mark.full
async def test_an_agent_killed_by_the_memory_limit_says_so(
    require_docker: None, require_chromium: None, tmp_path: Path
) -> None:
    """A SIGKILL (exit 137) before the agent's time is up is not a timeout: the row is
    `llm_error` and names the sandbox's memory limit when its cgroup's OOM killer did it."""
    hog = SolverConfig(
        name="hog",
        kind="scaffold",
        scaffold=ScaffoldConfig(
            command=("python3", "-c", STANDIN.split("text = ")[0] + "x = b'x' * (4 << 30)\n"),
            env={"BASE": "{openai_base_url}", "TOKEN": "{token}"},
        ),
    )
    row, (run,) = await sweep(tmp_path, bench(tmp_path, hog))
    assert run.exit_code == 137 and not run.timed_out and not run.killed, run
    assert row.status == "llm_error", (row.status, error(row))
    assert "exited 137" in error(row) and "memory limit: oom_kill 1" in error(row), error(row)
    assert row.scores is not None  # still scored
