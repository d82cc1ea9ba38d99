"""A cell's files from a worker node back to the driver's run directory (issue #22).

A node never learns the driver's run directory (nor its run lock). It runs each sweep's
cells in a staging directory of its own, laid out like a run directory and removed when
the sweep's session closes (`open_staging`):

    $TMPDIR/pwb-runs-<uid>/<sweep>/.lock            the session's lock, held while it is open
    $TMPDIR/pwb-runs-<uid>/<sweep>/cells/<cell>/    what an attempt writes (events, artifacts)
    $TMPDIR/pwb-runs-<uid>/<sweep>/baseline/        the node's baseline cache
    $TMPDIR/pwb-runs-<uid>/<sweep>/retired/         cells already sent, being removed

The session's lock is the `pwb.lock` of the node's sandboxes, so `gc` on the node tells a
live session's containers by a lock on the node's own disk.

After each attempt the node packs what it wrote (`pack_cell`, in one worker thread: the
cell's final work tree as `workspace.patch`, its diff against R0 which `git apply` takes
back, where a single-host cell has its `workspace` link; then a tar of `cells/<cell>/`
without the `workspace` links, which name the node's disk, plus the baseline cache's
files), and the tar travels back with the attempt's reply. The cell's staging is moved
aside under `retired/` (one rename), and removed with its workspaces after the reply has
gone (`remove_retired`), not on the reply's path; whatever is left there goes with the
session's staging. An attempt cancelled (Ctrl-C) is packed when its session closes
(`take_cell`).
The driver writes the tar into its run directory (`deliver`), trusting nothing in it:
every member's name and type is checked before anything is written.
Only regular files and directories, relative, without `.` or `..`, under this cell's
`cells/<cell>/` or directly in `baseline/`; anything else refuses the whole delivery
(`DeliveryRefused`). Directories on the way must be directories (never followed links;
one that is not refuses the delivery from there on); files are written without
following links. `events.jsonl` is appended to (the cell's log goes on across attempts,
which may run on other nodes), other files are replaced.

The other way, once per session: the driver's baseline cache (`known_baselines`: R0's
verdicts kept by earlier attempts, and by the run a `--resume` continues) seeds the
node's (`seed_baselines`), so no node verifies an R0 the run already knows.

No Ray here: the transport is the caller's (`_ray`).
"""

from __future__ import annotations

import fcntl
import io
import os
import re
import secrets
import shutil
import stat
import tarfile
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import anyio

from sandbox import lock_held

from ..private_dir import private_dir
from ..records import cell_dir_name
from ..workspace import Workspace, discard_under

EVENTS = "events.jsonl"
RETIRED = "retired"  # cells sent, their staging not yet removed (`pack_cell`)
PATCH = "workspace.patch"  # a cell's final work tree against R0, for its `workspace` link
_BASELINE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*\.json")  # `<key>.json`
_STALE_S = 600.0  # far longer than between creating a staging directory and locking it


class DeliveryRefused(Exception):
    """A node's delivery holds a member that may not be written (one line: which)."""


def staging_root() -> Path:
    """Where this node stages its sweeps: under its temp dir, per user."""
    return Path(tempfile.gettempdir()) / f"pwb-runs-{os.getuid()}"


@dataclass(frozen=True)
class Staging:
    root: Path  # the session's run directory on this node
    lock: Path  # held (flock) while the session is open


@contextmanager
def open_staging(sweep: str, base: Path | None = None) -> Iterator[Staging]:
    """The staging directory of sweep `sweep` on this node, locked while open, removed
    (its workspaces too) on exit. Staging left by sessions whose process died (its lock is
    free) is removed first."""
    base = private_dir(base or staging_root())  # not a link planted in /tmp
    drop_stale(base)
    root = base / sweep
    root.mkdir(mode=0o700)  # a sweep id is unique: an existing one is a bug
    lock = root / ".lock"
    fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield Staging(root=root, lock=lock)
    finally:
        try:
            _remove(root)
        finally:
            os.close(fd)


