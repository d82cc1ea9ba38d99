"""The replay-reuse file trace (`orchestrator/verifier/_reuse/_opens.py`) watches the work tree
from the host: it must see what the sandbox's server opens and writes, through the bind
mount (Docker) as well as directly (local)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from orchestrator.verifier import OpenTrace, Reads
from sandbox import Backend, Labels, ServeSpec

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]

# Reads a data file per request, lists a folder for /list, appends to a log for /write.
SERVER = r"""
const http = require('http'), fs = require('fs');
http.createServer((req, res) => {
  if (req.url === '/data') return res.end(fs.readFileSync('data/x.json'));
  if (req.url === '/list') return res.end(fs.readdirSync('data/deep').join(','));
  if (req.url === '/write') { fs.appendFileSync('data/log.txt', 'x'); return res.end('ok'); }
  res.end('root');
}).listen(Number(process.env.PORT), '0.0.0.0');
"""
NODE = ServeSpec(stack="node", start="exec node server.js", ready_path="/")


async def test_trace_sees_the_server_open_list_and_write(
    backend: Backend, tmp_path: Path, sweep_id: str, cell_id: str
) -> None:
    root = tmp_path / "ws"
    (root / "data" / "deep").mkdir(parents=True)
    (root / "data" / "x.json").write_text("{}")
    (root / "server.js").write_text(SERVER)
    async with backend.open(root, NODE, Labels(sweep=sweep_id, cell=cell_id)) as box:
        served = await box.serve()
        assert served.ready, served.detail
        trace = OpenTrace.start(root)

        async def window(path: str) -> Reads:
            mark = trace.mark()
            async with httpx.AsyncClient(trust_env=False, timeout=10) as client:
                (await client.get(served.base_url + path)).raise_for_status()
            return trace.since(mark)

        try:
            data, listing, other, written = [
                await window(p) for p in ("/data", "/list", "/", "/write")
            ]
        finally:
            trace.close()
    assert data == Reads(paths=frozenset({"data/x.json"}))
    assert listing == Reads(paths=frozenset({"data/deep"}))
    assert other == Reads()  # a window holds only what happened in it
    assert written.uncertain.startswith("/data/log.txt was")
