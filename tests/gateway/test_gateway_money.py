"""Money a user can bill by, at the gateway (#41, item 3): a broken stream is charged
from usage or a bounded estimate of what was received, never its SSE framing; a call
whose worst case does not fit what is left of the cell's cap is refused; an overshoot
is kept and flagged."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from orchestrator.budget import Ledger
from orchestrator.contract import load_task
from orchestrator.llm import FakeProvider, Fault, ProviderKind
from orchestrator.llm._fake import SIDE_REPLY
from tests.fixtures.gatewayhttp import KEY, KEY_ENV, gateway, post
from tests.fixtures.tinytask import make_tiny_task

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)


AIDER_REMINDER = "To suggest changes to a file you MUST return the entire content of the "
AIDER_REMINDER += "updated file.\nYou MUST use this *file listing* format:"


def _whole_task_request(
    tmp: Path, anthropic: bool, *, listing: bool = True
) -> tuple[Path, dict[str, Any]]:
    """A request without tools that quotes the task's units in aider's "whole" format
    (its prompt names the *file listing*): the fake answers with the reference's whole
    files, a long answer in 16-character deltas. Without `listing`, a side request (a
    session title) quoting the same units."""
    task = make_tiny_task(tmp / "tasks")
    text = "\n".join(u.request for u in load_task(task).contract.units)
    body: dict[str, Any] = {
        "model": "m",
        "stream": True,
        "messages": [{"role": "user", "content": text}],
    }
    system = AIDER_REMINDER if listing else "Generate a short title for this conversation."
    if anthropic:
        body["max_tokens"] = 8000
        body["system"] = system
    else:
        body["messages"].insert(0, {"role": "system", "content": system})
    return task, body


@pytest.mark.parametrize("api", ["openai", "anthropic"])
async def test_a_side_request_without_tools_gets_a_short_answer_not_the_files(
    tmp_path: Path, api: ProviderKind
) -> None:
    """An agent's side request (a title, a summary) quoting the task is answered in a few
    tokens; only aider's whole-format request gets the reference's files. Metered spend of
    a demo is then what a model would charge, not 3518 tokens per side request."""
    anthropic = api == "anthropic"
    path = "/v1/messages" if anthropic else "/v1/chat/completions"
    task, side = _whole_task_request(tmp_path, anthropic, listing=False)
    _, edit = _whole_task_request(tmp_path / "again", anthropic)
    async with FakeProvider(task_dir=task, api_key=KEY) as fake, gateway(fake, api) as gw:
        acct = gw.open_account("cell", "p", Ledger())
        short = await post(gw, acct, path, side, anthropic=anthropic)
        files = await post(gw, acct, path, edit, anthropic=anthropic)
    assert short.status_code == files.status_code == 200
    side_rec, edit_rec = acct.log
    assert side_rec.output_tokens <= 10, side_rec  # a few tokens
    assert edit_rec.output_tokens > 20 * side_rec.output_tokens, edit_rec  # the whole files
    assert SIDE_REPLY in short.text and SIDE_REPLY not in files.text


@pytest.mark.parametrize("api", ["openai", "anthropic"])
async def test_a_stream_that_dies_halfway_costs_at_most_the_whole_answer(
    tmp_path: Path, api: ProviderKind
) -> None:
    anthropic = api == "anthropic"
    path = "/v1/messages" if anthropic else "/v1/chat/completions"
    task, body = _whole_task_request(tmp_path, anthropic)
    async with FakeProvider(task_dir=task, api_key=KEY) as fake, gateway(fake, api) as gw:
        whole = gw.open_account("whole", "p", Ledger())
        done = await post(gw, whole, path, body, anthropic=anthropic)
        assert done.status_code == 200 and not whole.log[-1].estimated
        fake.add_faults(Fault(kind="stream_cut"))
        ledger = Ledger()
        cut = gw.open_account("cut", "p", ledger)
        broken = await post(gw, cut, path, body, anthropic=anthropic)
    assert broken.status_code == 200 and len(broken.content) < len(done.content)
    (rec,) = cut.log
    assert rec.estimated and "ended early" in rec.error  # charged, and flagged as estimated
    assert ledger.estimated_requests == 1
    assert 0 < cut.spent_usd <= whole.spent_usd, (cut.spent_usd, whole.spent_usd)
    # What was received is charged (about half the answer), not nothing and not more.
    assert whole.log[0].output_tokens // 4 <= cut.log[0].output_tokens
    assert cut.log[0].output_tokens < whole.log[0].output_tokens


async def test_a_call_whose_worst_case_passes_the_cell_cap_is_refused_unsent() -> None:
    # Prices: $1000 / $2000 per million tokens in / out. A short prompt (about 20 tokens,
    # $0.02) with max_tokens 10 ($0.02): worst case about $0.04.
    small = {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}
    async with FakeProvider(api_key=KEY) as fake, gateway(fake) as gw:
        fits = gw.open_account("fits", "p", Ledger(), max_usd=0.1)
        assert (await post(gw, fits, "/v1/chat/completions", small)).status_code == 200
        tight = gw.open_account("tight", "p", Ledger(), max_usd=0.03)
        refused = await post(gw, tight, "/v1/chat/completions", small)
        # Without max_tokens the worst case is the provider's max_output_tokens (4096).
        open_ended = gw.open_account("open", "p", Ledger(), max_usd=1.0)
        unbounded = {k: v for k, v in small.items() if k != "max_tokens"}
        refused_too = await post(gw, open_ended, "/v1/chat/completions", unbounded)
        sent = len(fake.requests)
    assert sent == 1  # only the call that fits was forwarded
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "insufficient_quota"
    assert "worst case" in refused.json()["error"]["message"]
    assert tight.budget is not None and tight.budget[0] == "money" and tight.stopped.is_set()
    assert tight.spent_usd == 0.0 and tight.log[-1].refused
    assert refused_too.status_code == 429 and "4096 max_tokens" in str(open_ended.budget)


async def test_an_overshoot_is_kept_on_the_account_and_the_cell_ledger() -> None:
    """The provider answers longer than the worst case the call was let through on (its
    max_output_tokens says 1): the spend past the cap is kept, and the next call refused."""
    chat = {"model": "m", "messages": [{"role": "user", "content": "hello " * 20}]}
    async with FakeProvider(api_key=KEY) as fake, gateway(fake, max_output_tokens=1) as gw:
        ledger = Ledger()
        acct = gw.open_account("cell", "p", ledger, max_usd=0.05)
        first = await post(gw, acct, "/v1/chat/completions", chat)
        second = await post(gw, acct, "/v1/chat/completions", chat)
        sent = len(fake.requests)
    assert first.status_code == 200 and second.status_code == 429 and sent == 1
    assert acct.spent_usd > 0.05
    assert acct.overshoot_usd == pytest.approx(acct.spent_usd - 0.05)
    assert ledger.overshoot_usd == pytest.approx(acct.overshoot_usd)
