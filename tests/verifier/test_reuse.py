"""Replay reuse: a state is reused only when every URL it requested serves the same bytes.

Each scenario verifies the same workspace twice per checkpoint — with the reuse cache
and as a full replay — and asserts identical verdicts, plus which states were reused.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import AsyncIterator, Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path

import msgspec
import pytest

from orchestrator.records import VerifyReport
from orchestrator.verifier import BrowserPool, ReuseCache, verify
from orchestrator.verifier._reuse._rules import Uncertain, is_static, request_scoped, static_view
from orchestrator.workspace import Workspace

from .conftest import _QuietHandler, check, make_task, need_chromium

pytestmark = pytest.mark.anyio

PAGES = {
    "a.html": '<link rel="stylesheet" href="/shared.css"><h1 id="t">Alpha</h1>',
    "b.html": '<h1 id="t">Beta</h1><p id="out">waiting</p><script src="/b.js"></script>',
    "b.js": (
        "fetch('/data.json').then(r => r.ok ? r.json() : {v: 'none'})"
        ".then(d => { document.getElementById('out').textContent = d.v; });"
    ),
    "shared.css": "h1 { color: rgb(0, 0, 0); }",
}


@pytest.fixture(scope="module")
async def full_pool(require_chromium: None) -> AsyncIterator[BrowserPool]:
    """The audit side: every state in a fresh context (the module `pool` reuses them)."""
    need_chromium()
    async with BrowserPool(replay="full") as p:
        yield p


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    r0 = tmp_path / "r0"
    r0.mkdir()
    for name, text in PAGES.items():
        (r0 / name).write_text(text)
    yield r0, ""


def _serve(root: Path) -> tuple[ThreadingHTTPServer, str]:
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def _verdicts(r: VerifyReport) -> list[tuple[str, bool, bool, str]]:
    return [(c.id, c.passed, c.applicable, c.observed) for c in r.checks]


async def test_reuse_matches_full_replay_and_replays_exactly_what_changed(
    tmp_path: Path, served: tuple[Path, str], pool: BrowserPool, full_pool: BrowserPool
) -> None:
    r0, _ = served
    ws = await Workspace.create(r0, tmp_path / "ws", ["**"], store=tmp_path / "store")
    server, url = _serve(ws.root)
    task = make_task(
        tmp_path,
        [{"id": "a", "route": "/a.html"}, {"id": "b", "route": "/b.html"}],
        [
            check("a_title", "text", "a", kind="text_equals", selector="#t", value="Alpha"),
            check("b_data", "text", "b", kind="text_equals", selector="#out", value="yes"),
        ],
    )
    assert is_static(task.contract)
    cache = ReuseCache.for_contract(task.contract)
    reused_at: list[set[str]] = []

    async def checkpoint(n: int) -> VerifyReport:
        tree, index = await ws.file_index()
        cp = cache.checkpoint(tree, index, n)
        art = tmp_path / f"cp{n}"
        kept = await verify(pool, task, url, reuse=cp, artifacts=art)
        cp.commit(await ws.tree_id())
        full = await verify(full_pool, task, url, artifacts=tmp_path / f"full{n}")
        assert _verdicts(kept) == _verdicts(full), n
        assert [g.status for g in kept.gates] == [g.status for g in full.gates]
        reused_at.append({s.state for s in kept.states if s.reused})
        for s in kept.states:  # reused states still have their screenshot
            assert (art / s.screenshot).is_file()
        return kept

    try:
        first = await checkpoint(1)
        assert first.check("b_data") is not None and not first.check("b_data").passed  # type: ignore[union-attr]
        second = await checkpoint(2)  # nothing changed: all reused
        # A 404 is a dependency: creating the missing file replays b, and b now passes.
        await ws.write_file("data.json", '{"v": "yes"}')
        third = await checkpoint(3)
        assert third.check("b_data").passed  # type: ignore[union-attr]
        why = {s.state: s.replayed for s in third.states}
        assert why["b"] == "/data.json changed"
        # A stylesheet only a requests: a replays, b is reused.
        await ws.write_file("shared.css", "h1 { color: red; }")
        await checkpoint(4)
        # The same bytes rewritten (a new mtime, which Last-Modified carries): replays.
        os.utime(ws.root / "b.js", (1, 1))
        await checkpoint(5)
        assert second.states and all(s.reused for s in second.states)
    finally:
        server.shutdown()
        server.server_close()
    assert reused_at == [set(), {"a", "b"}, {"a"}, {"b"}, {"a"}]


def _index(**entries: tuple[str, str]) -> dict[str, tuple[str, str]]:
    return {"": ("dir", ""), **entries}


def test_static_view_follows_http_server_rules_and_refuses_what_it_cannot_see() -> None:
    index = _index(
        **{
            "index.html": ("file", "1:0"),
            "docs": ("dir", ""),
            "docs/x.html": ("file", "2:0"),
            "lnk": ("link", "3"),
            "node_modules": ("excluded", ""),
            "big.bin": ("oversize", "4:0"),
            "empty": ("emptydir", ""),
        }
    )
    base = "http://h:1"
    assert static_view(index, base + "/") == static_view(index, base + "/?q=1")
    assert static_view(index, base + "/docs/../index.html") == static_view(
        index, base + "/index.html"
    )
    assert static_view(index, base + "/missing.js") == "absent"
    assert static_view(index, base + "/index.html/x") == "absent"
    assert static_view(index, base + "/index.html") != static_view(index, base + "/index.html/")
    for bad in ("/lnk", "/lnk/a", "/node_modules/x.js", "/big.bin", "/empty/", "/docs/", "/.GIT/c"):
        with pytest.raises(Uncertain):
            static_view(index, base + bad)


def test_dynamic_stacks_are_not_static() -> None:
    task = make_task(Path("/nonexistent"), [{"id": "a", "route": "/"}], [])
    raw = msgspec.to_builtins(task.contract)
    for serve in (
        {"start": "node server.js"},
        {"start": "python -m http.server $PORT", "build": "make"},
    ):
        raw["serve"] = serve
        contract = msgspec.convert(raw, type(task.contract))
        assert not is_static(contract)


def test_transient_failures_are_never_carried_forward() -> None:
    from orchestrator.verifier._core._observe import Outcome, StateObservation
    from orchestrator.verifier._reuse._rules import _timing_dependent

    clean = StateObservation(state="a", outcomes={"c": Outcome(passed=True, observed="ok")})
    assert not _timing_dependent(clean)
    for bad in (
        StateObservation(state="a", action_error="action 1: click failed: Timeout 5000ms"),
        StateObservation(state="a", nav_error="navigation to / failed"),
        StateObservation(
            state="a",
            outcomes={"c": Outcome(passed=False, observed="browser error: Page.screenshot: x")},
        ),
        StateObservation(state="a", failed_requests=("[load] fetch /x: net::ERR_NETWORK_CHANGED",)),
    ):
        assert _timing_dependent(bad), bad


@pytest.mark.parametrize(
    ("start", "scoped"),
    [
        ("php -d opcache.enable=0 -S 0.0.0.0:$PORT -t public", True),  # the shipped php tasks
        ("exec php -S 0.0.0.0:$PORT -d opcache.enable=0 router.php", True),
        ("php -S 0.0.0.0:$PORT -t public", False),  # opcache revalidates by stat
        ("php -d opcache.enable=0 -d opcache.enable=1 -S 0.0.0.0:$PORT", False),
        ("php -d opcache.enable=0 -d opcache.enable_cli=1 -S 0.0.0.0:$PORT", False),
        ("php -d opcache.enable=0 worker.php", False),  # not the built-in server
        ("node server.js", False),
        ("npx vite preview --port $PORT", False),
    ],
)
def test_only_a_request_scoped_server_is_traced_per_state(
    tmp_path: Path, start: str, scoped: bool
) -> None:
    task = make_task(tmp_path, [{"id": "home", "route": "/"}], [])
    raw = msgspec.to_builtins(task.contract)
    raw["stack"], raw["serve"] = "php", {"start": start}
    contract = msgspec.convert(raw, type(task.contract))
    assert request_scoped(contract) is scoped
    assert ReuseCache.for_contract(contract).traceable is scoped
