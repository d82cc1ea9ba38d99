"""Cassettes (#56): whole cells recorded from a provider and replayed without it.

`fixtures/cassettes/fake-sweep/` was recorded by `python -m tests.llm.cassettes`: the
in-harness agent on a staged and a full-spec cell of hollin-ridge-sessions and a
stand-in CLI agent through the gateway, in front of a strict fake provider that served
llama.cpp's recorded answers, cases derived from them and its own scripted faults first
(`tests/llm/cassettes.py` `MISTAKES`). Replayed here end to end, through the real
client, the real gateway and the cassette deck, with nothing listening at the
providers' `base_url`: each row's class and result, and each slip event (text where a
call was expected, bad JSON, an unknown tool, an empty turn, a repeated call, a reply
cut at the window), must be the recording's.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from orchestrator.config import ConfigError, load_config
from orchestrator.llm import (
    AssistantMsg,
    Cassettes,
    ChatRequest,
    FakeProvider,
    Fault,
    LLMError,
    ProviderConfig,
    ProviderPool,
    UserMsg,
    cassette_cell,
    load_cassettes,
    read_cassette,
)

from .cassettes import CASSETTES, outcome, replay, resend, same_answer

pytestmark = pytest.mark.anyio
FAKE_SWEEP = CASSETTES / "fake-sweep"
STAGED = "hollin-ridge-sessions/local-llm/staged/0"
STANDIN = "hollin-ridge-sessions/standin/full-spec/0"
SLIPS = {"no_call", "bad_arguments", "unknown_tool", "empty", "repeat", "context_window"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def expected() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FAKE_SWEEP / "expected.json").read_text())
    return data


def test_the_recording_holds_every_malformed_case_and_no_secret() -> None:
    want = expected()
    assert {c: v["status"] for c, v in want.items()} == {
        STAGED: "ok",  # the model's mess is scored, never an error
        "hollin-ridge-sessions/local-llm/full-spec/0": "ok",
        STANDIN: "ok",
    }
    assert SLIPS <= {s["what"] for s in want[STAGED]["slips"]}
    for path in FAKE_SWEEP.glob("*.jsonl"):
        text = path.read_text()
        assert "authorization" not in text.lower() and "pwb-" not in text.split('"cell"')[0]
        for ex in read_cassette(text, str(path)):
            assert set(ex.request["headers"]) <= {"content-type"}, ex.request["headers"]
    standin = read_cassette((FAKE_SWEEP / f"{STANDIN.replace('/', '__')}.jsonl").read_text(), "")
    assert [("events" in e.response, e.turn) for e in standin] == [(True, 0), (False, 1)]


def test_a_replayed_sweep_decides_what_the_recorded_one_did(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rows, results and slips of the replay equal the recording's, cell by cell; the
    providers' base_url is dead, so every answer came from the cassettes."""
    got = outcome(replay(tmp_path, monkeypatch, FAKE_SWEEP))
    want = expected()
    assert got.keys() == want.keys()
    for cell in want:
        assert got[cell]["status"] == want[cell]["status"], (cell, got[cell])
        assert got[cell]["slips"] == want[cell]["slips"], cell
        assert got[cell]["result"] == want[cell]["result"], cell


def _deck_config(url: str) -> ProviderConfig:
    return ProviderConfig(
        name="local", kind="openai", model="gemma-3-270m", base_url=url, max_attempts=1
    )


async def test_more_turns_than_recorded_is_a_clear_error(tmp_path: Path) -> None:
    """The client asks past the recording: a 400 `cassette_miss` naming the cell and
    the turn, an `LLMError` (the cell's `llm_error`), never another turn's answer."""
    shutil.copy(FAKE_SWEEP / f"{STAGED.replace('/', '__')}.jsonl", tmp_path)
    (first,) = [e for e in load_cassettes(tmp_path).values() if e.seq == 0]
    body = first.request["body"]
    system, user = body["messages"][0]["content"], body["messages"][1]["content"]
    cassettes = Cassettes("replay", tmp_path)
    async with ProviderPool([_deck_config("http://127.0.0.1:9/v1")], cassettes=cassettes) as pool:
        client = pool.client("local")
        with cassette_cell(STAGED):
            pool.begin_cell(STAGED)
            done = await client.complete(ChatRequest(system=system, messages=(UserMsg(text=user),)))
            assert "You are a frontend engineer" in done.message.text  # the recorded turn 0
            assert (done.input_tokens, done.output_tokens) == (570, 128)
            far = (UserMsg(text=user),) + (AssistantMsg(text="x"), UserMsg(text="again")) * 40
            with pytest.raises(LLMError, match="cassette_miss") as err:
                await client.complete(ChatRequest(system=system, messages=far))
        assert "turn 40" in str(err.value) and "more turns than were recorded" in str(err.value)
        assert len(pool.cassette_misses) == 1 and STAGED in pool.cassette_misses[0]


