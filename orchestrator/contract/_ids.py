"""Names that come from task data: the safe-id rule, and how a hostile value is shown.

Every id of a task package (the task's, its states', checks', units', negatives', the
ones that refer to them, its stack) becomes part of a file name somewhere (a reference
patch, an evidence render, a cell directory, an image tag), so each must be one plain
path component: `SAFE_ID`, checked by the loader before any path is built from it. A
value that breaks the rule is shown by `shown`: its `repr` (control characters,
terminal escapes and NUL as `\\x..` escapes), cut to `SHOWN_MAX` characters.
"""

from __future__ import annotations

import re

SAFE_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
SAFE_ID_RULE = "a safe id (1-64 of a-z 0-9 _ -, starting with a letter or digit)"
SHOWN_MAX = 80
LINE_MAX = 2000


def is_safe_id(value: object) -> bool:
    return isinstance(value, str) and SAFE_ID.fullmatch(value) is not None


def shown(value: object) -> str:
    """`repr(value)`, at most `SHOWN_MAX` characters of it (and the size when cut)."""
    if isinstance(value, str) and len(value) > SHOWN_MAX:
        return f"{value[:SHOWN_MAX]!r}... ({len(value)} characters)"
    text = repr(value)
    return text if len(text) <= SHOWN_MAX * 2 else f"{text[: SHOWN_MAX * 2]}..."


def _escape(ch: str) -> str:
    code = ord(ch)
    if code < 0x80:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


_NOT_ASCII_TEXT = re.compile("[^\n\t\x20-\x7e]")


def _keep_printable(m: re.Match[str]) -> str:
    return m[0] if m[0].isprintable() else _escape(m[0])


def printable(text: str) -> str:
    """`text` with every non-printable character but newline and tab escaped (terminal
    escape sequences, carriage returns, NUL, bidi overrides): what a terminal shows is
    what was written. A JSON line stays JSON (its encoder escaped C0 already; other
    characters become `\\u....`)."""
    return _NOT_ASCII_TEXT.sub(_keep_printable, text)


def terminal_safe(text: str, *, limit: int = LINE_MAX) -> str:
    """`text` fit for one terminal line: every non-printable character (escape sequences,
    NUL, newlines, bidi overrides) written as a `\\x..`/`\\u....` escape, and cut at
    `limit` characters."""
    out = "".join(ch if ch.isprintable() else _escape(ch) for ch in text[: limit + 1])
    return out if len(text) <= limit else f"{out[:limit]}... ({len(text)} characters)"
