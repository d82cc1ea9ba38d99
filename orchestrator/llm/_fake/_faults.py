"""The fake provider's faults: what each replaces in an answer, and the queue that hands
them out in order (a fault for a number of requests, or a storm for a number of seconds)."""

from __future__ import annotations

import time
from typing import Any, Literal

import msgspec

from ._wire import Call, ScriptedTurn

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


class FaultQueue:
    """The faults still to come, consumed in order (the caller holds the provider's lock)."""

    def __init__(self) -> None:
        # [fault, requests left (-1: unbounded), storm end (monotonic; None: not started)]
        self._slots: list[list[Any]] = []

    def add(self, *faults: Fault) -> None:
        self._slots.extend([f, f.times or -1, None] for f in faults)

    def clear(self) -> None:
        self._slots.clear()

    def next(self) -> Fault | None:
        now = time.monotonic()
        for slot in self._slots:
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


def fault_turn(fault: Fault | None) -> ScriptedTurn | None:
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