async def test_recorded_gateway_exchanges_replay_through_the_gateway(tmp_path: Path) -> None:
    """The stand-in CLI agent's requests, sent again through the real gateway to a
    replaying deck: the same answers (a stream, then JSON), metered as recorded."""
    cassette = FAKE_SWEEP / f"{STANDIN.replace('/', '__')}.jsonl"
    recorded, answers, log, misses = await resend(cassette, STANDIN, tmp_path)
    for ex, resp in zip(recorded, answers, strict=True):
        assert resp.status_code == ex.response["status"] == 200
        assert same_answer(ex, resp), ex.seq
    assert misses == []
    assert [r.status for r in log] == [200, 200] and not any(r.error for r in log)
    usage = recorded[1].response["body"]["usage"]
    assert log[1].input_tokens == usage["prompt_tokens"] > 0
    assert log[1].output_tokens == usage["completion_tokens"]


async def test_recording_scrubs_the_key_and_files_each_cell(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "sk-cassette-secret-51"
    monkeypatch.setenv("PWB_TEST_CASSETTE_KEY", key)
    fault = Fault(kind="status", status=400, message=f"bad request for key {key}")
    async with FakeProvider(api_key=key, faults=[fault]) as fake:
        cfg = ProviderConfig(
            name="p",
            kind="openai",
            model="pwb-fake",
            base_url=fake.base_url,
            api_key_env="PWB_TEST_CASSETTE_KEY",
            max_attempts=1,
        )
        async with ProviderPool([cfg], cassettes=Cassettes("record", tmp_path)) as pool:
            with cassette_cell("t/s/staged/0"), pytest.raises(LLMError, match="<redacted>"):
                await pool.client("p").complete(
                    ChatRequest(system="S", messages=(UserMsg(text="hi"),))
                )
            with cassette_cell("t/s/full-spec/0"):
                await pool.client("p").complete(
                    ChatRequest(system="S", messages=(UserMsg(text="hi"),))
                )
        assert fake.requests[0].headers.get("x-pwb-cassette-cell") is None  # stripped
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["t__s__full-spec__0.jsonl", "t__s__staged__0.jsonl"]
    staged = (tmp_path / files[1]).read_text()
    assert key not in staged and "<redacted>" in staged and "authorization" not in staged
    (ex,) = read_cassette(staged, files[1])
    assert ex.response["status"] == 400 and ex.turn == 0 and ex.repeat == 0


def test_a_bad_cassette_line_is_a_one_line_error(tmp_path: Path) -> None:
    (tmp_path / "x.jsonl").write_text('{"cassette": 1, "cell": "c"}\n')
    with pytest.raises(ValueError, match=r"x\.jsonl:1: not a cassette line"):
        load_cassettes(tmp_path)
    with pytest.raises(ValueError, match="no folder"):
        load_cassettes(tmp_path / "none")


def test_replay_needs_its_folder_and_the_local_engine(tmp_path: Path) -> None:
    base = "[[solvers]]\nname = 'noop'\nkind = 'noop'\n"
    path = tmp_path / "b.toml"
    path.write_text("[sweep]\ncassettes = 'replay'\n" + base)
    with pytest.raises(ConfigError, match=r"sweep\.cassette_dir: expected the cassettes' folder"):
        load_config(path)
    path.write_text("[sweep]\ncassettes = 'record'\nengine = 'ray'\n" + base)
    with pytest.raises(ConfigError, match=r"sweep\.cassettes: expected 'off' with engine 'ray'"):
        load_config(path)
