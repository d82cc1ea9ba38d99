"""A cell's money cap holds for every agent preset in bench.toml (#41, item 3).

Each preset's agent calls the model in its own way: aider streams chat completions
without tools in its whole-file format, mini-swe-agent posts chat completions with a
bash tool, Codex streams the Responses API with a shell tool, OpenCode streams chat
completions with its tools. Here a stand-in drives the sweep's real gateway in front of
the strict fake provider with each preset's request shape (path, streaming, tools, the
length field), call after call as an agent does, under the Scheduler, whose row is the
sweep's; the report is written from those rows.

- The provider's `max_output_tokens` is the true bound: the gateway refuses the call
  whose worst case does not fit what is left, so the cell never passes its cap.
- It is not (`max_output_tokens = 1`, answers longer): one call may pass the cap, by at
  most that call's cost; no call goes out after it, and the overshoot is on the row and
  in the report's cost table. (A preset that sends its own length field, OpenCode's
  `max_tokens`, is bounded by it and never passes.)

With the true bound each cell's cap is a few calls deep. With the wrong one it is set so
that the third call's worst case still fits but its answer passes the cap (the answer's
cost is measured first, by a probe call): the overshoot must then happen, once.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from orchestrator.budget import BudgetExceeded, Ledger
from orchestrator.cell import CellReport
from orchestrator.gateway import Gateway, Upstream
from orchestrator.llm import FakeProvider, ProviderConfig
from orchestrator.report import write_report
from orchestrator.sweep import Job, Scheduler
from tests.fixtures.gatewayhttp import KEY, KEY_ENV, post
from tests.fixtures.tinytask import make_tiny_task
from tests.report.report_run import make_task, row

pytestmark = pytest.mark.anyio
ROOT = Path(__file__).resolve().parents[2]
TASK = "Add a contact page linked from the home page."
AIDER_SYSTEM = (
    "Act as an expert software developer.\nTo suggest changes to a file you MUST return the "
    "entire content of the updated file.\nYou MUST use this *file listing* format:"
)
BASH = {
    "type": "object",
    "properties": {"command": {"type": "string"}},
    "required": ["command"],
}


def _chat_tool(name: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "parameters": params}}


# path, body: what each preset's agent sends, in the fields the gateway's worst case and
# meter read (the path, `stream`, tools, a length field when the agent sets one).
SHAPES: dict[str, tuple[str, dict[str, Any]]] = {
    "aider": (  # litellm, --edit-format whole: no tools, streamed
        "/v1/chat/completions",
        {
            "model": "m",
            "stream": True,
            "temperature": 0,
            "messages": [
                {"role": "system", "content": AIDER_SYSTEM},
                {"role": "user", "content": TASK},
            ],
        },
    ),
    "mini-swe-agent": (  # litellm, one bash tool, not streamed
        "/v1/chat/completions",
        {
            "model": "m",
            "messages": [
                {"role": "system", "content": "You are a helpful assistant."},
                {"role": "user", "content": TASK},
            ],
            "tools": [_chat_tool("bash", BASH)],
        },
    ),
    "codex": (  # the Responses API, a shell tool, streamed
        "/v1/responses",
        {
            "model": "m",
            "instructions": "You are Codex, a coding agent.",
            "input": [
                {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": TASK}],
                }
            ],
            "tools": [{"type": "function", "name": "shell", "parameters": BASH}],
            "tool_choice": "auto",
            "parallel_tool_calls": False,
            "store": False,
            "stream": True,
        },
    ),
    "opencode": (  # AI SDK openai-compatible: tools, streamed with usage, max_tokens set
        "/v1/chat/completions",
        {
            "model": "m",
            "max_tokens": 32000,
            "stream": True,
            "stream_options": {"include_usage": True},
            "messages": [
                {"role": "system", "content": "You are opencode."},
                {"role": "user", "content": TASK},
            ],
            "tools": [
                _chat_tool("bash", BASH),
                _chat_tool(
                    "read", {"type": "object", "properties": {"filePath": {"type": "string"}}}
                ),
            ],
        },
    ),
}


def test_every_scaffold_preset_in_bench_toml_has_its_request_shape() -> None:
    """A preset added to bench.toml without its shape here fails this, not silently."""
    solvers = tomllib.loads((ROOT / "bench.toml").read_text())["solvers"]
    assert {s["name"] for s in solvers if s["kind"] == "scaffold"} == set(SHAPES)


def _worst(cfg: ProviderConfig, body: dict[str, Any]) -> float:
    """One call's worst case as the gateway reckons it (prompt + the length bound)."""
    sent = httpx.Request("POST", "http://x", json=body).content
    return cfg.cost_usd(len(sent) // 4 + 1, body.get("max_tokens") or cfg.max_output_tokens)


def _cap(cfg: ProviderConfig, body: dict[str, Any], answer: float) -> float:
    """Two answers, then a third call whose worst case fits; when the answers cost more
    than the worst case (a wrong bound), the third passes the cap by half the gap."""
    worst = _worst(cfg, body)
    return 2 * answer + worst + max(0.0, answer - worst) / 2


async def _sweep(
    fake: FakeProvider, max_output: int, hashes: dict[str, str] | None = None
) -> tuple[list[Any], dict[str, list[float]], int, dict[str, float]]:
    """One cell per preset under the Scheduler; each calls until the gateway refuses.
    Returns the rows, each cell's charges (in order), the requests the fake got and
    each cell's cap."""
    cfg = ProviderConfig(
        name="p",
        kind="openai",
        model="m",
        base_url=fake.base_url,
        api_key_env=KEY_ENV,
        price_in_per_mtok=1000.0,
        price_out_per_mtok=2000.0,
        max_output_tokens=max_output,
    )
    charges: dict[str, list[float]] = {}
    async with Gateway({"p": Upstream(provider=cfg, base_url=fake.base_url)}) as gw:
        caps = {}
        for s, (path, body) in SHAPES.items():  # what one answer of this shape costs
            probe = gw.open_account(f"probe-{s}", "p", Ledger())
            assert (await post(gw, probe, path, body)).status_code == 200
            caps[s] = _cap(cfg, body, probe.spent_usd)
        probes = len(fake.requests)

        async def attempt(job: Job, n: int, ledger: Ledger) -> CellReport:
            path, body = SHAPES[job.template.solver]
            acct = gw.open_account(job.key, "p", ledger, max_usd=caps[job.template.solver])
            mine = charges.setdefault(job.template.solver, [])
            try:
                for _ in range(100):
                    resp = await post(gw, acct, path, body)
                    if acct.budget is not None:  # refused: the agent is stopped
                        raise BudgetExceeded(acct.budget[0])
                    assert resp.status_code == 200, resp.text
                    mine.append(acct.log[-1].cost_usd)
                raise AssertionError("never refused")
            finally:
                gw.close_account(acct)

        jobs = [
            Job(key=f"t1/{s}/full-spec/0", template=row("t1", s, "full-spec", 0, hashes or {}))
            for s in SHAPES
        ]
        rows = await Scheduler(lambda _r: None, concurrency=4).run(jobs, attempt)
    return rows, charges, len(fake.requests) - probes, caps


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)


