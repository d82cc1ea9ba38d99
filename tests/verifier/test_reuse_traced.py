"""Replay reuse on a dynamic stack: on a request-scoped server a state is reused only
when every file the server read for it (`_reuse/_opens.py`) is byte-identical, in the same
server process; on a server that lives across requests, only when the tree is.

A real PHP built-in server reads a data file and a stylesheet from the work tree on each
request, as the solver's scripts may; a real node server keeps what one request read for
another. Every checkpoint is verified with the reuse cache (through `BrowserVerifier`,
which starts the trace) and as a full replay; the verdicts must be identical, and the
states reused exactly those whose files did not change.
"""

from __future__ import annotations

import dataclasses
import os
import socket
import subprocess
import time
from collections.abc import AsyncIterator
from pathlib import Path

import msgspec
import pytest

from orchestrator.contract import TaskPackage
from orchestrator.records import VerifyReport
from orchestrator.verifier import BrowserPool, BrowserVerifier, RunHealth, VerifyRequest, verify
from orchestrator.verifier._reuse._rules import is_static, request_scoped
from orchestrator.workspace import Workspace

from .conftest import check, make_task, need_chromium

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(300)]

PHP_START = "php -d opcache.enable=0 -S 0.0.0.0:$PORT -t ."
FILES = {
    "a.php": "<style><?= file_get_contents(__DIR__ . '/theme.css') ?></style>"
    '<h1 id="t">Alpha</h1>',
    "b.php": '<h1 id="t"><?= json_decode(file_get_contents(__DIR__ . "/data/b.json"))->title ?>'
    "</h1>",
    "c.php": '<h1 id="t">Gamma</h1>',
    "theme.css": "h1 { color: rgb(0, 0, 0); }",
    "data/b.json": '{"title": "Wrong"}',
    "unread.txt": "nobody reads this",
}
# /a reads the data file into memory; /b shows what /a last read.
NODE_MEMORY = r"""
const http = require('http'), fs = require('fs');
let title = 'none yet';
http.createServer((req, res) => {
  res.setHeader('content-type', 'text/html; charset=utf-8');
  if (req.url === '/a') { title = JSON.parse(fs.readFileSync('data.json', 'utf8')).title; }
  res.end(`<h1 id="t">${title}</h1>`);
}).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('ready'));
"""


@pytest.fixture(scope="module")
async def full_pool(require_chromium: None) -> AsyncIterator[BrowserPool]:
    need_chromium()
    async with BrowserPool(replay="full") as p:
        yield p


@pytest.fixture(scope="module")
async def one_pool(require_chromium: None) -> AsyncIterator[BrowserPool]:
    """One state at a time: the windows of states replayed together are unioned (more
    dependencies), so which states a change replays is only exact without overlap."""
    need_chromium()
    async with BrowserPool(max_contexts=1) as p:
        yield p


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start(cmd: list[str], root: Path, port: int) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        cmd, cwd=root, env={**os.environ, "PORT": str(port)}, stdout=subprocess.DEVNULL, text=True
    )
    deadline = time.monotonic() + 20
    while True:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return proc
        assert time.monotonic() < deadline and proc.poll() is None, "the server did not start"
        time.sleep(0.05)


def _php(root: Path, port: int) -> subprocess.Popen[str]:
    return _start(
        ["php", "-d", "opcache.enable=0", "-S", f"127.0.0.1:{port}", "-t", "."], root, port
    )


def _served_by(task: TaskPackage, stack: str, start: str) -> TaskPackage:
    raw = msgspec.to_builtins(task.contract)
    raw["stack"], raw["serve"] = stack, {"start": start}
    return dataclasses.replace(task, contract=msgspec.convert(raw, type(task.contract)))


def _verdicts(r: VerifyReport) -> list[tuple[str, bool, str]]:
    return [(c.id, c.passed, c.observed) for c in r.checks]


