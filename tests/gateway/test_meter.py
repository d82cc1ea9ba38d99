"""Usage as each API documents it, read from bodies and from streams cut at any byte."""

from __future__ import annotations

import json

import pytest

from orchestrator.gateway import StreamMeter, meter_body


def sse(*events: tuple[str, dict[str, object]]) -> bytes:
    out = b""
    for name, data in events:
        head = f"event: {name}\n" if name else ""
        out += f"{head}data: {json.dumps(data)}\r\n\r\n".encode()
    return out


ANTHROPIC = sse(
    (
        "message_start",
        {
            "type": "message_start",
            "message": {
                "usage": {
                    "input_tokens": 10,
                    "cache_read_input_tokens": 100,
                    "cache_creation_input_tokens": 5,
                    "output_tokens": 1,
                }
            },
        },
    ),
    ("content_block_delta", {"type": "content_block_delta", "delta": {"text": "hi"}}),
    ("message_delta", {"type": "message_delta", "usage": {"output_tokens": 42}}),
    ("message_stop", {"type": "message_stop"}),
)
RESPONSES = sse(
    ("response.output_text.delta", {"type": "response.output_text.delta", "delta": "x"}),
    (
        "response.completed",
        {
            "type": "response.completed",
            "response": {
                "usage": {
                    "input_tokens": 30,
                    "input_tokens_details": {"cached_tokens": 20},
                    "output_tokens": 7,
                    "output_tokens_details": {"reasoning_tokens": 3},
                }
            },
        },
    ),
)
CHAT = (
    sse(
        ("", {"choices": [{"delta": {"content": "hi"}}], "usage": None}),
        (
            "",
            {
                "choices": [],
                "usage": {
                    "prompt_tokens": 12,
                    "completion_tokens": 3,
                    "prompt_tokens_details": {"cached_tokens": 4},
                },
            },
        ),
    )
    + b"data: [DONE]\n\n"
)


@pytest.mark.parametrize("cut", [1, 7, 64])
@pytest.mark.parametrize(
    ("stream", "expected"),
    [
        (ANTHROPIC, (115, 42, 100, 5)),
        (RESPONSES, (30, 7, 20, 0)),
        (CHAT, (12, 3, 4, 0)),
    ],
)
def test_streams_are_metered_whatever_the_chunking(
    stream: bytes, expected: tuple[int, int, int, int], cut: int
) -> None:
    meter = StreamMeter()
    for i in range(0, len(stream), cut):
        meter.feed(stream[i : i + cut])
    m = meter.close()
    assert (m.input_tokens, m.output_tokens, m.cache_read_tokens, m.cache_write_tokens) == expected
    assert m.seen and meter.done and not m.error


def test_errors_inside_streams_and_200_bodies_are_seen() -> None:
    meter = StreamMeter()
    meter.feed(
        sse(
            (
                "error",
                {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
            )
        )
    )
    assert meter.close().error == "Overloaded"
    meter = StreamMeter()
    meter.feed(
        sse(
            (
                "response.failed",
                {"type": "response.failed", "response": {"error": {"message": "boom"}}},
            )
        )
    )
    assert meter.close().error == "boom"
    body = meter_body(json.dumps({"error": {"message": "upstream failed"}}).encode())
    assert body.error == "upstream failed" and not body.seen
    assert meter_body(b"{half").error


def test_a_stream_that_never_ends_is_not_done() -> None:
    meter = StreamMeter()
    meter.feed(CHAT[: CHAT.index(b"data: [DONE]")])
    assert not meter.done and meter.close().seen
