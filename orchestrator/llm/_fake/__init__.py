"""The fake provider: a scripted LLM on loopback that plays a task's reference as tool
calls, speaking the OpenAI and Anthropic wire formats and rejecting what they reject
(`_server.py`). The answers are `_answers.py`'s, the faults `_faults.py`'s, the wire
shapes `_wire.py`'s and `_stream.py`'s."""

from ._faults import Fault as Fault
from ._reference import ReferenceBook as ReferenceBook
from ._server import FakeProvider as FakeProvider
from ._server import RecordedRequest as RecordedRequest
from ._text import SIDE_REPLY as SIDE_REPLY
from ._wire import problem_anthropic as problem_anthropic
from ._wire import problem_openai as problem_openai

__all__ = [
    "SIDE_REPLY",
    "FakeProvider",
    "Fault",
    "RecordedRequest",
    "ReferenceBook",
    "problem_anthropic",
    "problem_openai",
]
