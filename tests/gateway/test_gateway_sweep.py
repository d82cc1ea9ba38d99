"""Behind the gateway the provider's answers mean what they mean on the LLM path (#41, 2).

Whole sweeps through the CLI, in process: a stand-in agent (stdlib Python, bounded
retries like a real CLI, streaming) runs on the local backend behind the sweep's real
gateway, in front of the strict fake provider on loopback; the fake verifier grades
(`tests.fakesweep`). Each class is asserted on the row, in the report (never scored)
and in `--resume` (re-run, then `ok`).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from orchestrator.cli import main
from orchestrator.llm import FakeProvider, Fault
from orchestrator.records import ManifestRow, read_rows
from orchestrator.report import aggregate, load_run
from tests.fakesweep import fake_engine, serving
from tests.fixtures.tinytask import make_tiny_task

KEY_ENV = "PWB_TEST_GATEWAY_SWEEP_KEY"
KEY = "sk-gateway-sweep-77c4"
CELLS = 2

# Streams one chat completion; on a failed call (an HTTP error, or a stream without its
# end) tries again, TRIES times in all, then exits 1.
AGENT = r"""
import json, os, sys, time, urllib.error, urllib.request
body = json.dumps({"model": "pwb-fake", "stream": True,
                   "messages": [{"role": "user", "content": os.environ["PROMPT"]}]}).encode()
for attempt in range(int(os.environ["TRIES"])):
    req = urllib.request.Request(os.environ["BASE"] + "/chat/completions", data=body,
        headers={"authorization": "Bearer " + os.environ["TOKEN"],
                 "content-type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            text = resp.read().decode()
        if "[DONE]" in text:
            print("done", flush=True)
            sys.exit(0)
        print("stream ended early", flush=True)
    except urllib.error.HTTPError as exc:
        print("status", exc.code, flush=True)
    time.sleep(0.2)
sys.exit(1)
"""

BENCH = """
[sweep]
name = "gw"
runs_dir = "{runs}"
tasks_dir = "{tasks}"
allow_unadmitted = true  # fixture tasks: never admitted
arms = ["full-spec"]
repeats = {cells}
concurrency = 1
backend = "local"
baseline = false
infra_retries = 0

[[providers]]
name = "paid"
kind = "openai"
base_url = "{url}"
model = "pwb-fake"
api_key_env = "{env}"
price_in_per_mtok = 1.0
price_out_per_mtok = 2.0
outage_after = {outage_after}
outage_probe_s = 0.3
outage_max_pause_s = {bound}
{provider_extra}

[[solvers]]
name = "standin"
kind = "scaffold"
provider = "paid"

[solvers.scaffold]
command = ["python3", "-c", '''{agent}''']
env = {{ BASE = "{{openai_base_url}}", TOKEN = "{{token}}", TRIES = "{tries}", PROMPT = "{prompt}" }}
stop_grace_s = 1.0
wall_time_s = {wall}
{scaffold_extra}
"""


def _config(
    tmp: Path,
    url: str,
    *,
    tries: int,
    outage_after: int = 50,
    bound: float = 60,
    wall: float = 60,
    provider_extra: str = "",
    scaffold_extra: str = "",
    prompt: str = "hi",
) -> Path:
    tasks = tmp / "tasks"
    if not tasks.exists():
        make_tiny_task(tasks, turns=1)
    path = tmp / "bench.toml"
    path.write_text(
        BENCH.format(
            runs=tmp / "runs",
            tasks=tasks,
            cells=CELLS,
            url=url,
            env=KEY_ENV,
            outage_after=outage_after,
            bound=bound,
            agent=AGENT,
            tries=tries,
            wall=wall,
            provider_extra=provider_extra,
            scaffold_extra=scaffold_extra,
            prompt=prompt,
        )
    )
    return path


def _sweep(config: Path, *args: str) -> int:
    return main(["--config", str(config), "--quiet", *args])


def _not_scored(tmp: Path, run_dir: Path, status: str, n: int) -> None:
    rep = aggregate(load_run(run_dir, tmp / "tasks"), run_dir.name)
    assert rep.header.statuses.get(status) == n, rep.header.statuses
    assert rep.scores.rows == () and rep.scores_infra_zero.rows == ()


def _resume_reruns(config: Path, run_dir: Path) -> list[ManifestRow]:
    assert _sweep(config, "--resume", str(run_dir), "--no-report") == 0
    rows = read_rows(run_dir / "manifest.jsonl")
    latest = {r.cell: r for r in rows}
    assert len(latest) == CELLS
    assert {r.status for r in latest.values()} == {"ok"}, [r.error for r in latest.values()]
    return rows


@pytest.fixture
def provider(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):  # type: ignore[no-untyped-def]
    fake_engine(monkeypatch, local=True)
    monkeypatch.setenv(KEY_ENV, KEY)
    with serving(FakeProvider(api_key=KEY)) as fake:
        yield fake


def test_insufficient_quota_behind_the_gateway_stops_the_sweep_as_config_error(
    tmp_path: Path, provider: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not an outage (it used to hold agents and probe, then end `outage`): the first
    answer stops the sweep, as on the LLM-solver path."""
    provider.add_faults(Fault(kind="no_credit", times=0))
    config = _config(tmp_path, provider.base_url, tries=4, outage_after=2)
    run_dir = tmp_path / "run"
    code = _sweep(config, "--run-dir", str(run_dir))
    cap = capsys.readouterr()
    assert code == 3, cap.err
    assert "insufficient_quota" in cap.err and "config_error" in cap.err
    assert f"--resume {run_dir}" in cap.out
    rows = read_rows(run_dir / "manifest.jsonl")
    assert Counter(r.status for r in rows) == Counter({"config_error": 1, "cancelled": 1})
    (refused,) = [r for r in rows if r.status == "config_error"]
    assert "insufficient_quota" in refused.error and refused.result is None
    assert len(provider.requests) == 1  # the agent's retries never reached the provider
    _not_scored(tmp_path, run_dir, "config_error", 1)
    provider.clear_faults()  # the account is topped up
    _resume_reruns(config, run_dir)


def test_a_single_401_behind_the_gateway_is_a_config_error(
    tmp_path: Path,
    provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The provider refuses the key the gateway sent (the agent's own token was good):
    the operator's setup, not the model's failure. One answer is enough: the cell ends
    `config_error` naming the variable, the sweep stops (exit 3), nothing is scored, and
    `--resume` with the right key runs the cells. (It used to be `llm_error`: scored 0,
    never re-run.)"""
    monkeypatch.setenv(KEY_ENV, "sk-revoked-" + KEY)
    config = _config(tmp_path, provider.base_url, tries=4)
    run_dir = tmp_path / "run"
    code = _sweep(config, "--run-dir", str(run_dir))
    cap = capsys.readouterr()
    assert code == 3, cap.err
    assert f"${KEY_ENV}" in cap.err and "config_error" in cap.err
    assert f"--resume {run_dir}" in cap.out
    rows = read_rows(run_dir / "manifest.jsonl")
    assert Counter(r.status for r in rows) == Counter({"config_error": 1, "cancelled": 1})
    (refused,) = [r for r in rows if r.status == "config_error"]
    assert f"${KEY_ENV}" in refused.error and "401" in refused.error
    assert "sk-revoked" not in refused.error and refused.result is None
    assert len(provider.requests) == 1  # one 401; the agent's retries stopped at the gateway
    _not_scored(tmp_path, run_dir, "config_error", 1)
    monkeypatch.setenv(KEY_ENV, KEY)  # the operator fixes the key
    _resume_reruns(config, run_dir)


def test_a_provider_dying_mid_stream_behind_the_gateway_is_an_outage(
    tmp_path: Path, provider: FakeProvider
) -> None:
    """The agent gives up on a stream the provider broke off (it never retries here):
    the provider's failure, not the agent's, so `outage` (resumable), not `llm_error`."""
    provider.add_faults(Fault(kind="stream_cut", times=0))
    config = _config(tmp_path, provider.base_url, tries=1)
    run_dir = tmp_path / "run"
    assert _sweep(config, "--run-dir", str(run_dir), "--no-report") == 3
    rows = read_rows(run_dir / "manifest.jsonl")
    assert Counter(r.status for r in rows) == Counter({"outage": CELLS}), [r.error for r in rows]
    assert all("stream ended early" in r.error for r in rows)
    assert all(r.spend.estimated_requests == 1 for r in rows)  # charged, flagged
    _not_scored(tmp_path, run_dir, "outage", CELLS)
    provider.clear_faults()
    _resume_reruns(config, run_dir)


def test_outage_max_pause_s_bounds_an_agent_cell(tmp_path: Path, provider: FakeProvider) -> None:
    """A dead provider and an agent that retries 503s for ever: past the 1.5 s pause
    bound the gateway stops the agent, the cell ends `outage` (it used to run until the
    agent's own wall time, here 60 s)."""
    provider.add_faults(Fault(kind="status", status=503, times=0))
    config = _config(tmp_path, provider.base_url, tries=100_000, outage_after=2, bound=1.5)
    run_dir = tmp_path / "run"
    assert _sweep(config, "--run-dir", str(run_dir), "--no-report") == 3
    rows = read_rows(run_dir / "manifest.jsonl")
    assert Counter(r.status for r in rows) == Counter({"outage": CELLS}), [r.error for r in rows]
    assert all("pause bound" in r.error for r in rows)
    # The bound, the stop grace (1 s), the kill and the cell's own work; never 60 s.
    assert all(r.wall_s < 25 for r in rows), [r.wall_s for r in rows]
    _not_scored(tmp_path, run_dir, "outage", CELLS)
    provider.clear_faults()
    _resume_reruns(config, run_dir)


def test_an_overshoot_of_the_cell_cap_is_flagged_on_the_row_and_in_the_report(
    tmp_path: Path, provider: FakeProvider
) -> None:
    """The call's worst case fits the cap (the provider is configured to answer at most
    one token, so that is what the gateway assumes for a call without max_tokens) but
    the provider answers longer: the cell's spend passes its cap, and says so. (The
    prompt asks for aider's whole-file format: the fake's answer to a side request is a
    few tokens, too short to pass any cap the worst case lets through.)"""
    config = _config(
        tmp_path,
        provider.base_url,
        tries=1,
        prompt="Reply in the *file listing* format.",
        provider_extra="max_output_tokens = 1",
        scaffold_extra="max_usd = 0.0000325",
    )
    run_dir = tmp_path / "run"
    assert _sweep(config, "--run-dir", str(run_dir)) == 0
    rows = read_rows(run_dir / "manifest.jsonl")
    assert {r.status for r in rows} == {"ok"}, [r.error for r in rows]
    for r in rows:
        assert r.spend.cost_usd > 0.0000325
        assert r.spend.overshoot_usd == pytest.approx(r.spend.cost_usd - 0.0000325)
    rep = aggregate(load_run(run_dir, tmp_path / "tasks"), run_dir.name)
    (cost,) = rep.cost
    assert cost.overshoot_cells == CELLS and cost.overshoot_usd > 0
    assert f"({CELLS})" in (run_dir / "report.md").read_text()
