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
with `stream_options.include_usage`, Anthropic message events; see `_fake_stream`).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

import anyio
import msgspec

from ._fake_reference import ReferenceBook
from ._fake_responses import problem_responses, reply_responses, stream_responses, view_responses
from ._fake_shell import shell_reply, shell_tool
from ._fake_stream import stream_anthropic, stream_openai
from ._fake_text import SIDE_REPLY, asks_whole_files, whole_files_reply
from ._fake_wire import (
    Call,
    Conversation,
    ScriptedTurn,
    error_anthropic,
    error_openai,
    models_anthropic,
    models_openai,
    problem_anthropic,
    problem_openai,
    reply_anthropic,
    reply_openai,
    view_anthropic,
    view_openai,
)

FaultKind = Literal[
    "status",  # answer HTTP `status` in the API's error shape (+ `retry_after`, `headers`)
    "replay",  # answer `status`, `headers` and `body` verbatim (a recorded response)
    "context_too_long",  # the API's documented context-length error
    "no_credit",  # OpenAI 429 insufficient_quota / Anthropic 402 billing_error
    "error_in_200",  # HTTP 200 whose body is an error (`message`)
    "no_usage",  # a normal answer without `usage`
    "context_stop",  # Anthropic: 200 with stop_reason model_context_window_exceeded
    "stream_error",  # streaming: an error event after the first deltas
    "stream_cut",  # streaming: the first half of the events, then the connection closes
    "delay",  # answer normally after `delay_s`
    "truncated_json",  # 200 with half a JSON body
    "bad_args",  # a tool call whose arguments are not JSON
    "unknown_tool",  # a call to a tool that does not exist
    "missing_arg",  # write_file without `content`
    "outside_path",  # write_file to `path` (outside allowed_paths)
    "ask_user",  # ask a question instead of working
]
SECRET_HEADERS = frozenset(
    {"authorization", "x-api-key", "api-key", "cookie", "proxy-authorization"}
)


class Fault(msgspec.Struct, frozen=True, kw_only=True):
    kind: FaultKind
    times: int = 1  # requests it applies to; 0 = every request from then on
    # > 0: every request for this many seconds from the first one it applied to (a storm),
    # then never again; `times` is ignored.
    for_s: float = 0.0
    status: int = 500
    retry_after: str = ""
    delay_s: float = 0.0
    path: str = "../outside.txt"
    message: str = ""  # error text of a "status" fault (e.g. one echoing a key)
    headers: dict[str, str] = {}  # extra response headers ("status", "replay")
    body: str = ""  # "replay": the response body


class RecordedRequest(msgspec.Struct, frozen=True, kw_only=True):
    method: str
    path: str
    headers: dict[str, str]
    body: Any  # parsed JSON, or None


class _Answer(msgspec.Struct, frozen=True, kw_only=True):
    status: int
    body: bytes
    headers: dict[str, str] = {}
    delay_s: float = 0.0
    events: tuple[bytes, ...] = ()  # server-sent events instead of `body`


