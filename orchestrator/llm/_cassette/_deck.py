"""The cassette deck: a loopback HTTP server in front of one provider. `record`: every
request is forwarded to the provider (streams relayed as they arrive) and the exchange
appended to its cell's cassette; `replay`: every request is answered from the cassettes
in a folder, the provider never asked. Matching and format: `_format`.

A request the cassettes cannot answer (more turns than recorded, a conversation never
recorded) gets a 400 `cassette_miss` naming the cell, conversation and turn, and is kept
in `misses`: the client ends the cell with that error, never with a wrong answer.

Like the fake provider it serves from a thread (`ThreadingHTTPServer`), so forwarding
blocks no event loop and it works under any async backend.
"""

from __future__ import annotations

import json
import threading
import time
from collections import defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

import anyio
import httpx
import msgspec

from ._format import (
    CELL_HEADER,
    KEEP_REQUEST,
    KEEP_RESPONSE,
    UNTAGGED,
    Exchange,
    Key,
    body_bytes,
    body_record,
    cassette_name,
    conversation_of,
    kept,
    parse_json,
    read_cassette,
)

Mode = Literal["record", "replay"]
# Not passed on (hop-by-hop, or the deck's own: its server writes `date` and `server`).
_HOP = frozenset(
    {"host", "content-length", "transfer-encoding", "connection", "keep-alive", "content-encoding"}
    | {"date", "server"}
)