async def test_states_replay_when_a_file_their_server_read_changes(
    tmp_path: Path, one_pool: BrowserPool, full_pool: BrowserPool
) -> None:
    r0 = tmp_path / "r0"
    for name, text in FILES.items():
        (r0 / name).parent.mkdir(parents=True, exist_ok=True)
        (r0 / name).write_text(text)
    ws = await Workspace.create(r0, tmp_path / "ws", ["**"], store=tmp_path / "store")
    task = make_task(
        tmp_path,
        [{"id": s, "route": f"/{s}.php"} for s in ("a", "b", "c")],
        [
            check(
                "a_color",
                "dom",
                "a",
                kind="style",
                selector="#t",
                property="color",
                equals="rgb(0, 0, 0)",
            ),
            check("b_title", "text", "b", kind="text_equals", selector="#t", value="Beta"),
            check("c_title", "text", "c", kind="text_equals", selector="#t", value="Gamma"),
        ],
    )
    task = _served_by(task, "php", PHP_START)
    assert not is_static(task.contract) and request_scoped(task.contract)
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    proc = _php(ws.root, port)
    verifier = BrowserVerifier(one_pool)
    seen: list[tuple[set[str], dict[str, str]]] = []

    async def checkpoint(n: int, server: str = "s1") -> VerifyReport:
        kept = await verifier.verify(
            VerifyRequest(
                task=task,
                base_url=url,
                check_ids=None,
                health=RunHealth(),
                artifacts=tmp_path / f"cp{n}",
                workspace=ws,
                server=server,
            )
        )
        full = await verify(full_pool, task, url, artifacts=tmp_path / f"full{n}")
        assert _verdicts(kept) == _verdicts(full), n
        seen.append(
            ({s.state for s in kept.states if s.reused}, {s.state: s.replayed for s in kept.states})
        )
        return kept

    def passed(r: VerifyReport, cid: str) -> bool:
        found = r.check(cid)
        assert found is not None
        return found.passed

    try:
        first = await checkpoint(1)
        assert not passed(first, "b_title") and passed(first, "a_color")
        await checkpoint(2)  # nothing changed: all reused
        # The data file only b's server handler reads: b replays and now passes; a file
        # nobody reads changes nothing.
        await ws.write_file("data/b.json", '{"title": "Beta"}')
        await ws.write_file("unread.txt", "still unread")
        third = await checkpoint(3)
        assert passed(third, "b_title")
        assert seen[-1][1]["b"] == "/data/b.json (read by the server for it) changed"
        # A stylesheet the server inlines itself (an "asset" a URL rule would not see).
        await ws.write_file("theme.css", "h1 { color: rgb(255, 0, 0); }")
        fourth = await checkpoint(4)
        assert not passed(fourth, "a_color")
        # A new path anywhere (a server may test existence with stat): all replay.
        await ws.write_file("data/new.json", "{}")
        await checkpoint(5)
        # Another server process: all replay.
        proc.terminate()
        proc.wait(10)
        proc = _php(ws.root, port)
        await checkpoint(6, server="s2")
    finally:
        proc.terminate()
        proc.wait(10)
    reused = [r for r, _ in seen]
    assert reused == [set(), {"a", "b", "c"}, {"a", "c"}, {"b", "c"}, set(), set()]
    assert "a path was added" in seen[4][1]["a"]
    assert "restarted" in seen[5][1]["c"]


async def test_a_server_that_keeps_memory_reuses_only_an_identical_tree(
    tmp_path: Path, one_pool: BrowserPool, full_pool: BrowserPool
) -> None:
    """/b shows what /a read: b's own replay opens no file, yet a change to the file a
    reads changes b. Only the whole tree bounds it."""
    r0 = tmp_path / "r0"
    r0.mkdir()
    (r0 / "server.js").write_text(NODE_MEMORY)
    (r0 / "data.json").write_text('{"title": "Old"}')
    ws = await Workspace.create(r0, tmp_path / "ws", ["**"], store=tmp_path / "store")
    task = make_task(
        tmp_path,
        [{"id": s, "route": f"/{s}"} for s in ("a", "b")],
        [
            check("a_title", "text", "a", kind="text_equals", selector="#t", value="New"),
            check("b_title", "text", "b", kind="text_equals", selector="#t", value="New"),
        ],
    )
    task = _served_by(task, "node", "node server.js")
    assert not request_scoped(task.contract)
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    proc = _start(["node", "server.js"], ws.root, port)
    verifier = BrowserVerifier(one_pool)
    reused: list[set[str]] = []
    try:
        for n in (1, 2, 3):
            if n == 3:
                await ws.write_file("data.json", '{"title": "New"}')
            kept = await verifier.verify(
                VerifyRequest(
                    task=task,
                    base_url=url,
                    check_ids=None,
                    health=RunHealth(),
                    artifacts=tmp_path / f"cp{n}",
                    workspace=ws,
                    server="s1",
                )
            )
            full = await verify(full_pool, task, url, artifacts=tmp_path / f"full{n}")
            assert _verdicts(kept) == _verdicts(full), n
            reused.append({s.state for s in kept.states if s.reused})
    finally:
        proc.terminate()
        proc.wait(10)
    assert reused == [set(), {"a", "b"}, set()]
    titles = [kept.check(c) for c in ("a_title", "b_title")]
    assert all(c is not None and c.passed for c in titles)  # b shows what a read now
