"""Task packages by contract hash (`orchestrator.sweep._packages`, issue #22): what a
worker node caches is exactly the driver's package, or nothing."""

from __future__ import annotations

import io
import shutil
import tarfile
from pathlib import Path

import pytest

from orchestrator.contract import ContractError, load_task
from orchestrator.sweep import materialise, pack
from tests.fixtures.tinytask import make_tiny_task


def _fetches(data: bytes, calls: list[int]):  # type: ignore[no-untyped-def]
    def fetch() -> bytes:
        calls.append(1)
        return data

    return fetch


def test_a_package_is_cached_by_its_hash_and_fetched_once(tmp_path: Path) -> None:
    task = load_task(make_tiny_task(tmp_path / "driver"))
    cache = tmp_path / "cache"
    calls: list[int] = []
    got = materialise(task.contract.id, task.contract_hash, _fetches(pack(task), calls), cache)
    assert got.root == (cache / task.contract_hash / task.contract.id).resolve()
    assert got.contract_hash == task.contract_hash and got.contract == task.contract
    again = materialise(task.contract.id, task.contract_hash, _fetches(b"", calls), cache)
    assert again.root == got.root and calls == [1]  # the second sweep: no fetch
    assert [p.name for p in cache.iterdir()] == [task.contract_hash]  # no leftovers


def test_a_package_whose_hash_differs_is_refused_and_not_cached(tmp_path: Path) -> None:
    task = load_task(make_tiny_task(tmp_path / "driver"))
    other = tmp_path / "other"
    shutil.copytree(task.root, other / task.root.name)
    (other / task.root.name / "repo" / "index.html").write_text("<p>changed</p>")
    tampered = pack(load_task(other / task.root.name))
    cache = tmp_path / "cache"
    with pytest.raises(ContractError, match="contract hash"):
        materialise(task.contract.id, task.contract_hash, lambda: tampered, cache)
    assert list(cache.iterdir()) == []


def test_a_cached_copy_edited_afterwards_is_refused(tmp_path: Path) -> None:
    task = load_task(make_tiny_task(tmp_path / "driver"))
    cache = tmp_path / "cache"
    got = materialise(task.contract.id, task.contract_hash, lambda: pack(task), cache)
    (got.root / "repo" / "index.html").write_text("<p>edited in the cache</p>")
    with pytest.raises(ContractError, match="contract hash"):
        materialise(task.contract.id, task.contract_hash, lambda: pack(task), cache)


def test_a_member_outside_the_package_is_refused(tmp_path: Path) -> None:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        info = tarfile.TarInfo("../../escaped.txt")
        info.size = 3
        tar.addfile(info, io.BytesIO(b"bad"))
    cache = tmp_path / "a" / "cache"
    with pytest.raises(tarfile.TarError):
        materialise("tiny-shop", "0" * 64, buf.getvalue, cache)
    assert not (tmp_path / "escaped.txt").exists()
    assert not (tmp_path / "a" / "escaped.txt").exists()
    assert list(cache.iterdir()) == []


def test_a_cache_under_a_planted_link_is_refused(tmp_path: Path) -> None:
    task = load_task(make_tiny_task(tmp_path / "tasks"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "cache").symlink_to(elsewhere)  # e.g. another user's link in /tmp
    with pytest.raises(OSError, match="not a folder owned by this user"):
        materialise(task.contract.id, task.contract_hash, lambda: pack(task), tmp_path / "cache")
    assert list(elsewhere.iterdir()) == []
