"""A cassette: one cell's exchanges with a provider, one JSON object a line (`Exchange`),
and the rule that finds a recorded answer for a request again (`Key`).

A line, as written (`cassette` is the format's version):

    {"cassette": 1, "cell": "task/solver/arm/r0", "seq": 0,
     "conversation": "3f2a...", "turn": 0, "repeat": 0, "seconds": 21.3,
     "request": {"method": "POST", "path": "/v1/chat/completions",
                 "headers": {"content-type": "application/json"}, "body": {...}},
     "response": {"status": 200, "headers": {"content-type": "application/json"},
                  "body": {...}}}

A body is kept as parsed JSON (`body`), as the data of its server-sent events
(`events`: `{"event"?, "data"}` each, `data` parsed when it is JSON) or, when it is
neither, as text (`text`). Headers are kept by allow-list (`KEEP_REQUEST`,
`KEEP_RESPONSE`): no key, token, cookie, date or request id; the provider key a request
carried is replaced by `<redacted>` wherever the answer repeats it.

Matching (`Key`): a request is found again by its cell (the `x-pwb-cassette-cell`
header the harness and the gateway send to the recorder), its conversation (a hash of
its path and its stable first messages: the system text), its turn (how many assistant
messages it carries) and its repeat (how many earlier requests of the cell had that
conversation and turn: a retry, an empty reply that added nothing to the history, a
history cut short). Never by the user's or the tools' text: on replay the tool results
and the simulated user's push-back may differ from the recording's (a fake sandbox, the
oracle verifier), the answers may not. A prompt that is not JSON chat (`prompt`) counts
as one conversation of its path.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, NamedTuple

import msgspec

VERSION = 1
CELL_HEADER = "x-pwb-cassette-cell"
KEEP_REQUEST = frozenset({"content-type", "anthropic-version", "anthropic-beta", "openai-beta"})
KEEP_RESPONSE = frozenset({"content-type"})
UNTAGGED = "untagged"  # a request that named no cell


class Key(NamedTuple):
    cell: str
    conversation: str
    turn: int
    repeat: int


class Exchange(msgspec.Struct, kw_only=True):
    cassette: int = VERSION
    cell: str
    seq: int
    conversation: str
    turn: int
    repeat: int
    seconds: float = 0.0
    request: dict[str, Any]
    response: dict[str, Any]

    @property
    def key(self) -> Key:
        return Key(self.cell, self.conversation, self.turn, self.repeat)


def parse_json(raw: bytes) -> Any:
    try:
        return json.loads(raw) if raw else None
    except ValueError:
        return None


def _head(body: dict[str, Any]) -> list[Any]:
    """The stable first messages: the system text (`system`, `instructions`, the leading
    system or developer messages). Not the first user message: an agent that drops old
    turns (`history_turns`, a full context window) starts its history with a later one."""
    head: list[Any] = [body.get("system"), body.get("instructions")]
    items: Any = body.get("messages")
    if not isinstance(items, list):
        items = body.get("input")
        items = items if isinstance(items, list) else []
    for m in items:
        if not (isinstance(m, dict) and m.get("role") in ("system", "developer")):
            break
        head.append(m.get("content"))
    return head


def conversation_of(path: str, body: Any) -> tuple[str, int]:
    """The request's conversation (a hash) and turn (its assistant messages)."""
    if not isinstance(body, dict):
        return hashlib.sha256(path.encode()).hexdigest()[:16], 0
    head = json.dumps([path, _head(body)], sort_keys=True, ensure_ascii=False)
    items = body.get("messages") if isinstance(body.get("messages"), list) else body.get("input")
    turn = 0
    for m in items if isinstance(items, list) else ():
        if isinstance(m, dict) and (
            m.get("role") == "assistant" or m.get("type") == "function_call"
        ):
            turn += 1
    return hashlib.sha256(head.encode()).hexdigest()[:16], turn


def kept(headers: dict[str, str], allow: frozenset[str]) -> dict[str, str]:
    return {k.lower(): v for k, v in headers.items() if k.lower() in allow}


def body_record(raw: bytes, content_type: str) -> dict[str, Any]:
    """A body as the cassette keeps it (module docstring)."""
    text = raw.decode("utf-8", errors="replace")
    if content_type.startswith("text/event-stream"):
        return {"events": _events(text)}
    try:
        return {"body": json.loads(raw)} if raw else {}
    except ValueError:
        return {"text": text}


def _events(text: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        name, data = "", []
        for line in block.split("\n"):
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].removeprefix(" "))
        if not data and not name:
            continue
        payload = "\n".join(data)
        parsed = parse_json(payload.encode())
        event: dict[str, Any] = {"event": name} if name else {}
        event["data"] = payload if parsed is None else parsed
        out.append(event)
    return out


def body_bytes(record: dict[str, Any]) -> bytes:
    """The bytes a recorded body is served as."""
    if "events" in record:
        blocks = []
        for e in record["events"]:
            data = e["data"] if isinstance(e["data"], str) else json.dumps(e["data"])
            name = f"event: {e['event']}\n" if e.get("event") else ""
            blocks.append(f"{name}data: {data}\n\n")
        return "".join(blocks).encode()
    if "body" in record:
        return json.dumps(record["body"]).encode()
    return str(record.get("text", "")).encode()


def read_cassette(text: str, where: str) -> list[Exchange]:
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            ex = msgspec.json.decode(line, type=Exchange)
        except msgspec.DecodeError as exc:
            raise ValueError(f"{where}:{n}: not a cassette line: {exc}") from None
        if ex.cassette != VERSION:
            raise ValueError(f"{where}:{n}: cassette version {ex.cassette}, expected {VERSION}")
        out.append(ex)
    return out


def cassette_name(cell: str) -> str:
    """A cell's cassette file: its key as the run's cell directories name it."""
    safe = "".join(c if c.isalnum() or c in "._-/" else "_" for c in cell)
    return safe.replace("/", "__").lstrip(".") + ".jsonl"
