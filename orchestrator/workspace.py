"""A cell's workspace: a fresh git repository holding only R0, and the file tools a solver gets.

Reads are allowed anywhere inside the workspace (except `.git`); writes only inside
`allowed_paths`. Absolute paths, `..` and symlinks that leave the workspace are refused
with a `PathRefused` that says why; the solver is told the message verbatim.
"""

from __future__ import annotations

import re
import shlex
import shutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path, PurePosixPath

import anyio
import msgspec

_GIT_ENV = {
    "GIT_AUTHOR_NAME": "r0",
    "GIT_AUTHOR_EMAIL": "r0@pwb.invalid",
    "GIT_COMMITTER_NAME": "r0",
    "GIT_COMMITTER_EMAIL": "r0@pwb.invalid",
    "GIT_AUTHOR_DATE": "2000-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2000-01-01T00:00:00Z",
    "GIT_CONFIG_NOSYSTEM": "1",
    "HOME": "/nonexistent",
}
_SKIP_COPY = shutil.ignore_patterns(".git", "node_modules", "dist", "__pycache__")
MAX_READ_BYTES = 200_000


class WorkspaceError(Exception):
    """A file operation or patch could not be applied; the message is for the solver."""


class PathRefused(WorkspaceError):
    pass


class PatchError(WorkspaceError):
    pass


class EditEvent(msgspec.Struct, frozen=True, kw_only=True):
    op: str  # write | edit | delete | patch
    path: str
    applied: bool
    reason: str = ""


class SearchHit(msgspec.Struct, frozen=True, kw_only=True):
    path: str
    line: int
    text: str


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


async def _git(root: Path, *args: str, stdin: bytes | None = None, check: bool = True) -> str:
    return await _run_git(root, ["git", "-c", "core.quotepath=off", *args], args[0], stdin, check)


async def _git_then(root: Path, first: list[str], then: list[str]) -> str:
    """`git <first> && git <then>` as one process spawn (each spawn briefly holds the loop)."""
    script = 'git "$@" && exec git -c core.quotepath=off ' + shlex.join(then)
    argv = ["sh", "-c", script, "git", "-c", "core.quotepath=off", *first]
    return await _run_git(root, argv, f"{first[0]}/{then[0]}", None, True)


async def _run_git(root: Path, argv: list[str], what: str, stdin: bytes | None, check: bool) -> str:
    result = await anyio.run_process(
        argv,
        cwd=root,
        input=stdin,
        env=_GIT_ENV | {"PATH": "/usr/local/bin:/usr/bin:/bin"},
        check=False,
    )
    if check and result.returncode != 0:
        err = result.stderr.decode(errors="replace").strip().splitlines()
        raise WorkspaceError(f"git {what} failed: {err[-1] if err else result.returncode}")
    return result.stdout.decode(errors="replace")


