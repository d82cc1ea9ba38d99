"""Identical replays share one page (`_reuse/_share.py`): the same verdicts as a full replay, and
only a job that reads nothing another's work can change follows another.

The site answers differently per viewport and after a click. `clicked` comes first in
contract order, so a key that ignored actions would seat `home`'s bare load on the clicked
page; the `narrow` states would seat a mobile bare load on a desktop page if the key
ignored the viewport. A screenshot finishes the page's animation, which writes what the
click writes, so a follower evaluated after the screenshot of the job it rides on would
see "clicked" on a bare load. Each planted bug flips a `require_interaction` verdict,
which the comparison with `--replay full` (no sharing) catches.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from orchestrator.cell._staged import summarize
from orchestrator.records import VerifyReport
from orchestrator.verifier import BrowserPool, verify
from orchestrator.verifier._replay._drive import ReplayOptions
from orchestrator.verifier._reuse._share import cannot_follow, replay_key, share
from orchestrator.verifier._verify._jobs import _plan

from .conftest import _QuietHandler, check, make_task, need_chromium

pytestmark = pytest.mark.anyio

PAGE = """<!doctype html><body>
<p id="vw"></p><p id="out">idle</p><button id="go">go</button>
<script>
document.getElementById('vw').textContent = innerWidth < 600 ? 'narrow' : 'wide';
document.getElementById('go').onclick = () => {
  document.getElementById('out').textContent = 'clicked';
};
// A screenshot (animations disabled) finishes this animation, which writes "clicked" as
// the click does: a follower evaluated after a screenshot would see it.
document.getElementById('vw').animate([{opacity: 1}, {opacity: 0.99}], {duration: 1e8})
  .onfinish = () => { document.getElementById('out').textContent = 'clicked'; };
</script></body>"""

POPUP = "<!doctype html><body><script>window.open('/p.html');</script></body>"

STATES: list[dict[str, Any]] = [
    {"id": "clicked", "route": "/p.html", "actions": [{"do": "click", "selector": "#go"}]},
    {"id": "home", "route": "/p.html"},
    # Opens a popup: its warm context cannot be proven clean, so it is closed (a fallback).
    {"id": "popup", "route": "/popup.html"},
    {"id": "narrow", "route": "/p.html", "viewport": "mobile"},
    {
        "id": "narrow_clicked",
        "route": "/p.html",
        "viewport": "mobile",
        "actions": [{"do": "click", "selector": "#go"}],
    },
]
CHECKS = [
    # Passes: "clicked" only after the click (the bare load shows "idle").
    check(
        "clicks", "interaction", "clicked", kind="text_equals", selector="#out",
        value="clicked", require_interaction=True,
    ),
    check("home_idle", "text", "home", kind="text_equals", selector="#out", value="idle"),
    check("narrow_vw", "text", "narrow", kind="text_equals", selector="#vw", value="narrow"),
    # Fails by the rule: "narrow" is there on the bare mobile load too (a desktop bare
    # load would say "wide" and let it pass).
    check(
        "narrow_after_click", "interaction", "narrow_clicked", kind="text_equals",
        selector="#vw", value="narrow", require_interaction=True,
    ),
]  # fmt: skip


@pytest.fixture(scope="module")
async def full_pool(require_chromium: None) -> AsyncIterator[BrowserPool]:
    need_chromium()
    async with BrowserPool(replay="full") as p:
        yield p


@pytest.fixture
def url(tmp_path: Path) -> Iterator[str]:
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "p.html").write_text(PAGE)
    (tmp_path / "site" / "popup.html").write_text(POPUP)
    handler = functools.partial(_QuietHandler, directory=str(tmp_path / "site"))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _verdicts(r: VerifyReport) -> list[tuple[str, bool, bool, str]]:
    return [(c.id, c.passed, c.applicable, c.observed) for c in r.checks]


async def test_shared_replays_grade_like_a_full_replay(
    tmp_path: Path, url: str, pool: BrowserPool, full_pool: BrowserPool
) -> None:
    task = make_task(tmp_path, STATES, CHECKS)
    shared = await verify(pool, task, url, artifacts=tmp_path / "a")
    full = await verify(full_pool, task, url, artifacts=tmp_path / "b")
    assert _verdicts(shared) == _verdicts(full)
    assert shared.check("clicks").passed  # type: ignore[union-attr]
    assert not shared.check("narrow_after_click").passed  # type: ignore[union-attr]
    runs = {s.state: s for s in shared.states}
    # Each bare load rode on the route-only state of its own viewport, and nothing else.
    assert {k: s.shared_with for k, s in runs.items() if s.shared_with} == {
        "clicked~bare": "home",
        "narrow_clicked~bare": "narrow",
    }
    assert not any(s.shared_with for s in full.states)
    # The event log's counts: 6 replays on warm or fresh contexts (the unit check's
    # keyboard replay `clicked~keys` among them, #38), 2 shared, and the popup's context
    # closed instead of reused.
    summary = summarize(1, "u1", shared, 1.0)
    counts = summary.replays
    assert counts.get("shared") == 2
    assert counts.get("warm", 0) + counts.get("fresh", 0) == 6
    assert set(counts) <= {"shared", "warm", "fresh"}
    assert summary.warm_fallbacks == {"the state left 1 other page(s) open": 1}
    assert summarize(1, "u1", full, 1.0).replays == {"fresh": 8}
    assert summarize(1, "u1", full, 1.0).warm_fallbacks == {}


def test_only_jobs_that_just_read_the_page_follow(tmp_path: Path) -> None:
    extra = [
        check("home_vis", "visual_regression", "home", kind="visual"),
        check(
            "home_nav", "navigation", "home", kind="links", selector="nav",
            entries=[{"text": "A", "href": "/a"}],
        ),
    ]  # fmt: skip
    task = make_task(tmp_path, STATES, CHECKS + extra)
    jobs = {
        j.key: j
        for j in _plan(task, "http://h", list(task.contract.checks), [], None, ReplayOptions())
    }
    bare = jobs["clicked~bare"]
    assert cannot_follow(bare) == ""
    assert replay_key(bare) == replay_key(jobs["home"])
    assert replay_key(bare) != replay_key(jobs["clicked"])
    assert replay_key(bare) != replay_key(jobs["narrow"])
    for why, job in (
        ("screenshot", replace(bare, artifacts=tmp_path)),
        ("fingerprint", replace(bare, fingerprint=True)),
        ("may change the page", jobs["home"]),  # its visual and links checks
        ("may change the page", replace(bare, checks=(task.contract.checks[-1],))),
        ("may change the page", replace(bare, checks=(task.contract.checks[-2],))),
    ):
        assert why in cannot_follow(job), job.key
    # Two jobs that cannot follow replay each on their own; the follower joins the first.
    twin = replace(jobs["home"], key="home2")
    groups = share([jobs["home"], bare, twin])
    assert [(j.key, [f.key for f in fs]) for j, fs in groups] == [
        ("home", ["clicked~bare"]),
        ("home2", []),
    ]
    # With no job that needs its own replay, the first one replays for all.
    twin_bare = replace(bare, key="x~bare")
    assert [(j.key, [f.key for f in fs]) for j, fs in share([bare, twin_bare])] == [
        ("clicked~bare", ["x~bare"])
    ]
    assert [(j.key, [f.key for f in fs]) for j, fs in share(list(jobs.values()))] == [
        ("clicked", []),
        ("clicked~keys", []),  # clicks by keyboard: never the pointer replay's follower
        ("home", ["clicked~bare"]),
        ("narrow", ["narrow_clicked~bare"]),
        ("narrow_clicked", []),
    ]
