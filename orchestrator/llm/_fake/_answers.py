"""The fake provider's answers: the scripted turn (`script`) in each API's shape, with
the real APIs' 400s for the request shapes they reject, streamed when asked, and the
faults (`_faults`) in place of the answer they replace."""

from __future__ import annotations

import json
from typing import Any

import msgspec

from ._faults import Fault, fault_turn
from ._reference import ReferenceBook
from ._responses import problem_responses, reply_responses, stream_responses, view_responses
from ._shell import shell_reply, shell_tool
from ._stream import stream_anthropic, stream_openai
from ._text import SIDE_REPLY, asks_whole_files, whole_files_reply
from ._wire import (
    Call,
    Conversation,
    ScriptedTurn,
    error_anthropic,
    error_openai,
    problem_anthropic,
    problem_openai,
    reply_anthropic,
    reply_openai,
    view_anthropic,
    view_openai,
)


class Answer(msgspec.Struct, frozen=True, kw_only=True):
    status: int
    body: bytes
    headers: dict[str, str] = {}
    delay_s: float = 0.0
    events: tuple[bytes, ...] = ()  # server-sent events instead of `body`


def json_answer(status: int, obj: Any, **headers: str) -> Answer:
    return Answer(status=status, body=json.dumps(obj).encode(), headers=headers)


def error(anthropic: bool, status: int, message: str, n: int, **kw: Any) -> Any:
    """An error body in the API's shape (`n`: the request's number, for its id)."""
    return (
        error_anthropic(status, message, n=n, **kw)
        if anthropic
        else error_openai(status, message, **kw)
    )


def _early_fault(anthropic: bool, fault: Fault | None, n: int) -> Answer | None:
    """A fault answered before the request's body is read."""
    kind = fault.kind if fault is not None else None
    if fault is not None and kind == "replay":
        return Answer(status=fault.status, body=fault.body.encode(), headers=fault.headers)
    if fault is not None and kind == "status":
        extra = {"Retry-After": fault.retry_after} if fault.retry_after else {}
        msg = fault.message or f"injected HTTP {fault.status}"
        err = error(anthropic, fault.status, msg, n)
        return json_answer(fault.status, err, **extra, **fault.headers)
    if kind == "context_too_long":
        if anthropic:
            msg = "prompt is too long: 250000 tokens > 200000 maximum"
            return json_answer(400, error_anthropic(400, msg, n=n))
        msg = (
            "This model's maximum context length is 128000 tokens. However, your messages "
            "resulted in 250000 tokens. Please reduce the length of the messages."
        )
        return json_answer(400, error_openai(400, msg, code="context_length_exceeded"))
    if kind == "no_credit":
        if anthropic:
            msg = "Your credit balance is too low to access the Anthropic API."
            return json_answer(402, error_anthropic(402, msg, n=n))
        msg = "You exceeded your current quota, please check your plan and billing details."
        err = error_openai(429, msg, type_="insufficient_quota", code="insufficient_quota")
        return json_answer(429, err)
    return None


def _problem(anthropic: bool, body: dict[str, Any], n: int) -> Answer | None:
    """The API's 400 for a request shape it rejects."""
    if anthropic and (problem := problem_anthropic(body)):
        return json_answer(400, error_anthropic(400, problem, n=n))
    if not anthropic and (bad := problem_openai(body)):
        message, param, code = bad
        err = error_openai(400, message, code=code)
        err["error"]["param"] = param
        return json_answer(400, err)
    return None


def answer_chat(
    anthropic: bool, body: dict[str, Any], n: int, fault: Fault | None, book: ReferenceBook
) -> Answer:
    """Chat completions (OpenAI) or messages (Anthropic)."""
    kind = fault.kind if fault is not None else None
    if (early := _early_fault(anthropic, fault, n)) is not None:
        return early
    if (problem := _problem(anthropic, body, n)) is not None:
        return problem
    if fault is not None and kind == "error_in_200":
        return json_answer(200, error(anthropic, 500, fault.message or "upstream failed", n))
    conv = view_anthropic(body) if anthropic else view_openai(body)
    turn = fault_turn(fault) or script(book, conv)
    data = (reply_anthropic if anthropic else reply_openai)(body, turn, n)
    if kind == "no_usage":
        data.pop("usage")
    if kind == "context_stop" and anthropic:
        data["stop_reason"] = "model_context_window_exceeded"
    if body.get("stream") is True:
        return _stream(anthropic, body, data, n, fault)
    answer = json_answer(200, data)
    if fault is not None and kind == "truncated_json":
        answer = msgspec.structs.replace(answer, body=answer.body[: len(answer.body) // 2])
    if fault is not None and kind == "delay":
        answer = msgspec.structs.replace(answer, delay_s=fault.delay_s)
    return answer


def answer_responses(
    body: dict[str, Any], n: int, fault: Fault | None, book: ReferenceBook
) -> Answer:
    """OpenAI's Responses API."""
    kind = fault.kind if fault is not None else None
    if (early := _early_fault(False, fault, n)) is not None:
        return early  # answered before the body is read
    if bad := problem_responses(body):
        err = error_openai(400, bad[0], code="missing_required_parameter")
        err["error"]["param"] = bad[1]
        return json_answer(400, err)
    if fault is not None and kind == "error_in_200":
        return json_answer(200, error_openai(500, fault.message or "upstream failed"))
    turn = fault_turn(fault) or script(book, view_responses(body))
    data = reply_responses(body, turn, n)
    if kind == "no_usage":
        data["usage"] = None
    delay = fault.delay_s if fault is not None and kind == "delay" else 0.0
    if body.get("stream") is True:
        err = None
        if fault is not None and kind == "stream_error":
            err = error_openai(500, fault.message or "Overloaded", code="server_error")
        events = tuple(stream_responses(data, error=err))
        if fault is not None and kind == "stream_cut":
            events = events[: len(events) // 2]
        return Answer(status=200, body=b"", events=events, delay_s=delay)
    answer = json_answer(200, data)
    if kind == "truncated_json":
        answer = msgspec.structs.replace(answer, body=answer.body[: len(answer.body) // 2])
    return msgspec.structs.replace(answer, delay_s=delay)


def _stream(
    anthropic: bool, body: dict[str, Any], data: Any, n: int, fault: Fault | None
) -> Answer:
    err = None
    if fault is not None and fault.kind == "stream_error":
        err = error(anthropic, 529, fault.message or "Overloaded", n)
    if anthropic:
        events = stream_anthropic(data, error=err)
    else:
        options = body.get("stream_options")
        usage = isinstance(options, dict) and options.get("include_usage") is True
        events = stream_openai(data, include_usage=usage)
        if err is not None:  # OpenAI: an error object as a data line, then the end
            events = [*events[:2], f"data: {json.dumps(err)}\n\n".encode()]
    if fault is not None and fault.kind == "stream_cut":  # the provider died mid-answer
        events = events[: len(events) // 2]
    delay = fault.delay_s if fault is not None and fault.kind == "delay" else 0.0
    return Answer(status=200, body=b"", events=tuple(events), delay_s=delay)


def script(book: ReferenceBook, conv: Conversation) -> ScriptedTurn:
    """The turn the fake plays: the reference of the unit the conversation is on."""
    if shell := shell_tool(conv.schemas):  # a CLI agent that works through a shell
        schema = conv.schemas[shell]
        return shell_reply(book, conv.user_texts, shell, schema, conv.calls_made)
    if not conv.tools:
        if asks_whole_files(conv):  # a CLI agent that edits by text (aider): _text
            return whole_files_reply(book, conv.user_texts)
        # An agent's side request (a session title, a summary, a commit message): a
        # short answer, as a model gives, so metered spend is what a demo would cost.
        return ScriptedTurn(text=SIDE_REPLY, calls=())
    if conv.new_turn and "view_page" in conv.tools:
        return ScriptedTurn(text="Looking at the page first.", calls=(Call("view_page", {}),))
    if not conv.new_turn and "view_page" not in conv.last_calls:
        return ScriptedTurn(
            text="Finished.", calls=(Call("done", {"summary": "reference applied"}),)
        )
    found = book.match(conv.user_texts)
    if found is None:
        return ScriptedTurn(
            text="Nothing I recognise.", calls=(Call("done", {"summary": "no change"}),)
        )
    files = book.changed_files(*found)
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