async def test_with_a_true_output_bound_no_preset_passes_its_cap(tmp_path: Path) -> None:
    task = make_tiny_task(tmp_path / "tasks")
    async with FakeProvider(task_dir=task, api_key=KEY) as fake:
        rows, charges, _, caps = await _sweep(fake, max_output=4096)
    for r in rows:
        assert r.status == "budget", r
        assert len(charges[r.solver]) == 3, r.solver  # it worked, then was stopped
        assert r.spend.cost_usd == pytest.approx(sum(charges[r.solver]))
        assert r.spend.cost_usd <= caps[r.solver] and r.spend.overshoot_usd == 0.0, r.spend


async def test_past_a_wrong_output_bound_one_call_overshoots_and_is_flagged(
    tmp_path: Path,
) -> None:
    task = make_tiny_task(tmp_path / "tasks")
    async with FakeProvider(task_dir=task, api_key=KEY) as fake:
        # Each call's worst case (prompt + 1 token) fits until the answers, longer than
        # the 1 token assumed, have passed the cap.
        hashes = {"t1": make_task(tmp_path / "report-tasks", "t1", "edit")}
        rows, charges, sent, caps = await _sweep(fake, max_output=1, hashes=hashes)
    assert sent == sum(len(c) for c in charges.values())  # no call went out after a refusal
    over_rows = []
    for r in rows:
        mine, cap = charges[r.solver], caps[r.solver]
        assert r.status == "budget", r
        assert r.spend.cost_usd == pytest.approx(sum(mine))
        over = r.spend.cost_usd - cap
        if "max_tokens" in SHAPES[r.solver][1]:  # its own bound holds: never past the cap
            assert over <= 0 and r.spend.overshoot_usd == 0.0, (r.solver, r.spend)
            continue
        assert over > 0, (r.solver, r.spend)  # the answers are longer than assumed
        # Bounded by one call: before the last call the cell was within its cap.
        assert sum(mine[:-1]) <= cap and over <= mine[-1]
        assert r.spend.overshoot_usd == pytest.approx(over)  # flagged on the row
        over_rows.append(r)
    assert len(over_rows) == 3
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    enc = msgspec.json.Encoder()
    (run_dir / "manifest.jsonl").write_bytes(b"".join(enc.encode(r) + b"\n" for r in rows))
    md = write_report(run_dir, tmp_path / "report-tasks").markdown.read_text()
    cost = md[md.index("Cost per solver") :]
    for r in over_rows:  # each overshooting preset's line in the cost table flags it
        line = next(ln for ln in cost.splitlines() if ln.startswith(f"| {r.solver} "))
        assert f"{r.spend.overshoot_usd:.6f} (1)" in line, line
