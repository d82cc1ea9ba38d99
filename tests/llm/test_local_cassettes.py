"""A live run of the real local model, kept as cassettes and replayed (#56).

`fixtures/cassettes/local-model/` holds every exchange of bench-local.toml's 4 cells
with Gemma 3 270M behind `scripts/local-model` (llama.cpp's server), recorded by
`[sweep] cassettes = "record"` and kept by `python -m tests.llm.cassettes keep RUN
local-model`, with `expected.json`: each row's class and result and each slip event, as
the live run decided them (`tests/perf/results/local-model-2026-12-06-live.md` explains
every row).

Replayed here without the model server, nothing listening at the provider's base_url,
as one sweep on the fake sandbox and the oracle verifier (`tests.llm.cassettes.replay_live`):
- the in-harness agent's two cells end to end, through the real client and the cassette
  deck: each row's class, each unit's turns and every slip of the model's (text where a
  call was expected, a reply cut at max_output_tokens, ...) must be the live run's. The
  oracle verifier is not the browser's, so the final gates are not compared; the units
  are, since the model cleared none either way.
- the CLI agents' cells (aider, mini-swe-agent) through the real gateway: a stand-in
  under each agent's name sends its cell's recorded requests again, in order, and exits
  0 as the agent did; each row's class, each request's status and the tokens metered
  must be the live run's. The agents themselves are not re-run: their prompts carry the
  date and the workspace listing, so a replay would ask another conversation.
Each CLI exchange is also sent through a bare gateway and compared answer by answer
(aider's 3093-event stream included).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from orchestrator import events as ev
from orchestrator.events import read_events
from orchestrator.llm import read_cassette

from .cassettes import CASSETTES, outcome, replay_live, resend, same_answer

LIVE = CASSETTES / "local-model"
TASK = "hollin-ridge-sessions"
IN_HARNESS = (f"{TASK}/local-llm/staged/0", f"{TASK}/local-llm/full-spec/0")
CLI = (f"{TASK}/aider/full-spec/0", f"{TASK}/mini-swe-agent/full-spec/0")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def expected() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((LIVE / "expected.json").read_text())
    return data


def _units(result: dict[str, Any] | None) -> list[tuple[str, bool, bool, int]]:
    assert result is not None
    return [(u["id"], u["cleared"], u["capped"], u["turns"]) for u in result["units"]]


def test_the_live_recording_is_whole_and_holds_no_secret() -> None:
    want = expected()
    assert set(want) == set(IN_HARNESS + CLI)
    # Every row is `ok`: the model's mess is scored, a CLI agent cut by its wall time
    # too (the note explains each row).
    assert {c: v["status"] for c, v in want.items()} == dict.fromkeys(want, "ok")
    for path in LIVE.glob("*.jsonl"):
        text = path.read_text()
        assert "authorization" not in text.lower()
        for ex in read_cassette(text, str(path)):
            assert set(ex.request["headers"]) <= {"content-type"}, ex.request["headers"]
            assert ex.response["status"] in (200, 400), (path.name, ex.seq)
    staged = want[IN_HARNESS[0]]
    assert len(staged["slips"]) > 0 and {"no_call", "truncated"} <= {
        s["what"] for s in staged["slips"]
    }


def test_every_cell_replays_as_the_live_run_decided(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole sweep from the cassettes alone: every row's class; for the in-harness
    cells each unit's turns and every slip of the model's (a replay that asked for more
    than was recorded would end `llm_error`); for the CLI agents, each recorded request
    answered through the gateway as recorded and metered as the server counted it."""
    run = replay_live(tmp_path, monkeypatch, LIVE)
    got = outcome(run)
    want = expected()
    assert set(got) == set(want)
    for cell in want:
        assert got[cell]["status"] == want[cell]["status"], (cell, got[cell]["status"])
    for cell in IN_HARNESS:
        assert _units(got[cell]["result"]) == _units(want[cell]["result"]), cell
        assert got[cell]["slips"] == want[cell]["slips"], cell
    for cell in CLI:
        recorded = read_cassette((LIVE / f"{cell.replace('/', '__')}.jsonl").read_text(), cell)
        events = read_events(run / "cells" / cell.replace("/", "__") / "events.jsonl")
        (agent,) = [e.run for e in events if isinstance(e, ev.Agent)]
        assert agent.exit_code == 0, agent.output[-10:]
        assert [r.status for r in agent.requests] == [ex.response["status"] for ex in recorded]
        assert [(r.input_tokens, r.output_tokens) for r in agent.requests] == [
            _tokens(ex.response) for ex in recorded
        ], cell


@pytest.mark.anyio
@pytest.mark.parametrize("cell", CLI)
async def test_cli_agent_exchanges_replay_through_the_gateway(cell: str, tmp_path: Path) -> None:
    """Each recorded request of the CLI agent, sent again through the real gateway to a
    replaying deck: the recorded answer (a stream's events, or JSON), and the tokens
    metered as llama.cpp counted them."""
    recorded, answers, log, misses = await resend(
        LIVE / f"{cell.replace('/', '__')}.jsonl", cell, tmp_path
    )
    assert recorded and misses == [], cell
    for ex, resp in zip(recorded, answers, strict=True):
        assert same_answer(ex, resp), (cell, ex.seq)
    assert [r.status for r in log] == [ex.response["status"] for ex in recorded]
    for ex, metered in zip(recorded, log, strict=True):
        assert (metered.input_tokens, metered.output_tokens) == _tokens(ex.response), (cell, ex.seq)


def _tokens(response: dict[str, Any]) -> tuple[int, int]:
    """The server's own count (prompt, completion): the JSON body's `usage`, or a
    stream's last chunk's; an error answer counts none."""
    usage: dict[str, int] = {"prompt_tokens": 0, "completion_tokens": 0}
    if "body" in response:
        usage = response["body"].get("usage") or usage
    for event in reversed(response.get("events", ())):
        data = event["data"]
        if isinstance(data, dict) and data.get("usage"):
            usage = data["usage"]
            break
    return usage["prompt_tokens"], usage["completion_tokens"]
