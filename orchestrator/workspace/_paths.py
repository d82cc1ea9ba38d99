"""The one path resolver every workspace tool goes through (blocking; run in a thread).

The work tree is hostile data: code in the sandbox can replace any folder or file in it
by a link at any moment. So a path is never handed to the OS whole. It is checked as a
string (relative, no `..`, no `.git` segment at any depth), then walked one component at
a time from a descriptor of the workspace root with `O_NOFOLLOW`, each open relative to
its parent's descriptor (`dir_fd`). A link anywhere is refused, not followed; only regular
files are read or written, and a write never goes through a hard link.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import stat
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from ._errors import PathRefused, WorkspaceError

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
# No O_TRUNC: the file is checked (regular, one link) before anything is cut.
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_EDIT_FLAGS = os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def is_git_name(name: str) -> bool:
    return name.lower() == ".git"


def split(path: str) -> tuple[str, ...]:
    """The checked components of a solver path; `()` is the workspace root."""
    if not path or path.strip() != path or "\0" in path:
        raise PathRefused(f"refused {path!r}: empty path, NUL or surrounding whitespace")
    if path.startswith("/"):
        raise PathRefused(f"refused {path!r}: absolute paths are not allowed")
    parts = tuple(p for p in path.split("/") if p not in ("", "."))
    if ".." in parts:
        raise PathRefused(f"refused {path!r}: '..' is not allowed")
    if any(is_git_name(p) for p in parts):
        raise PathRefused(f"refused {path!r}: .git is not part of the workspace")
    return parts


@lru_cache(maxsize=256)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    """Translate a path glob (`*` within a segment, `**` across segments) to a regex."""
    out = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def path_allowed(rel: str, allowed: Iterable[str]) -> bool:
    return any(_glob_regex(p).match(rel) for p in allowed)


def _refuse_component(path: str, parts: tuple[str, ...], i: int, dfd: int) -> WorkspaceError:
    """Why component `i` could not be opened as a folder (looked at without following)."""
    where = "/".join(parts[: i + 1])
    try:
        st = os.stat(parts[i], dir_fd=dfd, follow_symlinks=False)
    except FileNotFoundError:
        return WorkspaceError(f"no such file or folder: {where!r}")
    except OSError as exc:
        return WorkspaceError(f"cannot open {where!r}: {exc.strerror}")
    if stat.S_ISLNK(st.st_mode):
        return PathRefused(f"refused {path!r}: {where!r} is a link; links are not followed")
    return WorkspaceError(f"refused {path!r}: {where!r} is not a folder")


@contextmanager
def open_dir(root: Path, path: str, parts: tuple[str, ...], *, create: bool) -> Iterator[int]:
    """A descriptor of the folder `parts` (created when `create`), no link followed."""
    fd = os.open(root, DIR_FLAGS)
    try:
        for i, name in enumerate(parts):
            try:
                nfd = os.open(name, DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise WorkspaceError(f"no such folder: {'/'.join(parts[: i + 1])!r}") from None
                try:
                    os.mkdir(name, 0o755, dir_fd=fd)
                except FileExistsError:
                    pass
                try:
                    nfd = os.open(name, DIR_FLAGS, dir_fd=fd)
                except OSError:
                    raise _refuse_component(path, parts, i, fd) from None
            except OSError:
                raise _refuse_component(path, parts, i, fd) from None
            os.close(fd)
            fd = nfd
        yield fd
    finally:
        os.close(fd)


def _open_leaf(path: str, parts: tuple[str, ...], dfd: int, flags: int, *, write: bool) -> int:
    """Open the last component: a regular file (with one link when writing), never a link."""
    name = parts[-1]
    try:
        fd = os.open(name, flags, 0o644, dir_fd=dfd)
    except FileNotFoundError:
        raise WorkspaceError(f"no such file: {path!r}") from None
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK):
            raise PathRefused(f"refused {path!r}: it is a link; links are not followed") from None
        if exc.errno in (errno.ENXIO, errno.ENODEV, errno.ETXTBSY):
            raise PathRefused(f"refused {path!r}: it is not a regular file") from None
        if exc.errno == errno.EISDIR:
            raise WorkspaceError(f"{path!r} is a folder, not a file") from None
        raise WorkspaceError(f"cannot open {path!r}: {exc.strerror}") from None
    st = os.fstat(fd)
    why = ""
    if not stat.S_ISREG(st.st_mode):
        why = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file"
    elif write and st.st_nlink != 1:
        why = "a file with several hard links"
    if why:
        os.close(fd)
        raise PathRefused(f"refused {path!r}: it is {why}")
    return fd


def read_bytes(fd: int, limit: int) -> bytes:
    chunks: list[bytes] = []
    left = limit
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _write_all(fd: int, data: bytes) -> None:
    os.ftruncate(fd, 0)
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _open_file(root: Path, path: str, flags: int, *, create: bool, write: bool) -> int:
    """The file at `path`, opened through the resolver (`open_dir`, `_open_leaf`)."""
    parts = split(path)
    if not parts:
        raise WorkspaceError(f"{path!r} is a folder, not a file")
    with open_dir(root, path, parts[:-1], create=create) as dfd:
        return _open_leaf(path, parts, dfd, flags, write=write)


def read_file(root: Path, path: str, limit: int) -> bytes:
    fd = _open_file(root, path, _READ_FLAGS, create=False, write=False)
    try:
        return read_bytes(fd, limit)
    finally:
        os.close(fd)


def write_file(root: Path, path: str, data: bytes) -> None:
    fd = _open_file(root, path, _WRITE_FLAGS, create=True, write=True)
    try:
        _write_all(fd, data)
    finally:
        os.close(fd)


def edit_file(root: Path, path: str, search: str, replace: str, limit: int) -> None:
    fd = _open_file(root, path, _EDIT_FLAGS, create=False, write=True)
    try:
        if os.fstat(fd).st_size > limit:
            raise WorkspaceError(f"edit of {path!r} refused: file is over {limit} bytes")
        text = read_bytes(fd, limit).decode("utf-8")
        n = text.count(search) if search else 0
        if n != 1:
            what = "not found" if n == 0 else f"found {n} times; include more context"
            raise WorkspaceError(f"edit of {path!r} refused: search text {what}")
        os.lseek(fd, 0, os.SEEK_SET)
        _write_all(fd, text.replace(search, replace, 1).encode("utf-8"))
    except UnicodeDecodeError:
        raise WorkspaceError(f"edit of {path!r} refused: not UTF-8 text") from None
    finally:
        os.close(fd)


def replace_file(root: Path, name: str, data: bytes) -> None:
    """Harness-side: write a top-level file, first removing whatever entry has its name
    (a link itself, a folder with everything in it, without following links)."""
    fd = os.open(root, DIR_FLAGS)
    try:
        try:
            st = os.stat(name, dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            pass
        else:
            if stat.S_ISDIR(st.st_mode):
                shutil.rmtree(name, dir_fd=fd)
            elif not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
                os.unlink(name, dir_fd=fd)
    finally:
        os.close(fd)
    write_file(root, name, data)


def delete_file(root: Path, path: str) -> None:
    """Unlink one file or link (a link itself, never its target)."""
    parts = split(path)
    if not parts:
        raise WorkspaceError(f"no such file: {path!r}")
    with open_dir(root, path, parts[:-1], create=False) as dfd:
        try:
            st = os.stat(parts[-1], dir_fd=dfd, follow_symlinks=False)
        except FileNotFoundError:
            raise WorkspaceError(f"no such file: {path!r}") from None
        if not (stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode)):
            raise WorkspaceError(f"no such file: {path!r}")
        os.unlink(parts[-1], dir_fd=dfd)