@dataclass
class Workspace:
    root: Path
    allowed_paths: tuple[str, ...]
    listener: Callable[[EditEvent], None] | None = None

    # ------------------------------------------------------------ lifecycle
    @classmethod
    async def create(cls, r0: Path, dest: Path, allowed_paths: Iterable[str]) -> Workspace:
        """Copy R0 into `dest` (which must not exist) and make it a one-commit git repo."""
        await anyio.to_thread.run_sync(lambda: shutil.copytree(r0, dest, ignore=_SKIP_COPY))
        ws = cls(root=dest.resolve(), allowed_paths=tuple(allowed_paths))
        await _git(ws.root, "init", "-q", "-b", "main")
        # Installed deps and build output are the sandbox's, never part of a diff.
        (ws.root / ".git" / "info" / "exclude").write_text("node_modules/\ndist/\n.pwb-prompt.md\n")
        await _git_then(ws.root, ["add", "-A"], ["commit", "-q", "--allow-empty", "-m", "R0"])
        return ws

    # ------------------------------------------------------------ path policy
    def _resolve(self, path: str, *, write: bool) -> tuple[Path, str]:
        if not path or path.strip() != path:
            raise PathRefused(f"refused {path!r}: empty path or surrounding whitespace")
        p = PurePosixPath(path)
        if p.is_absolute():
            raise PathRefused(f"refused {path!r}: absolute paths are not allowed")
        if ".." in p.parts:
            raise PathRefused(f"refused {path!r}: '..' is not allowed")
        rel = p.as_posix().removeprefix("./")
        if rel.split("/", 1)[0] == ".git":
            raise PathRefused(f"refused {path!r}: .git is not part of the workspace")
        full = (self.root / rel).resolve()
        if full != self.root and self.root not in full.parents:
            raise PathRefused(f"refused {path!r}: resolves outside the workspace via a link")
        if write and not path_allowed(rel, self.allowed_paths):
            raise PathRefused(
                f"refused {path!r}: outside allowed paths ({', '.join(self.allowed_paths)})"
            )
        return full, rel

    def _emit(self, event: EditEvent) -> None:
        if self.listener is not None:
            self.listener(event)

    # ------------------------------------------------------------ solver tools
    def list_files(self, under: str = "") -> list[str]:
        base = self._resolve(under, write=False)[0] if under else self.root
        out = []
        for p in sorted(base.rglob("*")):
            rel = p.relative_to(self.root).as_posix()
            if p.is_file() and not rel.startswith(".git/") and "node_modules/" not in rel:
                out.append(rel)
        return out

    def read_file(self, path: str) -> str:
        full, _ = self._resolve(path, write=False)
        if not full.is_file():
            raise WorkspaceError(f"no such file: {path!r}")
        data = full.read_bytes()[:MAX_READ_BYTES]
        return data.decode("utf-8", errors="replace")

    def search(self, pattern: str, under: str = "", max_hits: int = 200) -> list[SearchHit]:
        try:
            rx = re.compile(pattern)
        except re.error as exc:
            raise WorkspaceError(f"invalid search pattern {pattern!r}: {exc}") from exc
        hits: list[SearchHit] = []
        for rel in self.list_files(under):
            try:
                text = (self.root / rel).read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue
            for n, line in enumerate(text.splitlines(), 1):
                if rx.search(line):
                    hits.append(SearchHit(path=rel, line=n, text=line[:300]))
                    if len(hits) >= max_hits:
                        return hits
        return hits

    def write_file(self, path: str, content: str) -> None:
        try:
            full, rel = self._resolve(path, write=True)
        except PathRefused as exc:
            self._emit(EditEvent(op="write", path=path, applied=False, reason=str(exc)))
            raise
        full.parent.mkdir(parents=True, exist_ok=True)
        full.write_text(content, encoding="utf-8")
        self._emit(EditEvent(op="write", path=rel, applied=True))

    def edit(self, path: str, search: str, replace: str) -> None:
        """Replace the one exact occurrence of `search`; missing or ambiguous is an error."""
        try:
            full, rel = self._resolve(path, write=True)
            if not full.is_file():
                raise WorkspaceError(f"no such file: {path!r}")
            text = full.read_text(encoding="utf-8")
            n = text.count(search) if search else 0
            if n != 1:
                what = "not found" if n == 0 else f"found {n} times; include more context"
                raise WorkspaceError(f"edit of {path!r} refused: search text {what}")
        except WorkspaceError as exc:
            self._emit(EditEvent(op="edit", path=path, applied=False, reason=str(exc)))
            raise
        full.write_text(text.replace(search, replace, 1), encoding="utf-8")
        self._emit(EditEvent(op="edit", path=rel, applied=True))

    def delete_file(self, path: str) -> None:
        """Delete one file (not a folder); a missing file is an error. A link is removed
        itself, never its target."""
        try:
            _, rel = self._resolve(path, write=True)
            target = self.root / rel
            if not (target.is_symlink() or target.is_file()):
                raise WorkspaceError(f"no such file: {path!r}")
        except WorkspaceError as exc:
            self._emit(EditEvent(op="delete", path=path, applied=False, reason=str(exc)))
            raise
        target.unlink()
        self._emit(EditEvent(op="delete", path=rel, applied=True))

    # ------------------------------------------------------------ harness side
    async def apply_patch(self, patch: Path) -> None:
        """Apply a unified diff (harness-side: reference, negatives); clear error if it fails."""
        data = patch.read_bytes()
        result = await anyio.run_process(
            ["git", "apply", "--whitespace=nowarn", "-"],
            cwd=self.root,
            input=data,
            env=_GIT_ENV | {"PATH": "/usr/local/bin:/usr/bin:/bin"},
            check=False,
        )
        if result.returncode != 0:
            lines = result.stderr.decode(errors="replace").strip().splitlines()
            first = lines[0] if lines else f"exit {result.returncode}"
            self._emit(EditEvent(op="patch", path=patch.name, applied=False, reason=first))
            raise PatchError(f"{patch}: does not apply: {first}")
        self._emit(EditEvent(op="patch", path=patch.name, applied=True))

    async def reset_to_r0(self) -> None:
        """Harness-side: discard every change (offline `thrash` solver)."""
        await _git(self.root, "reset", "-q", "--hard", "HEAD")
        await _git(self.root, "clean", "-qfdx", "-e", "node_modules", "-e", "dist")

    async def tree_id(self) -> str:
        """A content id of the whole working tree: equal ids mean no file changed."""
        return (await _git_then(self.root, ["add", "-A"], ["write-tree"])).strip()

    async def changed_paths(self) -> list[str]:
        """Paths added, changed or deleted since R0 (ignored files excluded)."""
        out = await _git_then(
            self.root, ["add", "-A"], ["diff", "--cached", "--name-only", "--no-renames", "HEAD"]
        )
        return [line for line in out.splitlines() if line]

    async def scope_violations(self) -> tuple[str, ...]:
        """Changed paths outside `allowed_paths` (e.g. written by a scaffold agent directly)."""
        return tuple(
            p for p in await self.changed_paths() if not path_allowed(p, self.allowed_paths)
        )

    async def diff(self) -> str:
        return await _git_then(
            self.root, ["add", "-A"], ["diff", "--cached", "--binary", "--no-renames", "HEAD"]
        )
