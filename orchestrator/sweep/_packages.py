"""Task packages by contract hash (issue #22): how a worker node gets a task without
the driver's `tasks_dir`.

The driver packs each task directory once per sweep (`pack`: a tar, `node_modules/`
left out as the contract hash leaves it out) and puts it into Ray's object store; a
node materialises it into a content-addressed cache of its own,
`<cache>/<contract_hash>/<task_id>/`, and uses that copy. The cache is filled at most
once per hash: unpacked into a private directory first (members that would land
outside it, links included, are refused), loaded and its contract hash verified, then
renamed into place; a copy whose hash differs is refused and never cached.

No Ray here: the object store is the caller's (`_ray`).
"""

from __future__ import annotations

import io
import os
import secrets
import shutil
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path

from ..contract import ContractError, TaskPackage, load_task
from ..private_dir import private_dir


def default_cache() -> Path:
    """The node's package cache: under its temp dir, per user."""
    return Path(tempfile.gettempdir()) / f"pwb-packages-{os.getuid()}"


def pack(task: TaskPackage) -> bytes:
    """The task directory as a tar (members under `<task_id>/`)."""

    def keep(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
        return None if "node_modules" in Path(info.name).parts else info

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        tar.add(task.root, arcname=task.root.name, filter=keep)
    return buf.getvalue()


def materialise(
    task_id: str, contract_hash: str, fetch: Callable[[], bytes], cache: Path
) -> TaskPackage:
    """The package `task_id` with `contract_hash` from this node's cache, fetched (and
    verified) first if the cache does not hold it yet."""
    home = private_dir(cache) / contract_hash  # nobody else may change a verified copy
    if (home / task_id).is_dir():
        return _verified(home / task_id, contract_hash)
    tmp = cache / f".unpack-{contract_hash[:16]}-{secrets.token_hex(4)}"
    tmp.mkdir()
    try:
        with tarfile.open(fileobj=io.BytesIO(fetch()), mode="r:") as tar:
            tar.extractall(tmp, filter="data")  # nothing outside `tmp`, no devices
        _verified(tmp / task_id, contract_hash)
        try:
            tmp.rename(home)
        except OSError:  # another sweep cached it meanwhile: use that copy
            if not (home / task_id).is_dir():
                raise
        return _verified(home / task_id, contract_hash)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _verified(root: Path, contract_hash: str) -> TaskPackage:
    try:
        package = load_task(root)
    except ContractError as exc:
        raise ContractError([f"shipped task package {root.name}: {exc}"]) from exc
    if package.contract_hash != contract_hash:
        raise ContractError(
            [
                f"shipped task package {root.name}: contract hash {package.contract_hash[:12]}"
                f" after unpacking, expected {contract_hash[:12]}"
            ]
        )
    return package
