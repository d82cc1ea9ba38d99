"""The LLM agent's conversation, kept as whole turns so truncation never splits a tool call
from its result. Images are kept only in the current turn: old screenshots are stale and
the most expensive part of a request.
"""

from __future__ import annotations

import msgspec

from ..llm import Message, ToolResultMsg, UserMsg

_OMITTED = " [screenshots omitted from history]"
_COMPACTED = "[output omitted: the request exceeded the model's context window]"


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

    def current(self) -> tuple[Message, ...]:
        """The messages of the current turn, as they were appended."""
        return tuple(self._turns[-1]) if self._turns else ()

    def messages(self, keep_turns: int | None) -> tuple[Message, ...]:
        kept = self._turns if keep_turns is None else self._turns[-keep_turns:]
        old = [_without_images(m) for turn in kept[:-1] for m in turn]
        return (*old, *kept[-1]) if kept else ()

    def compact_current(self) -> bool:
        """Blank the tool results of the current turn but its last step; True if any changed.

        The last resort when the current turn alone is too long: calls keep their results
        (the API needs the pairs), the model is told the output was dropped.
        """
        turn = self._turns[-1] if self._turns else []
        last_reply = max(
            (i for i, m in enumerate(turn) if not isinstance(m, (UserMsg, ToolResultMsg))),
            default=-1,
        )
        changed = False
        for i, m in enumerate(turn[:last_reply]):
            if isinstance(m, ToolResultMsg) and (m.content != _COMPACTED or m.images):
                turn[i] = msgspec.structs.replace(m, content=_COMPACTED, images=())
                changed = True
        return changed
