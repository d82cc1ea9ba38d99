"""Walking the work tree for `list_files`, `search` and the disk check (blocking).

The walk uses folder descriptors and never follows a link: a link (to a file or a
folder) is skipped exactly as `read_file` refuses it, so neither tool reaches outside.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path

import msgspec

from ._paths import DIR_FLAGS, is_git_name, open_dir, read_bytes, split

SKIP_DIRS = frozenset({"node_modules"})
MAX_DEPTH = 128  # folders deeper than this are not listed or searched
MAX_LISTED = 20_000
SEARCH_MAX_FILE_BYTES = 1 << 20  # larger files are skipped by `search`
SEARCH_MAX_TOTAL_BYTES = 32 << 20  # a search stops after reading this much
SEARCH_MAX_LINE = 4000  # characters of a line the pattern is matched against
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


class SearchHit(msgspec.Struct, frozen=True, kw_only=True):
    path: str
    line: int
    text: str


def _regular_files(
    dfd: int, prefix: str, depth: int = 0
) -> Iterator[tuple[str, int, str, os.stat_result]]:
    """(relative path, folder fd, name, lstat) of every regular file under `dfd`, sorted."""
    with os.scandir(dfd) as it:
        entries = sorted(it, key=lambda e: e.name)
    for entry in entries:
        if is_git_name(entry.name):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        rel = prefix + entry.name
        if stat.S_ISREG(st.st_mode):
            yield rel, dfd, entry.name, st
        elif stat.S_ISDIR(st.st_mode) and entry.name not in SKIP_DIRS and depth < MAX_DEPTH:
            try:
                sub = os.open(entry.name, DIR_FLAGS, dir_fd=dfd)
            except OSError:
                continue  # replaced by a link meanwhile: not followed
            try:
                yield from _regular_files(sub, rel + "/", depth + 1)
            finally:
                os.close(sub)


def _walk(root: Path, under: str) -> Iterator[tuple[str, int, str, os.stat_result]]:
    parts = split(under) if under else ()
    with open_dir(root, under, parts, create=False) as dfd:
        yield from _regular_files(dfd, "".join(p + "/" for p in parts))


def list_files(root: Path, under: str) -> list[str]:
    out: list[str] = []
    for rel, *_ in _walk(root, under):
        out.append(rel)
        if len(out) >= MAX_LISTED:
            break
    return out


def search(root: Path, rx: re.Pattern[str], under: str, max_hits: int) -> list[SearchHit]:
    hits: list[SearchHit] = []
    budget = SEARCH_MAX_TOTAL_BYTES
    for rel, dfd, name, st in _walk(root, under):
        if st.st_size > SEARCH_MAX_FILE_BYTES:
            continue
        try:
            fd = os.open(name, _FILE_FLAGS, dir_fd=dfd)
        except OSError:
            continue  # replaced by a link meanwhile: not followed
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                continue
            data = read_bytes(fd, SEARCH_MAX_FILE_BYTES)
        finally:
            os.close(fd)
        budget -= len(data)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            if rx.search(line[:SEARCH_MAX_LINE]):
                hits.append(SearchHit(path=rel, line=n, text=line[:300]))
                if len(hits) >= max_hits:
                    return hits
        if budget <= 0:
            break
    return hits


def disk_usage(root: Path, stop_above: int) -> int:
    """Bytes of disk the work tree uses (every entry, links not followed). Counting stops
    once past `stop_above`; a tree deeper than `MAX_DEPTH` counts as past it."""
    total = 0

    def visit(dfd: int, depth: int) -> None:
        nonlocal total
        if depth > MAX_DEPTH:
            total = max(total, stop_above + 1)
            return
        with os.scandir(dfd) as it:
            entries = list(it)
        for entry in entries:
            if total > stop_above:
                return
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            total += max(st.st_blocks * 512, 0)
            if stat.S_ISDIR(st.st_mode):
                try:
                    sub = os.open(entry.name, DIR_FLAGS, dir_fd=dfd)
                except OSError:
                    continue  # replaced by a link meanwhile: not followed
                try:
                    visit(sub, depth + 1)
                finally:
                    os.close(sub)

    fd = os.open(root, DIR_FLAGS)
    try:
        visit(fd, 0)
    finally:
        os.close(fd)
    return total