class _Quiet(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that hung up mid-answer (a cancelled cell)


def load_cassettes(directory: Path) -> dict[Key, Exchange]:
    """Every exchange of the cassettes (`*.jsonl`) in `directory`, by key."""
    if not directory.is_dir():
        raise ValueError(f"cassette replay: no folder {directory}")
    index: dict[Key, Exchange] = {}
    for path in sorted(directory.glob("*.jsonl")):
        for ex in read_cassette(path.read_text(encoding="utf-8"), str(path)):
            if ex.key in index:
                raise ValueError(f"{path}: exchange {ex.key} recorded twice")
            index[ex.key] = ex
    return index


class CassetteDeck:
    CELL_HEADER = CELL_HEADER  # names the cell a request belongs to; stripped upstream

    def __init__(
        self,
        mode: Mode,
        directory: Path,
        *,
        upstream: str = "",
        prefix: str = "/v1",
        timeout_s: float = 600.0,
        connect_s: float = 10.0,
    ) -> None:
        if mode == "record" and not upstream:
            raise ValueError("cassette record: no upstream URL to forward to")
        self.mode = mode
        self.directory = directory
        self._upstream = upstream.rstrip("/")
        self._prefix = prefix.rstrip("/")
        self._timeout = httpx.Timeout(connect=connect_s, read=timeout_s, write=timeout_s, pool=None)
        self._lock = threading.Lock()
        self._counts: dict[tuple[str, str, int], int] = defaultdict(int)
        self._seq: dict[str, int] = defaultdict(int)
        self._fresh: set[str] = set()  # cells whose cassette starts over at the next write
        self._index: dict[Key, Exchange] = {}
        self.misses: list[str] = []
        self._client: httpx.Client | None = None
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------ lifecycle
    async def __aenter__(self) -> CassetteDeck:
        if self.mode == "replay":
            self._index = await anyio.to_thread.run_sync(load_cassettes, self.directory)
        else:
            await anyio.to_thread.run_sync(
                lambda: self.directory.mkdir(parents=True, exist_ok=True)
            )
            self._client = httpx.Client(timeout=self._timeout, trust_env=False)
        self._server = _Quiet(("127.0.0.1", 0), _handler_for(self))
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), name="cassette-deck", daemon=True
        )
        self._thread.start()
        return self

    async def __aexit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        server, thread = self._server, self._thread
        if server is not None and thread is not None:
            await anyio.to_thread.run_sync(server.shutdown)
            await anyio.to_thread.run_sync(thread.join)
            server.server_close()
        if self._client is not None:
            self._client.close()

    @property
    def base_url(self) -> str:
        assert self._server is not None, "CassetteDeck is not running"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}{self._prefix}"

    def begin_cell(self, cell: str) -> None:
        """An attempt of `cell` starts: its cassette (record) or its place in the
        cassette (replay) starts over, so a retried attempt is recorded alone."""
        with self._lock:
            for k in [k for k in self._counts if k[0] == cell]:
                del self._counts[k]
            self._seq[cell] = 0
            self._fresh.add(cell)

    # ------------------------------------------------------------ serving
    def _next(self, cell: str, conversation: str, turn: int) -> tuple[int, int]:
        """The request's repeat and sequence number (the caller holds the lock)."""
        repeat = self._counts[(cell, conversation, turn)]
        self._counts[(cell, conversation, turn)] += 1
        seq = self._seq[cell]
        self._seq[cell] += 1
        return repeat, seq

    def serve(self, h: BaseHTTPRequestHandler, raw: bytes) -> None:
        headers = {k.lower(): v for k, v in h.headers.items()}
        cell = headers.get(CELL_HEADER) or UNTAGGED
        body = parse_json(raw)
        conversation, turn = conversation_of(h.path, body)
        if self.mode == "replay":
            self._replay(h, cell, conversation, turn)
            return
        with self._lock:
            repeat, seq = self._next(cell, conversation, turn)
        ctype = headers.get("content-type", "")
        request = {
            "method": h.command,
            "path": h.path,
            "headers": kept(headers, KEEP_REQUEST),
            **body_record(raw, ctype),
        }
        t0 = time.monotonic()
        status, rheaders, data = self._forward(h, headers, raw)
        secret = _secret(headers)
        text = data.decode("utf-8", errors="replace")
        if secret and secret in text:
            data = text.replace(secret, "<redacted>").encode()
        response = {
            "status": status,
            "headers": kept(rheaders, KEEP_RESPONSE),
            **body_record(data, rheaders.get("content-type", "")),
        }
        ex = Exchange(
            cell=cell,
            seq=seq,
            conversation=conversation,
            turn=turn,
            repeat=repeat,
            seconds=round(time.monotonic() - t0, 3),
            request=request,
            response=response,
        )
        self._write(ex)

    def _forward(
        self, h: BaseHTTPRequestHandler, headers: dict[str, str], raw: bytes
    ) -> tuple[int, dict[str, str], bytes]:
        assert self._client is not None
        path = h.path[len(self._prefix) :] if h.path.startswith(self._prefix) else h.path
        out = {k: v for k, v in headers.items() if k not in _HOP and k != CELL_HEADER}
        out["accept-encoding"] = "identity"
        try:
            with self._client.stream(
                h.command, self._upstream + path, headers=out, content=raw
            ) as r:
                back = {k.lower(): v for k, v in r.headers.items() if k.lower() not in _HOP}
                if back.get("content-type", "").startswith("text/event-stream"):
                    _start(h, r.status_code, back)
                    chunks = []
                    for chunk in r.iter_raw():
                        chunks.append(chunk)
                        _write_quietly(h, chunk)
                    return r.status_code, back, b"".join(chunks)
                data = r.read()
        except httpx.HTTPError as exc:
            message = f"pwb cassette deck: provider unreachable: {type(exc).__name__}: {exc}"
            data = json.dumps({"error": {"message": message, "type": "api_error"}}).encode()
            back = {"content-type": "application/json"}
            _answer(h, 502, back, data)
            return 502, back, data
        _answer(h, r.status_code, back, data)
        return r.status_code, back, data

    def _write(self, ex: Exchange) -> None:
        path = self.directory / cassette_name(ex.cell)
        line = msgspec.json.encode(ex) + b"\n"
        with self._lock:
            mode = "wb" if ex.cell in self._fresh else "ab"
            self._fresh.discard(ex.cell)
            with path.open(mode) as f:
                f.write(line)

    def _replay(self, h: BaseHTTPRequestHandler, cell: str, conversation: str, turn: int) -> None:
        with self._lock:
            if cell == UNTAGGED:
                cells = {k.cell for k in self._index if k.conversation == conversation}
                cell = cells.pop() if len(cells) == 1 else cell
            repeat, _ = self._next(cell, conversation, turn)
            ex = self._index.get(Key(cell, conversation, turn, repeat))
            if ex is None and h.command == "GET":  # idempotent: the last answer again
                found = [e for k, e in self._index.items() if k[:3] == (cell, conversation, turn)]
                ex = found[-1] if found else None
            miss = "" if ex is not None else self._miss(cell, conversation, turn, repeat)
            if miss:
                self.misses.append(miss)
        if ex is None:
            err = {"error": {"message": miss, "type": "cassette_miss", "code": "cassette_miss"}}
            _answer(h, 400, {"content-type": "application/json"}, json.dumps(err).encode())
            return
        resp = ex.response
        _answer(h, int(resp["status"]), dict(resp.get("headers", {})), body_bytes(resp))

    def _miss(self, cell: str, conversation: str, turn: int, repeat: int) -> str:
        where = f"pwb cassette replay ({self.directory}): cell {cell!r}"
        keys = [k for k in self._index if k.cell == cell]
        turns = sorted({k.turn for k in keys if k.conversation == conversation})
        if not keys:
            return f"{where}: no cassette holds this cell"
        if not turns:
            known = sorted({k.conversation for k in keys})
            return f"{where}: conversation {conversation} was never recorded (recorded: {known})"
        if turn > turns[-1]:
            return (
                f"{where}: turn {turn} of conversation {conversation} asked for, but the "
                f"recording ends at turn {turns[-1]}: more turns than were recorded"
            )
        return (
            f"{where}: turn {turn} (request {repeat + 1} at that turn) of conversation "
            f"{conversation} was never recorded"
        )


def _secret(headers: dict[str, str]) -> str:
    auth = headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip()
    return headers.get("x-api-key", "")


def _start(h: BaseHTTPRequestHandler, status: int, headers: dict[str, str]) -> None:
    h.send_response(status)
    for k, v in headers.items():
        h.send_header(k, v)
    h.end_headers()


def _write_quietly(h: BaseHTTPRequestHandler, data: bytes) -> None:
    try:
        h.wfile.write(data)
        h.wfile.flush()
    except OSError:
        pass  # the client hung up; the exchange is still recorded whole


def _answer(h: BaseHTTPRequestHandler, status: int, headers: dict[str, str], data: bytes) -> None:
    stream = headers.get("content-type", "").startswith("text/event-stream")
    _start(h, status, headers if stream else headers | {"content-length": str(len(data))})
    _write_quietly(h, data)


def _handler_for(deck: CassetteDeck) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self._serve()

        def do_GET(self) -> None:
            self._serve()

        def _serve(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            deck.serve(self, raw)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler
