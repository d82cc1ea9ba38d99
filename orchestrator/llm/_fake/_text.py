"""The fake provider's answer to agents that edit by text instead of tool calls.

A request that offers no tools comes from a CLI agent such as aider, which applies the
files of a reply written in its "whole" edit format: each changed file's path on a line
of its own, then the file's complete new text in a fenced block. The fake answers with
the reference's files through the newest unit the conversation quotes (in the
full-spec arm every unit is quoted: the last one is the whole task). Files the
reference deletes cannot be expressed in this format and are left alone.

Only a request that asks for that format (aider's prompt names its "*file listing*"
format) gets the files; any other request without tools (an agent asking for a session
title, a summary, a commit message) gets `SIDE_REPLY`, a few tokens, as from a model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ._reference import ReferenceBook, _norm
from ._wire import Conversation, ScriptedTurn

_FENCE = "```"
SIDE_REPLY = "Reference task"  # the answer to a side request: a few tokens
_WHOLE_FORMAT = re.compile(r"file listing", re.I)


def asks_whole_files(conv: Conversation) -> bool:
    """The request asks for whole files in aider's "whole" edit format."""
    return any(_WHOLE_FORMAT.search(t) for t in (*conv.system_texts, *conv.user_texts))


def latest_unit(book: ReferenceBook, user_texts: Sequence[str]) -> tuple[int, int] | None:
    said = _norm(" ".join(user_texts))
    found = [
        (ti, ui)
        for ti, task in enumerate(book.tasks)
        for ui, unit in enumerate(task.contract.units)
        if _norm(unit.request) in said
    ]
    return max(found, key=lambda f: f[1]) if found else None


def whole_files_reply(book: ReferenceBook, user_texts: Sequence[str]) -> ScriptedTurn:
    found = latest_unit(book, user_texts)
    if found is None:
        return ScriptedTurn(text="I do not recognise this task; no changes.", calls=())
    task = book.tasks[found[0]]
    unit = task.contract.units[found[1]]
    files = book.changed_files(task, unit.id)
    blocks = []
    for path, content in sorted(files.items()):
        if content is None or re.search(rf"^{_FENCE}", content, re.M):
            continue  # a deletion, or text the format cannot carry
        body = content if content.endswith("\n") else content + "\n"
        blocks.append(f"{path}\n{_FENCE}\n{body}{_FENCE}")
    intro = f"Implementing everything through {unit.id}."
    return ScriptedTurn(text="\n\n".join([intro, *blocks]) + "\n", calls=())
