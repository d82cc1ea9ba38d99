"""The file trace of replay reuse (`_reuse/_opens.py`): what it refuses to bound."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from orchestrator.verifier._reuse._opens import OpenTrace, Untraceable, fingerprint


def _tree(root: Path) -> Path:
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "b" / "f.txt").write_text("x")
    (root / "top.txt").write_text("y")
    return root


def test_windows_collect_reads_and_flag_changes(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t")
    trace = OpenTrace.start(root)
    try:
        outer = trace.mark()
        (root / "a" / "b" / "f.txt").read_text()
        inner = trace.mark()
        os.listdir(root / "a")
        assert trace.since(inner).paths == {"a"}
        assert trace.since(outer).paths == {"a/b/f.txt", "a"}  # windows may overlap
        mark = trace.mark()
        (root / "a" / "new").mkdir()  # a folder with no watch: nothing below it is seen
        assert trace.since(mark).uncertain == "/a/new was created while states replayed"
        mark = trace.mark()
        (root / "top.txt").rename(root / "moved.txt")
        assert trace.since(mark).uncertain
    finally:
        trace.close()


def test_overflow_is_uncertain(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t")
    trace = OpenTrace.start(root)
    try:
        limit = int(Path("/proc/sys/fs/inotify/max_queued_events").read_text())
        mark = trace.mark()
        one, two = root / "top.txt", root / "a" / "b" / "f.txt"
        for _ in range(limit // 2):  # 4 events each (open and read of each): not coalesced
            one.read_text()
            two.read_text()
        assert "lost events" in trace.since(mark).uncertain
    finally:
        trace.close()


def test_untraceable_trees(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t")
    (root / "out").symlink_to(tmp_path)
    with pytest.raises(Untraceable, match="links outside"):
        OpenTrace.start(root)
    (root / "out").unlink()
    (root / "in").symlink_to(root / "a")  # inside the tree: its target's folder is watched
    OpenTrace.start(root).close()
    with pytest.raises(Untraceable, match="more than 2 folders"):
        OpenTrace.start(root, max_dirs=2)
    with pytest.raises(Untraceable, match="cannot list a folder"):
        OpenTrace.start(tmp_path / "missing")  # what os.walk would otherwise skip silently


def test_fingerprint(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t")
    before = fingerprint(root, "a/b/f.txt")
    (root / "a" / "b" / "f.txt").write_text("z")
    assert fingerprint(root, "a/b/f.txt") != before
    listing = fingerprint(root, "a")
    (root / "a" / "c").write_text("")
    assert fingerprint(root, "a") != listing
    assert fingerprint(root, "missing") == "absent"
    (root / "l").symlink_to(root / "top.txt")
    with pytest.raises(Untraceable):
        fingerprint(root, "l")
