"""Check a recorded patch before anything applies it (blocking, pure: bytes in, refusal out).

A trajectory's patches are the solver's writing, and a submission's come from anyone: each
is read as data first. Every path it names (both sides of the `diff --git` header, the
`---`/`+++` lines, renames and copies; C-quoted names decoded) goes through the workspace's
own path checks: relative, no `..`, no `.git` at any depth. Refused always: a grader file
of the task package (`task.toml`, `reference/`, `negatives/`, `evidence/`), a submodule, a
binary hunk that inflates past `MAX_FILE_BYTES`, a patch past `MAX_PATCH_BYTES`. Refused
when `strict` (a submission): a link, a path outside the task's allowed paths. A recorded
run's own trajectory (not strict) keeps what the harness saw its solver do, scope
violations and links included: those are graded, not refused.

`git apply` is a second wall: it refuses paths outside the tree and writes beyond a link.
"""

from __future__ import annotations

import codecs
import re

from ..workspace import HASH_MAX_BYTES, PathRefused, path_allowed, split_path

MAX_PATCH_BYTES = 8 << 20
MAX_FILE_BYTES = HASH_MAX_BYTES
GRADER_NAMES = frozenset({"task.toml", "reference", "negatives", "evidence"})
_MODE = re.compile(rb"^(?:new file mode|new mode|old mode|deleted file mode) (\d+)$")
_SIZE = re.compile(rb"^(?:literal|delta) (\d+)$")
_PATHS = re.compile(rb"^(?:---|\+\+\+) (.*)$")
_MOVES = re.compile(rb"^(?:rename|copy) (?:from|to) (.*)$")


class PatchRefused(Exception):
    """A recorded patch that may not be applied (one line: which path, and why)."""


def _unquote(raw: bytes) -> str:
    if raw.startswith(b'"'):
        if not raw.endswith(b'"') or len(raw) < 2:
            raise PatchRefused(f"malformed quoted path {raw[:80]!r}")
        raw = codecs.escape_decode(raw[1:-1])[0]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PatchRefused(f"path {raw[:80]!r} is not UTF-8") from exc


def _side(raw: bytes) -> str | None:
    """A `---`/`+++` name without its `a/`/`b/` prefix; None for /dev/null."""
    name = raw.split(b"\t", 1)[0] if not raw.startswith(b'"') else raw
    if name == b"/dev/null":
        return None
    path = _unquote(name)
    if path[:2] not in ("a/", "b/"):
        raise PatchRefused(f"path {path!r} has no a/ or b/ prefix")
    return path[2:]


def _header(rest: bytes) -> list[str]:
    """The two names of `diff --git a/P b/Q` (quoted or not)."""
    if rest.startswith(b'"'):
        end = rest.find(b'" ', 1)
        if end < 0:
            raise PatchRefused(f"malformed diff header {rest[:80]!r}")
        names = [rest[: end + 1], rest[end + 2 :]]
    else:
        n = (len(rest) - 5) // 2  # "a/P b/P" for one unquoted path P
        names = [rest[: n + 2], rest[n + 3 :]] if n > 0 and rest[n + 2 : n + 3] == b" " else []
        if not names or names[0][2:] != names[1][2:]:
            raise PatchRefused(f"cannot tell the paths of diff header {rest[:80]!r}")
    out = [_side(n) for n in names]
    return [p for p in out if p is not None]


def patch_paths(data: bytes) -> tuple[set[str], set[str]]:
    """(every path the patch touches, the paths it makes links or submodules)."""
    paths: set[str] = set()
    links: set[str] = set()
    current: list[str] = []
    for line in data.split(b"\n"):
        if line.startswith(b"diff --git "):
            current = _header(line[len(b"diff --git ") :])
            paths.update(current)
        elif m := _PATHS.match(line):
            side = _side(m.group(1))
            if side is not None:
                paths.add(side)
        elif m := _MOVES.match(line):
            paths.add(_unquote(m.group(1)))
        elif m := _MODE.match(line):
            mode = m.group(1)
            if mode == b"160000":
                raise PatchRefused(f"{', '.join(current)}: a submodule")
            if mode == b"120000":
                links.update(current)
        elif m := _SIZE.match(line):
            size = int(m.group(1))
            if size > MAX_FILE_BYTES:
                raise PatchRefused(
                    f"{', '.join(current)}: a file of {size} bytes (more than {MAX_FILE_BYTES})"
                )
    return paths, links


def check_patch(data: bytes, allowed: tuple[str, ...], *, strict: bool) -> None:
    """Raise `PatchRefused` if `data` may not be applied to a cell's workspace."""
    if len(data) > MAX_PATCH_BYTES:
        raise PatchRefused(f"a patch of {len(data)} bytes (more than {MAX_PATCH_BYTES})")
    if data and not data.startswith(b"diff --git "):
        raise PatchRefused("not a git patch (expected 'diff --git' first)")
    paths, links = patch_paths(data)
    for path in sorted(paths):
        try:
            parts = split_path(path)
        except PathRefused as exc:
            raise PatchRefused(str(exc)) from None
        if not parts:
            raise PatchRefused(f"refused {path!r}: not a file path")
        if parts[0] in GRADER_NAMES:
            raise PatchRefused(f"refused {path!r}: a grader file of the task package")
        if strict and not path_allowed("/".join(parts), allowed):
            raise PatchRefused(f"refused {path!r}: outside allowed paths ({', '.join(allowed)})")
    if strict and links:
        raise PatchRefused(f"refused {sorted(links)[0]!r}: a link; submissions hold files only")