def drop_stale(base: Path, now: float | None = None) -> list[Path]:
    """Remove the staging of sessions nobody holds (their node host died); only old
    ones, as a session creates its directory a moment before it takes its lock."""
    now = time.time() if now is None else now
    dropped = []
    for root in base.iterdir():
        try:
            st = root.lstat()
            if not stat.S_ISDIR(st.st_mode) or now - st.st_mtime < _STALE_S:
                continue
            if lock_held(str(root / ".lock")):
                continue
        except OSError:
            continue  # gone meanwhile
        _remove(root)
        dropped.append(root)
    return dropped


def _remove(root: Path) -> None:
    for folder in (root / "cells", root / RETIRED):
        if folder.is_dir() and not folder.is_symlink():
            for cell in folder.iterdir():
                discard_under(cell)
    shutil.rmtree(root, ignore_errors=True)


async def write_patch(root: Path, key: str) -> None:
    """`write_patch_now` in a worker thread."""
    await anyio.to_thread.run_sync(write_patch_now, root, key)


def write_patch_now(root: Path, key: str) -> None:
    """Blocking: `cells/<cell>/workspace.patch` under staging `root`: the work tree the
    cell's `workspace` link names, as a patch against R0 (none without a harness
    workspace)."""
    link = root / "cells" / cell_dir_name(key) / "workspace"
    ws = Workspace.attach(link, ()) if link.is_symlink() else None
    if ws is not None:
        (link.parent / PATCH).write_bytes(ws.patch_now())


def pack_cell(root: Path, key: str) -> tuple[bytes, Path | None]:
    """Blocking: what an attempt of cell `key` wrote under staging `root`, its final work
    tree as `workspace.patch` included (`write_patch_now`), as a tar (`take_cell`). The
    cell's staging is moved under `retired/` and returned (None if there was none): the
    caller removes it (`remove_retired`) once the tar is on its way."""
    if not (root / "cells" / cell_dir_name(key) / PATCH).is_file():
        write_patch_now(root, key)  # the attempt writes it (`SweepResources`): unless it failed
    data = _tar(root, key)
    cell = root / "cells" / cell_dir_name(key)
    if not cell.is_dir():
        return data, None
    retired = root / RETIRED
    retired.mkdir(exist_ok=True)
    gone = retired / f"{cell.name}.{secrets.token_hex(4)}"
    cell.rename(gone)  # the cell's links name absolute paths: they still lead home
    return data, gone


def remove_retired(cell: Path) -> None:
    """Blocking: a cell's staging moved aside by `pack_cell`, with its workspaces."""
    discard_under(cell)
    shutil.rmtree(cell, ignore_errors=True)


def known_baselines(run_dir: Path) -> dict[str, bytes]:
    """Blocking: the driver's baseline cache (`run_dir/baseline/<key>.json`) by file name."""
    folder = run_dir / "baseline"
    if not folder.is_dir():
        return {}
    return {
        p.name: p.read_bytes()
        for p in sorted(folder.glob("*.json"))
        if _BASELINE_NAME.fullmatch(p.name) and p.is_file() and not p.is_symlink()
    }


def seed_baselines(root: Path, files: Mapping[str, bytes]) -> None:
    """Blocking: the driver's baselines into the baseline cache of staging `root`. A name
    that is not a plain `<key>.json` refuses them all (`DeliveryRefused`); a file that
    does not decode is recomputed by the cache, as a torn write is."""
    bad = sorted(name for name in files if not _BASELINE_NAME.fullmatch(name))
    if bad:
        raise DeliveryRefused(f"baseline {bad[0]!r}: not a plain <key>.json name")
    folder = root / "baseline"
    folder.mkdir(exist_ok=True)
    for name, content in files.items():
        _replace(folder, name, content)


