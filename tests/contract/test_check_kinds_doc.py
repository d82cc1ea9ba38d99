"""AUTHORING.md's "Check kinds" table names every assertion kind of the contract and every
field of each, so an author never has to read `contract/_asserts.py` to write a check."""

from __future__ import annotations

import re
import typing
from pathlib import Path

import msgspec

from orchestrator.contract import Assertion

AUTHORING = Path(__file__).resolve().parents[2] / "tasks" / "AUTHORING.md"
HEADING = "## Check kinds"


def kinds_in_code() -> dict[str, set[str]]:
    """Each kind's tag and its fields' names (as task.toml spells them)."""
    out = {}
    for cls in typing.get_args(Assertion):
        info = msgspec.inspect.type_info(cls)
        assert isinstance(info, msgspec.inspect.StructType)
        out[str(info.tag)] = {f.encode_name for f in info.fields}
    return out


def table_rows(text: str) -> dict[str, str]:
    """`kind` -> its row's fields cell, from the section under HEADING."""
    section = text.split(HEADING, 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        m = re.fullmatch(r"`([a-z_]+)`", cells[0]) if len(cells) >= 3 else None
        if m:
            rows[m.group(1)] = cells[1]
    return rows


def problems(text: str, kinds: dict[str, set[str]]) -> list[str]:
    rows = table_rows(text)
    out = [f"kind {k}: no row" for k in sorted(kinds) if k not in rows]
    out += [f"row {k}: no such kind" for k in sorted(rows) if k not in kinds]
    for kind, fields in sorted(kinds.items()):
        named = set(re.findall(r"`([a-z_]+)`", rows.get(kind, "")))
        out += [f"kind {kind}: field {f} not in its row" for f in sorted(fields - named)]
    return out


def test_every_kind_and_field_is_in_the_table() -> None:
    assert problems(AUTHORING.read_text(), kinds_in_code()) == []


def test_a_planted_gap_is_caught() -> None:
    text = AUTHORING.read_text()
    kinds = kinds_in_code()
    dropped = re.sub(r"\n\| `value` \|[^\n]*", "", text)
    assert "kind value: no row" in problems(dropped, kinds)
    assert "kind value: field checked not in its row" in problems(
        text.replace("`regex`, `checked`", "`regex`"), kinds
    )
    assert "row value: no such kind" in problems(
        text, {k: v for k, v in kinds.items() if k != "value"}
    )
