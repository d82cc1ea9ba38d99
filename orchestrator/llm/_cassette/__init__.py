"""Cassettes: a sweep's exchanges with a provider recorded per cell and replayed without
it (README "A local model"). `_format`: a cassette's lines and how a request is matched;
`_deck`: the loopback server that records or replays. `cassette_cell` names the cell
whose requests the harness sends (the gateway names its account's)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import NamedTuple

from ._deck import CassetteDeck as CassetteDeck
from ._deck import Mode as Mode
from ._deck import load_cassettes as load_cassettes
from ._format import CELL_HEADER as CELL_HEADER
from ._format import Exchange as Exchange
from ._format import cassette_name as cassette_name
from ._format import conversation_of as conversation_of
from ._format import read_cassette as read_cassette

_CELL: ContextVar[str] = ContextVar("pwb_cassette_cell", default="")


class Cassettes(NamedTuple):
    """A sweep's cassettes: `record` into `directory`, or `replay` from it."""

    mode: Mode
    directory: Path


@contextmanager
def cassette_cell(cell: str) -> Iterator[None]:
    """Requests sent inside name `cell` to a cassette deck."""
    token = _CELL.set(cell)
    try:
        yield
    finally:
        _CELL.reset(token)


def current_cell() -> str:
    return _CELL.get()


__all__ = [
    "CELL_HEADER",
    "CassetteDeck",
    "Cassettes",
    "Exchange",
    "Mode",
    "cassette_cell",
    "cassette_name",
    "conversation_of",
    "current_cell",
    "load_cassettes",
    "read_cassette",
]
