"""A bounded byte buffer keeping the last N bytes of a process's output."""

from __future__ import annotations


class Tail:
    """Keeps only the newest `limit` bytes: enough for an error message, never unbounded."""

    def __init__(self, limit: int) -> None:
        self._limit = max(limit, 1)
        self._buf = bytearray()

    def feed(self, data: bytes) -> None:
        self._buf += data
        if len(self._buf) > 2 * self._limit:  # trim in batches, not on every chunk
            del self._buf[: len(self._buf) - self._limit]

    def text(self) -> str:
        return bytes(self._buf[-self._limit :]).decode("utf-8", "replace")

    def clear(self) -> None:
        self._buf.clear()
