"""A local cell's final work tree is in the run directory (#41, item 5), as a Ray cell's
is: `cells/<cell>/workspace.patch`, its diff against R0. The `workspace` link names a
store outside the run directory; once that store is gone the patch still rebuilds the
tree byte for byte. A whole sweep on the fakes (`tests.fakesweep`), reference solver."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from orchestrator.cli import main
from orchestrator.records import cell_dir_name, read_rows
from tests.fakesweep import fake_engine
from tests.fixtures.bench import bench


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


def test_a_local_cells_patch_rebuilds_its_tree_after_the_store_is_gone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_engine(monkeypatch)
    config = bench(tmp_path, repeats=2, concurrency=2)
    run_dir = tmp_path / "run"
    assert main(["--config", str(config), "--quiet", "--no-report", "--run-dir", str(run_dir)]) == 0
    rows = read_rows(run_dir / "manifest.jsonl")
    assert len(rows) == 2 and {r.status for r in rows} == {"ok"}
    r0 = tmp_path / "tasks" / "tiny-shop" / "repo"
    for r in rows:
        cell = run_dir / "cells" / cell_dir_name(r.cell)
        link = cell / "workspace"
        final = _tree(link.resolve())
        assert final != _tree(r0)  # the reference solver changed R0
        shutil.rmtree(link.resolve())  # the temp store is gone
        rebuilt = tmp_path / "rebuilt" / cell.name
        shutil.copytree(r0, rebuilt)
        patch = cell / "workspace.patch"
        subprocess.run(["git", "apply", "--binary", str(patch)], cwd=rebuilt, check=True)
        assert _tree(rebuilt) == final
