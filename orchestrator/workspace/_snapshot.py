"""A git tree of the work tree, written without running git on it (blocking).

`git add -A` would read the hostile work tree with git's own rules: `.gitignore` and
`.gitattributes` in it (a planted ignore rule hides a file from the diff), nested `.git`
folders (a broken one fails the command), filters. Instead the tree is walked here with
folder descriptors, no link followed, and its blobs and trees are written as loose
objects into the git directory, which lives outside the work tree. Git then only ever
compares trees (`diff-tree`), never looks at the work tree.

Kept out of every snapshot, at any depth: `.git` (any case), `node_modules/`, `dist/`
(installed dependencies and build output belong to the sandbox) and the scaffold's
prompt file. Files larger than `HASH_MAX_BYTES` are represented by a small text blob
naming their size; folders deeper than `MAX_DEPTH` by a blob saying so.

The same walk yields a `FileIndex`: every path it met, with its kind and, for files and
links, the blob id and the modification second (what the verifier's replay reuse needs
to tell whether a URL would be served the same bytes; `orchestrator.verifier._reuse`).
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
import zlib
from pathlib import Path

from ._paths import DIR_FLAGS, is_git_name, read_bytes

PROMPT_FILE = ".pwb-prompt.md"
EXCLUDED_DIRS = frozenset({"node_modules", "dist"})
EXCLUDED_FILES = frozenset({PROMPT_FILE})
HASH_MAX_BYTES = 16 << 20
MAX_DEPTH = 128
EMPTY_TREE = bytes.fromhex("4b825dc642cb6eb9a060e54bf8d69288fbee4904")
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC

_Key = tuple[str, int, int, int, int, int]

# Kinds in a `FileIndex`: "file", "exec", "link" and "dir" are recorded faithfully;
# "excluded" (node_modules, dist, the prompt file), "oversize", "deep" and "emptydir"
# are paths whose bytes the snapshot does not hold (or which git cannot represent).
FileIndex = dict[str, tuple[str, str]]  # path -> (kind, blob id + ":" + mtime second)


class Snapshotter:
    """Writes tree snapshots of `root` into `git_dir`; remembers unchanged files' blobs."""

    def __init__(self, root: Path, git_dir: Path) -> None:
        self.root = root
        self.objects = git_dir / "objects"
        self._blobs: dict[_Key, bytes] = {}
        self._written: set[bytes] = set()

    def tree(self) -> str:
        """The hex id of a tree object holding the work tree as it is now."""
        return self.indexed()[0]

    def indexed(self) -> tuple[str, FileIndex]:
        """The tree id and the index of every path met by the same walk."""
        index: FileIndex = {"": ("dir", "")}
        fd = os.open(self.root, DIR_FLAGS)
        try:
            return self._tree(fd, "", 0, index).hex(), index
        finally:
            os.close(fd)

    def write_object(self, kind: str, data: bytes) -> bytes:
        raw = f"{kind} {len(data)}\0".encode() + data
        oid = hashlib.sha1(raw, usedforsecurity=False).digest()
        if oid in self._written:
            return oid
        hexid = oid.hex()
        folder = self.objects / hexid[:2]
        path = folder / hexid[2:]
        if not path.exists():
            folder.mkdir(exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(zlib.compress(raw, 1))
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        self._written.add(oid)
        return oid

    def _tree(self, dfd: int, prefix: str, depth: int, index: FileIndex) -> bytes:
        entries: list[tuple[bytes, bytes, bytes]] = []  # (sort key, mode, id)
        with os.scandir(dfd) as it:
            listing = list(it)
        for entry in listing:
            name = entry.name
            if is_git_name(name):
                continue
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            bname = os.fsencode(name)
            if stat.S_ISDIR(st.st_mode):
                if name in EXCLUDED_DIRS:
                    index[prefix + name] = ("excluded", "")
                    continue
                oid = self._subtree(dfd, name, prefix, depth, index)
                if oid is None:
                    continue
                mode = b"40000" if oid[0] == "tree" else b"100644"
                key = bname + b"/" if oid[0] == "tree" else bname
                entries.append((key, mode, oid[1]))
            elif stat.S_ISREG(st.st_mode):
                if name in EXCLUDED_FILES:
                    index[prefix + name] = ("excluded", "")
                    continue
                blob = self._file_blob(dfd, name, prefix + name, st)
                if blob is not None:
                    executable = bool(st.st_mode & stat.S_IXUSR)
                    mode = b"100755" if executable else b"100644"
                    entries.append((bname, mode, blob))
                    kind = "oversize" if st.st_size > HASH_MAX_BYTES else "file"
                    kind = "exec" if executable and kind == "file" else kind
                    index[prefix + name] = (kind, f"{blob.hex()}:{int(st.st_mtime)}")
            elif stat.S_ISLNK(st.st_mode):
                try:
                    target = os.readlink(name, dir_fd=dfd)
                except OSError:
                    continue
                link = self.write_object("blob", os.fsencode(target))
                entries.append((bname, b"120000", link))
                index[prefix + name] = ("link", link.hex())
            else:
                index[prefix + name] = ("excluded", "")  # a fifo, socket or device
        entries.sort(key=lambda e: e[0])
        body = b"".join(mode + b" " + key.rstrip(b"/") + b"\0" + oid for key, mode, oid in entries)
        return self.write_object("tree", body)

    def _subtree(
        self, dfd: int, name: str, prefix: str, depth: int, index: FileIndex
    ) -> tuple[str, bytes] | None:
        if depth >= MAX_DEPTH:
            index[prefix + name] = ("deep", "")
            note = f"pwb: folder deeper than {MAX_DEPTH} levels, not recorded\n"
            return "blob", self.write_object("blob", note.encode())
        try:
            sub = os.open(name, DIR_FLAGS, dir_fd=dfd)
        except OSError:
            return None  # replaced by a link meanwhile: not followed
        try:
            oid = self._tree(sub, prefix + name + "/", depth + 1, index)
        finally:
            os.close(sub)
        index[prefix + name] = ("emptydir" if oid == EMPTY_TREE else "dir", "")
        return None if oid == EMPTY_TREE else ("tree", oid)

    def _file_blob(self, dfd: int, name: str, rel: str, st: os.stat_result) -> bytes | None:
        key = (rel, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_mode)
        known = self._blobs.get(key)
        if known is not None:
            return known
        if st.st_size > HASH_MAX_BYTES:
            data = f"pwb: file of {st.st_size} bytes, too large to record\n".encode()
        else:
            try:
                fd = os.open(name, _FILE_FLAGS, dir_fd=dfd)
            except OSError:
                return None  # replaced by a link meanwhile: not followed
            try:
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    return None
                data = read_bytes(fd, HASH_MAX_BYTES)
            finally:
                os.close(fd)
        oid = self.write_object("blob", data)
        self._blobs[key] = oid
        return oid
