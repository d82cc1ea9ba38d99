"""A scripted LLM provider on loopback that plays a task's reference as tool calls.

`async with FakeProvider(task_dir=..., faults=[...]) as fake:` serves OpenAI chat
completions at `fake.base_url` (and the Anthropic messages API at
`fake.anthropic_base_url`) from a real HTTP server in a thread, so it works under any
async backend. Per request it finds the unit the conversation is on (the newest user
text that quotes a unit's `request`), then answers: `view_page` first when offered,
`write_file` for every file the reference changed through that unit (`delete_file` for
each it deleted), then `done`.
Faults, consumed in order, replace that answer; every request is recorded with its
secret headers redacted.

Like the real APIs it rejects, with their documented 400s, the request shapes they
reject (empty text blocks, empty messages, non-alternating roles, `content: null` with
no tool calls, `max_tokens`/`temperature` sent to a reasoning model, a temperature with
Anthropic thinking), checks the key when given one (`api_key=`: 401 in each API's
error shape), requires `anthropic-version` on the Anthropic routes, lists `models` at
`GET /v1/models` (OpenAI's list shape, or Anthropic's when the request carries
`anthropic-version`), and streams server-sent events for `stream: true` (OpenAI chunks
with `stream_options.include_usage`, Anthropic message events; see `_stream`).

This module is the server and its bookkeeping; the answers are `_answers`', the
faults and their queue `_faults`'.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any

import anyio
import msgspec

from ._answers import Answer, answer_chat, answer_responses, error, json_answer
from ._faults import Fault, FaultQueue
from ._reference import ReferenceBook
from ._wire import error_anthropic, error_openai, models_anthropic, models_openai

SECRET_HEADERS = frozenset(
    {"authorization", "x-api-key", "api-key", "cookie", "proxy-authorization"}
)


class RecordedRequest(msgspec.Struct, frozen=True, kw_only=True):
    method: str
    path: str
    headers: dict[str, str]
    body: Any  # parsed JSON, or None


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that hung up mid-answer is expected (timeouts, cancelled cells)


class FakeProvider:
    def __init__(
        self,
        *,
        task_dir: Path | None = None,
        task_dirs: Sequence[Path] = (),
        faults: Sequence[Fault] = (),
        latency_s: float = 0.0,
        api_key: str = "",
        models: Sequence[str] = ("pwb-fake",),
    ) -> None:
        self._book = ReferenceBook([*([task_dir] if task_dir else []), *task_dirs])
        self._api_key = api_key
        self._models = tuple(models)
        self._faults = FaultQueue()
        self.add_faults(*faults)
        self._latency_s = latency_s
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._requests: list[RecordedRequest] = []
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------ lifecycle
    async def __aenter__(self) -> FakeProvider:
        self._server = _QuietServer(("127.0.0.1", 0), _handler_for(self))
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), name="fake-llm", daemon=True
        )
        self._thread.start()
        return self

    async def __aexit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stop.set()  # wakes handlers sleeping on a delay
        server, thread = self._server, self._thread
        if server is None or thread is None:
            return
        await anyio.to_thread.run_sync(server.shutdown)  # returns once serve_forever ended
        await anyio.to_thread.run_sync(thread.join)
        server.server_close()

    @property
    def anthropic_base_url(self) -> str:
        assert self._server is not None, "FakeProvider is not running"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def base_url(self) -> str:
        return self.anthropic_base_url + "/v1"

    # ------------------------------------------------------------ test-facing
    def add_faults(self, *faults: Fault) -> None:
        self._faults.add(*faults)

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    # ------------------------------------------------------------ serving
    def handle(self, method: str, path: str, headers: dict[str, str], raw: bytes) -> Answer:
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        clean = {
            k.lower(): ("<redacted>" if k.lower() in SECRET_HEADERS else v)
            for k, v in headers.items()
        }
        with self._lock:
            self._requests.append(
                RecordedRequest(method=method, path=path, headers=clean, body=body)
            )
            n = len(self._requests)
            fault = self._faults.next()
        anthropic = path == "/v1/messages" or "anthropic-version" in clean
        refused = self._refuse(anthropic, headers, n)
        if refused is not None:
            return refused
        if method == "GET" and path == "/v1/models":
            model = self._models[0]
            return json_answer(200, models_anthropic(model) if anthropic else models_openai(model))
        if (
            path not in ("/v1/chat/completions", "/v1/messages", "/v1/responses")
            or method != "POST"
        ):
            message = f"no route {method} {path}"
            return json_answer(404, error(anthropic, 404, message, n))
        if not isinstance(body, dict):
            message = "body is not a JSON object"
            return json_answer(400, error(anthropic, 400, message, n))
        if path == "/v1/responses":
            answer = answer_responses(body, n, fault, self._book)
        else:
            answer = answer_chat(anthropic, body, n, fault, self._book)
        return msgspec.structs.replace(answer, delay_s=answer.delay_s + self._latency_s)

    def _refuse(self, anthropic: bool, headers: dict[str, str], n: int) -> Answer | None:
        """The key and version checks of the real APIs."""
        lower = {k.lower(): v for k, v in headers.items()}
        if anthropic:
            if "anthropic-version" not in lower:
                message = "anthropic-version: header is required"
                return json_answer(400, error_anthropic(400, message, n=n))
            keys = (lower.get("x-api-key"), lower.get("authorization", "").removeprefix("Bearer "))
            if self._api_key and self._api_key not in keys:  # newer SDKs send a bearer token
                return json_answer(401, error_anthropic(401, "invalid x-api-key", n=n))
        elif self._api_key and lower.get("authorization") != f"Bearer {self._api_key}":
            message = (
                "Incorrect API key provided. You can find your API key in your account settings."
            )
            return json_answer(401, error_openai(401, message))
        return None

    def sleep(self, seconds: float) -> None:
        self._stop.wait(seconds)


def _handler_for(fake: FakeProvider) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self._serve()

        def do_GET(self) -> None:
            self._serve()

        def _serve(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                answer = fake.handle(self.command, self.path, dict(self.headers.items()), raw)
            except Exception as exc:  # a bug of the fake itself: say so instead of hanging up
                message = f"fake provider failed: {type(exc).__name__}: {exc}"
                answer = json_answer(400, {"error": {"type": "fake_error", "message": message}})
            fake.sleep(answer.delay_s)
            self.send_response(answer.status)
            headers = {"request-id": "req_fake", "x-request-id": "req_fake"}
            if answer.events:  # HTTP/1.0: the stream ends when the connection closes
                headers |= {"content-type": "text/event-stream", "cache-control": "no-cache"}
            else:
                headers |= {"content-type": "application/json"}
                headers["content-length"] = str(len(answer.body))
            for k, v in (headers | {k.lower(): v for k, v in answer.headers.items()}).items():
                self.send_header(k, v)
            self.end_headers()
            try:
                for chunk in answer.events or (answer.body,):
                    self.wfile.write(chunk)
                    self.wfile.flush()
            except OSError:
                pass  # the client gave up (a read timeout): nothing to answer

        def log_message(self, format: str, *args: Any) -> None:
            pass  # requests are recorded, not printed

    return Handler
