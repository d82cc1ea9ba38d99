"""Whole cells recorded as cassettes and replayed without the provider (#56).

`record` runs a small sweep on the fake sandbox and the oracle verifier
(`tests.fakesweep`, `tests.oracle`): the in-harness agent on a staged and a full-spec cell
of the cheapest shipped static task, and a stand-in CLI agent (stdlib Python, streaming)
on the full-spec arm through the sweep's real gateway, each provider an `openai` one
whose `base_url` is a strict `FakeProvider` on loopback standing in for llama.cpp's
server, with `[sweep] cassettes = "record"`. The agent's provider serves, first, the
model's mistakes (`MISTAKES`): answers recorded from llama.cpp's server
(`fixtures/local/`) and cases derived from their envelope, and the fake's own scripted
faults; then the task's reference. `keep` copies the run's cassettes into
`fixtures/cassettes/<name>/` with `expected.json`: each row's class and result, and
each slip event, as the recording run produced them. `replay` runs the same sweep with
`cassettes = "replay"` against a `base_url` where nothing listens.

    python -m tests.llm.cassettes [NAME]    # record the fake sweep again and keep it

A live run's cassettes are kept the same way (`keep RUN_DIR NAME`, README "A local model").
"""

from __future__ import annotations

import copy
import json
import shutil
import sys
import tempfile
import tomllib
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from orchestrator import events as ev
from orchestrator.budget import Ledger
from orchestrator.cli import main
from orchestrator.events import read_events
from orchestrator.gateway import Gateway, Upstream
from orchestrator.llm import CassetteDeck, FakeProvider, Fault, ProviderConfig, read_cassette
from orchestrator.records import read_rows
from tests.fakesweep import fake_engine, serving
from tests.oracle import OracleVerifier

ROOT = Path(__file__).resolve().parents[2]
LOCAL = Path(__file__).parent / "fixtures" / "local"
CASSETTES = Path(__file__).parent / "fixtures" / "cassettes"
TASK = "hollin-ridge-sessions"  # the cheapest shipped static task: 3 units, 8 states
DEAD = "http://127.0.0.1:9/v1"  # nothing listens: a replay that asked the provider fails

# The stand-in CLI agent: two chat completions through the gateway, the first streamed,
# the second carrying the first answer back (a conversation of two turns).
AGENT = r"""
import json, os, urllib.request
def ask(messages, stream):
    body = {"model": "pwb-fake", "stream": stream, "messages": messages}
    req = urllib.request.Request(os.environ["BASE"] + "/chat/completions",
        data=json.dumps(body).encode(), headers={"authorization": "Bearer " +
        os.environ["TOKEN"], "content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as resp:
        return resp.read().decode()
prompt = open(os.environ["PROMPT_FILE"]).read()
messages = [{"role": "system", "content": "You are a stand-in agent."},
            {"role": "user", "content": prompt}]
first = ask(messages, True)
messages += [{"role": "assistant", "content": "(streamed %d bytes)" % len(first)},
             {"role": "user", "content": "Go on."}]
second = json.loads(ask(messages, False))
print("done", second["choices"][0]["finish_reason"], flush=True)
"""

BENCH = """
[sweep]
name = "cassettes"
runs_dir = "{runs}"
tasks_dir = "{tasks}"
tasks = ["{task}"]
arms = ["staged", "full-spec"]
repeats = 1
concurrency = 1
backend = "local"
baseline = false
infra_retries = 0
cassettes = "{mode}"
{cassette_dir}

[[providers]]
name = "local"
kind = "openai"
base_url = "{url}"
model = "gemma-3-270m"
max_connections = 1
max_output_tokens = 128
max_attempts = 1

[[providers]]
name = "cli"
kind = "openai"
base_url = "{cli_url}"
model = "pwb-fake"
max_attempts = 1

[[solvers]]
name = "local-llm"
kind = "llm"
provider = "local"
options = {{ preservation_clause = true, max_steps_per_turn = 8 }}

[[solvers]]
name = "standin"
kind = "scaffold"
provider = "cli"
arms = ["full-spec"]
[solvers.scaffold]
command = ["python3", "-c", '''{agent}''']
env = {{ BASE = "{{openai_base_url}}", TOKEN = "{{token}}", PROMPT_FILE = "{{prompt_file}}" }}
wall_time_s = 60
"""


