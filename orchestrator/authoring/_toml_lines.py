"""task.toml edited as text (`twin`): its blocks, a key set in one, keeping the author's
comments and order, which a TOML library would lose."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable

_HEADER = re.compile(r"^\s*\[\[?\s*([A-Za-z0-9_.\-]+)\s*\]\]?\s*(#.*)?$")


def _blocks(text: str) -> list[tuple[str, list[str]]]:
    """The text cut at its table headers: (table name, lines), the top level first ("");
    the comments and blank lines just above a header go with the header's block."""
    blocks: list[tuple[str, list[str]]] = [("", [])]
    quote = ""
    for line in text.splitlines(keepends=True):
        m = _HEADER.match(line) if not quote else None
        if m:
            lines = blocks[-1][1]
            cut = len(lines)
            while cut and (not lines[cut - 1].strip() or lines[cut - 1].lstrip().startswith("#")):
                cut -= 1
            blocks[-1] = (blocks[-1][0], lines[:cut])
            blocks.append((m[1], [*lines[cut:], line]))
            continue
        blocks[-1][1].append(line)
        for q in re.findall(r'"""|\'\'\'', line):
            quote = "" if quote == q else (quote or q)
    return blocks


def _value_end(lines: list[str], i: int) -> int:
    """The index after the last line of the value of the key on line `i`."""
    rest = lines[i].split("=", 1)[1].strip()
    for q in ('"""', "'''"):
        if rest.startswith(q):
            if rest.count(q) >= 2:
                return i + 1
            j = i + 1
            while j < len(lines) and q not in lines[j]:
                j += 1
            return j + 1
    if rest.startswith("["):
        depth, j = 0, i
        while j < len(lines):
            text = lines[j].split("=", 1)[1] if j == i else lines[j]
            depth += text.count("[") - text.count("]")
            j += 1
            if depth <= 0:
                return j
        return j
    return i + 1


def _set_key(lines: list[str], key: str, value: str, after: str | None = None) -> list[str]:
    """`lines` with the key's value replaced (its whole value, over several lines too), or
    the key inserted after the key `after` (else first)."""
    pattern = re.compile(rf"^{re.escape(key)}\s*=")
    new = f"{key} = {value}\n"
    for i, line in enumerate(lines):
        if pattern.match(line):
            return [*lines[:i], new, *lines[_value_end(lines, i) :]]
    at = 0
    if after is not None:
        anchor = re.compile(rf"^{re.escape(after)}\s*=")
        at = next((_value_end(lines, i) for i, x in enumerate(lines) if anchor.match(x)), 0)
    return [*lines[:at], new, *lines[at:]]


def _set_request(lines: list[str], request: str) -> list[str]:
    """The unit's request set to `request`: a multi-line string keeps the source's lines
    below the TODO (its first line), anything else is replaced as a whole."""
    opener = re.compile(r'^request\s*=\s*"""\s*$')
    at = next((i for i, line in enumerate(lines) if opener.match(line)), None)
    if at is None:
        return _set_key(lines, "request", _string(request))
    todo = request.split("\n", 1)[0]
    return [*lines[: at + 1], todo + "\n", "\n", *lines[at + 1 :]]


def _string(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def _array(ids: Iterable[str]) -> str:
    return "[\n" + "".join(f"  {_string(x)},\n" for x in ids) + "]"


def _rewrite(text: str, edit: Callable[[list[tuple[str, list[str]]]], None]) -> str:
    blocks = _blocks(text)
    edit(blocks)
    return "".join(line for _, lines in blocks for line in lines)