def _json(status: int, obj: Any, **headers: str) -> _Answer:
    return _Answer(status=status, body=json.dumps(obj).encode(), headers=headers)


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
        self._faults: list[list[Any]] = []
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
        # [fault, requests left (-1: unbounded), storm end (monotonic; None: not started)]
        self._faults.extend([f, f.times or -1, None] for f in faults)

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    # ------------------------------------------------------------ serving
    def handle(self, method: str, path: str, headers: dict[str, str], raw: bytes) -> _Answer:
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
            fault = self._next_fault()
        anthropic = path == "/v1/messages" or "anthropic-version" in clean
        refused = self._refuse(anthropic, headers, n)
        if refused is not None:
            return refused
        if method == "GET" and path == "/v1/models":
            model = self._models[0]
            return _json(200, models_anthropic(model) if anthropic else models_openai(model))
        if (
            path not in ("/v1/chat/completions", "/v1/messages", "/v1/responses")
            or method != "POST"
        ):
            message = f"no route {method} {path}"
            return _json(
                404, error_anthropic(404, message, n=n) if anthropic else error_openai(404, message)
            )
        if not isinstance(body, dict):
            message = "body is not a JSON object"
            return _json(
                400, error_anthropic(400, message, n=n) if anthropic else error_openai(400, message)
            )
        if path == "/v1/responses":
            answer = self._answer_responses(body, n, fault)
        else:
            answer = self._answer(anthropic, body, n, fault)
        return msgspec.structs.replace(answer, delay_s=answer.delay_s + self._latency_s)

    def _refuse(self, anthropic: bool, headers: dict[str, str], n: int) -> _Answer | None:
        """The key and version checks of the real APIs."""
        lower = {k.lower(): v for k, v in headers.items()}
        if anthropic:
            if "anthropic-version" not in lower:
                message = "anthropic-version: header is required"
                return _json(400, error_anthropic(400, message, n=n))
            keys = (lower.get("x-api-key"), lower.get("authorization", "").removeprefix("Bearer "))
            if self._api_key and self._api_key not in keys:  # newer SDKs send a bearer token
                return _json(401, error_anthropic(401, "invalid x-api-key", n=n))
        elif self._api_key and lower.get("authorization") != f"Bearer {self._api_key}":
            message = (
                "Incorrect API key provided. You can find your API key in your account settings."
            )
            return _json(401, error_openai(401, message))
        return None

    def _next_fault(self) -> Fault | None:
        now = time.monotonic()
        for slot in self._faults:
            fault: Fault = slot[0]
            if fault.for_s > 0:
                if slot[2] is None:
                    slot[2] = now + fault.for_s
                if now < slot[2]:
                    return fault
                continue
            if slot[1] != 0:
                slot[1] -= 1 if slot[1] > 0 else 0
                return fault
        return None

    def _error(self, anthropic: bool, status: int, message: str, n: int, **kw: Any) -> Any:
        return (
            error_anthropic(status, message, n=n, **kw)
            if anthropic
            else error_openai(status, message, **kw)
        )

    def _answer(
        self, anthropic: bool, body: dict[str, Any], n: int, fault: Fault | None
    ) -> _Answer:
        kind = fault.kind if fault is not None else None
        if fault is not None and kind == "replay":
            return _Answer(status=fault.status, body=fault.body.encode(), headers=fault.headers)
        if fault is not None and kind == "status":
            extra = {"Retry-After": fault.retry_after} if fault.retry_after else {}
            msg = fault.message or f"injected HTTP {fault.status}"
            err = self._error(anthropic, fault.status, msg, n)
            return _json(fault.status, err, **extra, **fault.headers)
        if kind == "context_too_long":
            if anthropic:
                msg = "prompt is too long: 250000 tokens > 200000 maximum"
                return _json(400, error_anthropic(400, msg, n=n))
            msg = (
                "This model's maximum context length is 128000 tokens. However, your messages "
                "resulted in 250000 tokens. Please reduce the length of the messages."
            )
            return _json(400, error_openai(400, msg, code="context_length_exceeded"))
        if kind == "no_credit":
            if anthropic:
                msg = "Your credit balance is too low to access the Anthropic API."
                return _json(402, error_anthropic(402, msg, n=n))
            msg = "You exceeded your current quota, please check your plan and billing details."
            err = error_openai(429, msg, type_="insufficient_quota", code="insufficient_quota")
            return _json(429, err)
        if anthropic and (problem := problem_anthropic(body)):
            return _json(400, error_anthropic(400, problem, n=n))
        if not anthropic and (bad := problem_openai(body)):
            message, param, code = bad
            err = error_openai(400, message, code=code)
            err["error"]["param"] = param
            return _json(400, err)
        if fault is not None and kind == "error_in_200":
            return _json(200, self._error(anthropic, 500, fault.message or "upstream failed", n))
        conv = view_anthropic(body) if anthropic else view_openai(body)
        reply = _fault_reply(fault) or self._script(conv)
        data = (reply_anthropic if anthropic else reply_openai)(body, reply, n)
        if kind == "no_usage":
            data.pop("usage")
        if kind == "context_stop" and anthropic:
            data["stop_reason"] = "model_context_window_exceeded"
        if body.get("stream") is True:
            return self._stream(anthropic, body, data, n, fault)
        answer = _json(200, data)
        if fault is not None and kind == "truncated_json":
            answer = msgspec.structs.replace(answer, body=answer.body[: len(answer.body) // 2])
        if fault is not None and kind == "delay":
            answer = msgspec.structs.replace(answer, delay_s=fault.delay_s)
        return answer

    def _answer_responses(self, body: dict[str, Any], n: int, fault: Fault | None) -> _Answer:
        kind = fault.kind if fault is not None else None
        if kind in ("replay", "status", "context_too_long", "no_credit"):
            return self._answer(False, body, n, fault)  # answered before the body is read
        if bad := problem_responses(body):
            err = error_openai(400, bad[0], code="missing_required_parameter")
            err["error"]["param"] = bad[1]
            return _json(400, err)
        if fault is not None and kind == "error_in_200":
            return _json(200, error_openai(500, fault.message or "upstream failed"))
        reply = _fault_reply(fault) or self._script(view_responses(body))
        data = reply_responses(body, reply, n)
        if kind == "no_usage":
            data["usage"] = None
        delay = fault.delay_s if fault is not None and kind == "delay" else 0.0
        if body.get("stream") is True:
            error = None
            if fault is not None and kind == "stream_error":
                error = error_openai(500, fault.message or "Overloaded", code="server_error")
            events = tuple(stream_responses(data, error=error))
            if fault is not None and kind == "stream_cut":
                events = events[: len(events) // 2]
            return _Answer(status=200, body=b"", events=events, delay_s=delay)
        answer = _json(200, data)
        if kind == "truncated_json":
            answer = msgspec.structs.replace(answer, body=answer.body[: len(answer.body) // 2])
        return msgspec.structs.replace(answer, delay_s=delay)

    def _stream(
        self, anthropic: bool, body: dict[str, Any], data: Any, n: int, fault: Fault | None
    ) -> _Answer:
        error = None
        if fault is not None and fault.kind == "stream_error":
            error = self._error(anthropic, 529, fault.message or "Overloaded", n)
        if anthropic:
            events = stream_anthropic(data, error=error)
        else:
            options = body.get("stream_options")
            usage = isinstance(options, dict) and options.get("include_usage") is True
            events = stream_openai(data, include_usage=usage)
            if error is not None:  # OpenAI: an error object as a data line, then the end
                events = [*events[:2], f"data: {json.dumps(error)}\n\n".encode()]
        if fault is not None and fault.kind == "stream_cut":  # the provider died mid-answer
            events = events[: len(events) // 2]
        delay = fault.delay_s if fault is not None and fault.kind == "delay" else 0.0
        return _Answer(status=200, body=b"", events=tuple(events), delay_s=delay)

    def _script(self, conv: Conversation) -> ScriptedTurn:
        if shell := shell_tool(conv.schemas):  # a CLI agent that works through a shell
            schema = conv.schemas[shell]
            return shell_reply(self._book, conv.user_texts, shell, schema, conv.calls_made)
        if not conv.tools:
            if asks_whole_files(conv):  # a CLI agent that edits by text (aider): _fake_text
                return whole_files_reply(self._book, conv.user_texts)
            # An agent's side request (a session title, a summary, a commit message): a
            # short answer, as a model gives, so metered spend is what a demo would cost.
            return ScriptedTurn(text=SIDE_REPLY, calls=())
        if conv.new_turn and "view_page" in conv.tools:
            return ScriptedTurn(text="Looking at the page first.", calls=(Call("view_page", {}),))
        if not conv.new_turn and "view_page" not in conv.last_calls:
            return ScriptedTurn(
                text="Finished.", calls=(Call("done", {"summary": "reference applied"}),)
            )
        found = self._book.match(conv.user_texts)
        if found is None:
            return ScriptedTurn(
                text="Nothing I recognise.", calls=(Call("done", {"summary": "no change"}),)
            )
        files = self._book.changed_files(*found)
        calls = tuple(
            Call("delete_file", {"path": p})
            if c is None
            else Call("write_file", {"path": p, "content": c})
            for p, c in files.items()
        )
        return ScriptedTurn(
            text=f"Implementing {found[1]}.",
            calls=calls or (Call("done", {"summary": "no change"}),),
        )

    def sleep(self, seconds: float) -> None:
        self._stop.wait(seconds)


def _fault_reply(fault: Fault | None) -> ScriptedTurn | None:
    if fault is None:
        return None
    calls = {
        "bad_args": Call("write_file", '{"path": "index.html", "content": '),
        "unknown_tool": Call("delete_everything", {}),
        "missing_arg": Call("write_file", {"path": "index.html"}),
        "outside_path": Call("write_file", {"path": fault.path, "content": "escaped\n"}),
        "ask_user": Call("ask_user", {"question": "Which colour should the button be?"}),
    }
    call = calls.get(fault.kind)
    return ScriptedTurn(text="", calls=(call,)) if call else None


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
                answer = _json(400, {"error": {"type": "fake_error", "message": message}})
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