def recorded(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((LOCAL / f"{name}.json").read_text())
    return data


def _served(body: dict[str, Any], times: int = 1) -> Fault:
    return Fault(kind="replay", times=times, status=200, body=json.dumps(body))


def _derived(message: dict[str, Any], finish: str, completion_tokens: int) -> dict[str, Any]:
    """llama.cpp's recorded envelope (`llamacpp_first_reveal`) with another message."""
    body: dict[str, Any] = copy.deepcopy(recorded("llamacpp_first_reveal")["body"])
    body["choices"][0]["message"] = {"role": "assistant", **message}
    body["choices"][0]["finish_reason"] = finish
    body["usage"]["completion_tokens"] = completion_tokens
    return body


def _call(name: str, arguments: str) -> dict[str, Any]:
    fn = {"name": name, "arguments": arguments}
    return {"type": "function", "function": fn, "id": f"call-{name}"}


# The agent's provider answers these first, one a request, in order; then the reference.
# Staged, unit 1: turn 1 a real reply with no call (cut at max_tokens); turn 2 partial
# JSON arguments, an unknown tool, an empty reply; turn 3 a reply cut by the window
# (finish `length` at 37 of 128 tokens); turn 4 the same call three times; turn 5 real
# tool calls, the last one cut inside its arguments.
MISTAKES = (
    _served(recorded("llamacpp_first_reveal")["body"]),
    Fault(kind="bad_args"),
    Fault(kind="unknown_tool"),
    _served(_derived({"content": ""}, "stop", 0)),
    _served(_derived({"content": "<h1>Sessions"}, "length", 37)),
    _served(
        _derived(
            {"content": None, "tool_calls": [_call("read_file", '{"path": "index.html"}')]},
            "tool_calls",
            20,
        ),
        times=3,
    ),
    _served(recorded("llamacpp_calls")["body"]),
)


def bench(tmp: Path, mode: str, url: str, cli_url: str, cassette_dir: Path | None = None) -> Path:
    path = tmp / f"bench-{mode}.toml"
    path.write_text(
        BENCH.format(
            runs=tmp / "runs",
            tasks=ROOT / "tasks",
            task=TASK,
            mode=mode,
            cassette_dir=f'cassette_dir = "{cassette_dir}"' if cassette_dir else "",
            url=url,
            cli_url=cli_url,
            agent=AGENT,
        )
    )
    return path


def _sweep(config: Path, run_dir: Path, mp: pytest.MonkeyPatch) -> Path:
    fake_engine(mp, local=True, verifier=OracleVerifier())
    code = main(["--config", str(config), "--quiet", "--no-report", "--run-dir", str(run_dir)])
    assert code == 0, f"the sweep exited {code}"
    return run_dir


def record(tmp: Path, mp: pytest.MonkeyPatch) -> Path:
    """The fake sweep recorded (module docstring); its run directory."""
    agent = FakeProvider(task_dir=ROOT / "tasks" / TASK, faults=MISTAKES, models=("gemma-3-270m",))
    with serving(agent) as fake, serving(FakeProvider()) as cli:
        return _sweep(bench(tmp, "record", fake.base_url, cli.base_url), tmp / "rec", mp)


def replay(tmp: Path, mp: pytest.MonkeyPatch, cassettes: Path) -> Path:
    """The same sweep answered from `cassettes`, no provider running."""
    return _sweep(bench(tmp, "replay", DEAD, DEAD, cassettes), tmp / "play", mp)


LIVE_BENCH = """
[sweep]
name = "local-model-replay"
runs_dir = "{runs}"
tasks_dir = "{tasks}"
tasks = {tasks_list}
arms = {arms}
repeats = 1
concurrency = 1
backend = "local"
baseline = false
infra_retries = 0
cassettes = "replay"
cassette_dir = "{cassette_dir}"

[[providers]]
name = "{provider}"
kind = "openai"
base_url = "{url}"
model = "{model}"
max_connections = 1
max_output_tokens = {max_output_tokens}
max_attempts = 1

[[solvers]]
name = "{solver}"
kind = "llm"
provider = "{provider}"
options = {{ {options} }}
{scaffolds}"""

# A CLI agent of the live run, replayed: a stand-in under the agent's name that sends
# the recorded requests of its cell again, in order, through the sweep's gateway, and
# exits 0 as the real one did (the real agents' prompts carry the date and the
# workspace listing, so they are not re-run; the harness around them is).
RESENDER = r"""
import json, os, urllib.error, urllib.request
for line in open(os.environ["CASSETTE"]):
    ex = json.loads(line)
    req = urllib.request.Request(os.environ["BASE"] + ex["request"]["path"][len("/v1"):],
        data=json.dumps(ex["request"]["body"]).encode(), headers={"authorization":
        "Bearer " + os.environ["TOKEN"], "content-type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            print(ex["seq"], resp.status, len(resp.read()), flush=True)
    except urllib.error.HTTPError as err:
        print(ex["seq"], err.code, flush=True)
"""

RESENDER_SOLVER = """
[[solvers]]
name = "{name}"
kind = "scaffold"
provider = "{provider}"
arms = {arms}
[solvers.scaffold]
command = ["python3", "-c", '''{agent}''']
env = {{ BASE = "{{openai_base_url}}", TOKEN = "{{token}}", CASSETTE = "{cassette}" }}
wall_time_s = 60
"""


def live_bench(tmp: Path, cassettes: Path, source: Path = ROOT / "bench-local.toml") -> Path:
    """A replay of a live run of `source` (bench-local.toml): its tasks, arms, provider
    and in-harness solver as recorded (the agent's system text must be the recording's
    for a request to match), its CLI agents as `RESENDER`s, on the fakes, answered from
    `cassettes`."""
    cfg = tomllib.loads(source.read_text())
    (solver,) = [s for s in cfg["solvers"] if s["kind"] == "llm"]
    (provider,) = [p for p in cfg["providers"] if p["name"] == solver["provider"]]
    task = cfg["sweep"]["tasks"][0]
    scaffolds = "".join(
        RESENDER_SOLVER.format(
            name=s["name"],
            provider=s["provider"],
            arms=json.dumps(s["arms"]),
            agent=RESENDER,
            cassette=cassettes / f"{task}__{s['name']}__{s['arms'][0]}__0.jsonl",
        )
        for s in cfg["solvers"]
        if s["kind"] == "scaffold"
    )
    path = tmp / "bench-live-replay.toml"
    path.write_text(
        LIVE_BENCH.format(
            runs=tmp / "runs",
            tasks=ROOT / "tasks",
            tasks_list=json.dumps(cfg["sweep"]["tasks"]),
            arms=json.dumps(cfg["sweep"]["arms"]),
            cassette_dir=cassettes,
            provider=provider["name"],
            url=DEAD,
            model=provider["model"],
            max_output_tokens=provider["max_output_tokens"],
            solver=solver["name"],
            options=", ".join(f"{k} = {json.dumps(v)}" for k, v in solver["options"].items()),
            scaffolds=scaffolds,
        )
    )
    return path


def replay_live(tmp: Path, mp: pytest.MonkeyPatch, cassettes: Path) -> Path:
    """A live bench-local.toml run's cells, answered from `cassettes` on the fake
    sandbox and the oracle verifier, no model server running: the in-harness agent as
    configured, each CLI agent as a `RESENDER` of its recorded requests."""
    return _sweep(live_bench(tmp, cassettes), tmp / "play", mp)


def outcome(run_dir: Path) -> dict[str, Any]:
    """What a run decided, per cell: its class, its result (no times or paths) and every
    slip event of the model's, in order."""
    out: dict[str, Any] = {}
    for row in read_rows(run_dir / "manifest.jsonl"):
        events = read_events(run_dir / "cells" / row.cell.replace("/", "__") / "events.jsonl")
        slips = [
            {"unit": e.unit, "turn": e.turn, "what": e.what, "text": e.text}
            for e in events
            if isinstance(e, ev.Slip)
        ]
        result = msgspec.to_builtins(row.result) if row.result is not None else None
        out[row.cell] = {"status": row.status, "result": result, "slips": slips}
    normal: dict[str, Any] = json.loads(json.dumps(out))  # tuples as lists, as kept
    return normal


def keep(run_dir: Path, name: str) -> Path:
    """The run's cassettes and `expected.json` (`outcome`) as fixtures/cassettes/<name>/."""
    to = CASSETTES / name
    shutil.rmtree(to, ignore_errors=True)
    shutil.copytree(run_dir / "cassettes", to)
    (to / "expected.json").write_text(json.dumps(outcome(run_dir), indent=1, sort_keys=True) + "\n")
    return to


def main_record(argv: list[str]) -> None:
    if argv[:1] == ["keep"]:
        print(keep(Path(argv[1]), argv[2]), file=sys.stderr)
        return
    name = argv[0] if argv else "fake-sweep"
    with tempfile.TemporaryDirectory(prefix="pwb-cassettes-") as tmp:
        mp = pytest.MonkeyPatch()
        try:
            run_dir = record(Path(tmp), mp)
        finally:
            mp.undo()
        print(keep(run_dir, name), file=sys.stderr)


if __name__ == "__main__":
    main_record(sys.argv[1:])


async def resend(
    cassette: Path, cell: str, tmp: Path
) -> tuple[list[Any], list[Any], Any, list[str]]:
    """Each recorded request of `cassette`, sent again through the real gateway to a
    deck replaying it: (the exchanges, the gateway's responses, its request log, the
    deck's misses)."""
    shutil.copy(cassette, tmp)
    recorded = read_cassette(cassette.read_text(), str(cassette))
    cfg = ProviderConfig(
        name="local", kind="openai", model="gemma-3-270m", base_url=DEAD, max_attempts=1
    )
    answers: list[Any] = []
    async with CassetteDeck("replay", tmp) as deck:
        up = Upstream(provider=cfg, base_url=deck.base_url, tag_cells=True)
        async with Gateway({"local": up}) as gw, httpx.AsyncClient(timeout=30) as http:
            acct = gw.open_account(cell, "local", Ledger())
            for ex in recorded:
                answers.append(
                    await http.post(
                        gw.url() + ex.request["path"],
                        json=ex.request["body"],
                        headers={"authorization": f"Bearer {acct.token}"},
                    )
                )
    return recorded, answers, acct.log, list(deck.misses)


def same_answer(ex: Any, resp: Any) -> bool:
    """The gateway's response is the recorded one: a stream's events, or the JSON body."""
    if resp.status_code != ex.response["status"]:
        return False
    if "events" not in ex.response:
        return bool(resp.json() == ex.response["body"])
    datas = [json.loads(line[6:]) for line in resp.text.splitlines() if line.startswith("data: {")]
    events = [e["data"] for e in ex.response["events"] if e["data"] != "[DONE]"]
    return datas == events and "data: [DONE]" in resp.text
