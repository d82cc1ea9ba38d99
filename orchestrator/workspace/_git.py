"""Every git command the harness runs on a workspace, with nothing in it executable.

The repository lives outside the work tree (never bind-mounted), named by `GIT_DIR`, so
a `.git` planted in the tree cannot redirect git, and a renamed one cannot make git fall
through to an enclosing repository. System and global config are off; hooks, fsmonitor,
external diff and textconv are disabled on the command line as a second wall in case the
repository's own config were ever reached. Most commands work on trees alone (`bare`);
only `reset`/`clean`/`apply` get the work tree.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import anyio

from ._errors import WorkspaceError

_ENV = {
    "GIT_AUTHOR_NAME": "r0",
    "GIT_AUTHOR_EMAIL": "r0@pwb.invalid",
    "GIT_COMMITTER_NAME": "r0",
    "GIT_COMMITTER_EMAIL": "r0@pwb.invalid",
    "GIT_AUTHOR_DATE": "2000-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2000-01-01T00:00:00Z",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_ATTR_NOSYSTEM": "1",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_OPTIONAL_LOCKS": "0",
    "HOME": "/nonexistent",
    "LC_ALL": "C",
    "PATH": "/usr/local/bin:/usr/bin:/bin",
}
SAFE_CONFIG = (
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.untrackedCache=false",
    "core.attributesFile=/dev/null",
    "core.excludesFile=/dev/null",
    "core.quotepath=off",
    "core.pager=cat",
    "core.symlinks=true",
    "diff.external=",
    "protocol.allow=never",
    "submodule.recurse=false",
    "safe.directory=*",
)
NO_EXTERNAL = ("--no-ext-diff", "--no-textconv")


def argv(*args: str, bare: bool) -> list[str]:
    config = [*SAFE_CONFIG, f"core.bare={'true' if bare else 'false'}"]
    return ["git", *(a for c in config for a in ("-c", c)), *args]


async def git(
    git_dir: Path,
    *args: str,
    work_tree: Path | None = None,
    stdin: bytes | None = None,
    check: bool = True,
) -> str:
    """Run one git command on `git_dir`; with `work_tree` it may touch the work tree."""
    out = await git_bytes(git_dir, *args, work_tree=work_tree, stdin=stdin, check=check)
    return out.decode(errors="replace")


async def git_bytes(
    git_dir: Path,
    *args: str,
    work_tree: Path | None = None,
    stdin: bytes | None = None,
    check: bool = True,
) -> bytes:
    """`git`, its output as git wrote it (a patch of files in any encoding)."""
    result = await anyio.run_process(
        argv(*args, bare=work_tree is None),
        cwd=work_tree or git_dir,
        input=stdin,
        env=_env(git_dir, work_tree),
        check=False,
    )
    return _checked(args, result, check)


def git_bytes_now(git_dir: Path, *args: str) -> bytes:
    """Blocking `git_bytes` on the trees alone (for a worker thread that has more to do
    than this one command: no hop back to the event loop and out again)."""
    result = subprocess.run(
        argv(*args, bare=True), cwd=git_dir, env=_env(git_dir, None), capture_output=True
    )
    return _checked(args, result, True)


def _env(git_dir: Path, work_tree: Path | None) -> dict[str, str]:
    env = _ENV | {"GIT_DIR": str(git_dir)}
    if work_tree is not None:
        env["GIT_WORK_TREE"] = str(work_tree)
    return env


def _checked(
    args: tuple[str, ...], result: subprocess.CompletedProcess[bytes], check: bool
) -> bytes:
    if check and result.returncode != 0:
        err = result.stderr.decode(errors="replace").strip().splitlines()
        raise WorkspaceError(f"git {args[0]} failed: {err[-1] if err else result.returncode}")
    return result.stdout