def take_cell(root: Path, key: str) -> bytes:
    """Blocking: what an attempt of cell `key` wrote under staging `root`, as a tar with
    members relative to the run directory; the cell's staging and workspaces are removed."""
    data = _tar(root, key)
    cell = root / "cells" / cell_dir_name(key)
    if cell.is_dir():
        remove_retired(cell)
    return data


def _tar(root: Path, key: str) -> bytes:
    cell = root / "cells" / cell_dir_name(key)

    def keep(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
        return info if info.isreg() or info.isdir() else None  # no links, no devices

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        if cell.is_dir():
            tar.add(cell, arcname=f"cells/{cell.name}", filter=keep)
        baseline = root / "baseline"
        if baseline.is_dir():
            for path in sorted(baseline.glob("*.json")):
                tar.add(path, arcname=f"baseline/{path.name}", filter=keep, recursive=False)
    return buf.getvalue()


def deliver(data: bytes, run_dir: Path, key: str) -> list[str]:
    """Blocking: write a node's delivery for cell `key` into `run_dir`; return the
    members written. Every member's name and type is checked first (one refused, nothing
    is written); a link found in the run directory on the way refuses the rest."""
    if not data:
        return []
    try:
        tar = tarfile.open(fileobj=io.BytesIO(data), mode="r:")
    except tarfile.TarError as exc:
        raise DeliveryRefused(f"cell {key}: the node's delivery is not a tar: {exc}") from exc
    with tar:
        members = tar.getmembers()
        plan = [(m, _checked(m, key)) for m in members]
        written = []
        for member, parts in plan:
            if member.isdir():
                _mkdirs(run_dir, parts)
                continue
            parent = _mkdirs(run_dir, parts[:-1])
            source = tar.extractfile(member)
            assert source is not None  # a regular file
            content = source.read()
            try:
                if parts[-1] == EVENTS and len(parts) == 3:
                    _append(parent / EVENTS, content)
                else:
                    _replace(parent, parts[-1], content)
            except OSError as exc:  # e.g. a link where the file goes (O_NOFOLLOW)
                raise DeliveryRefused(f"cell {key}: cannot write {member.name}: {exc}") from exc
            written.append("/".join(parts))
    return written


def _checked(member: tarfile.TarInfo, key: str) -> tuple[str, ...]:
    name = member.name
    refused = f"cell {key}: the node's delivery holds {name!r}"
    if not (member.isreg() or member.isdir()):
        raise DeliveryRefused(f"{refused}: not a regular file or directory")
    path = PurePosixPath(name)
    parts = path.parts
    if path.is_absolute() or not parts or any(p in ("", ".", "..") or "\\" in p for p in parts):
        raise DeliveryRefused(f"{refused}: not a plain relative path")
    if name.startswith("./") or "//" in name or name.rstrip("/") != str(path):
        raise DeliveryRefused(f"{refused}: not a plain relative path")
    in_cell = parts[:2] == ("cells", cell_dir_name(key))
    in_baseline = parts[0] == "baseline" and len(parts) == 2 and member.isreg()
    if not (in_cell or in_baseline or parts in (("cells",), ("baseline",))):
        raise DeliveryRefused(f"{refused}: outside cells/{cell_dir_name(key)}/ and baseline/")
    return parts


def _mkdirs(run_dir: Path, parts: tuple[str, ...]) -> Path:
    """`run_dir/parts...` as directories, none of them a link."""
    here = run_dir
    for part in parts:
        here = here / part
        try:
            st = here.lstat()
        except FileNotFoundError:
            here.mkdir()
            continue
        if not stat.S_ISDIR(st.st_mode):
            raise DeliveryRefused(f"{here}: not a directory (a link, or a file) in the run")
    return here


def _append(path: Path, content: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "ab") as f:
        f.write(content)


def _replace(parent: Path, name: str, content: bytes) -> None:
    tmp = parent / f".{name}.{secrets.token_hex(4)}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "wb") as f:
        f.write(content)
    os.replace(tmp, parent / name)  # replaces a link itself, never what it points to
