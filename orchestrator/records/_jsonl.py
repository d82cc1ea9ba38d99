"""The one JSONL reader (manifest rows and cell events), with one policy for bad lines.

Writers append whole lines (one `write` each), so the only expected damage is a *torn*
last line: the process died mid-write and the line has no terminating newline. It is
dropped and counted. Any other line that does not decode as the expected type (a
corrupted disk, a hand edit, another schema) is skipped and *reported* by line number
and reason: resume re-runs such a cell, and the report prints the count in its header,
so resume and report always agree on which rows exist.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Generic, TypeVar

import msgspec

T = TypeVar("T")


class BadLine(msgspec.Struct, frozen=True, kw_only=True):
    line: int  # 1-based
    reason: str


class JsonlRead(msgspec.Struct, Generic[T], frozen=True, kw_only=True):
    items: list[T]
    torn: bool = False  # a last line without its newline was dropped
    bad: tuple[BadLine, ...] = ()


def read_jsonl(path: Path, type_: Any) -> JsonlRead[Any]:
    """Every decodable line of `path` as `type_`, in file order; a missing file is empty."""
    if not path.is_file():
        return JsonlRead(items=[])
    return parse_jsonl(path.read_bytes(), type_)


def parse_jsonl(data: bytes, type_: Any) -> JsonlRead[Any]:
    dec = msgspec.json.Decoder(type_)
    lines = data.split(b"\n")
    torn = bool(lines[-1].strip())  # text after the last newline: a killed writer
    items: list[Any] = []
    bad: list[BadLine] = []
    for i, line in enumerate(lines[:-1], start=1):
        if not line.strip():
            continue
        try:
            items.append(dec.decode(line))
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            bad.append(BadLine(line=i, reason=str(exc)[:200]))
    return JsonlRead(items=items, torn=torn, bad=tuple(bad))
