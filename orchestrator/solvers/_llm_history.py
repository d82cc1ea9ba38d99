"""The LLM agent's conversation, kept as whole turns so truncation never splits a tool call
from its result. Images are kept only in the current turn: old screenshots are stale and
the most expensive part of a request.
"""

from __future__ import annotations

import msgspec

from ..llm import Message, ToolResultMsg, UserMsg

_OMITTED = " [screenshots omitted from history]"


def _without_images(m: Message) -> Message:
    if isinstance(m, UserMsg) and m.images:
        return UserMsg(text=m.text + _OMITTED)
    if isinstance(m, ToolResultMsg) and m.images:
        return msgspec.structs.replace(m, images=(), content=m.content + _OMITTED)
    return m


class History:
    def __init__(self) -> None:
        self._turns: list[list[Message]] = []

    @property
    def turns(self) -> int:
        return len(self._turns)

    def start_turn(self, first: UserMsg) -> None:
        self._turns.append([first])

    def append(self, message: Message) -> None:
        self._turns[-1].append(message)

    def messages(self, keep_turns: int | None) -> tuple[Message, ...]:
        kept = self._turns if keep_turns is None else self._turns[-keep_turns:]
        old = [_without_images(m) for turn in kept[:-1] for m in turn]
        return (*old, *kept[-1]) if kept else ()
