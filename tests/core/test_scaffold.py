"""`new`: every stack scaffolds a package `tasks` accepts; the vite skeleton's manifests
agree with each other (what `npm ci` checks in the image build) and every page is a
build input (a page left out of vite.config.js would be missing from `dist/`)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from orchestrator.authoring import SERVE, scaffold
from orchestrator.contract import load_task


@pytest.mark.parametrize("stack", sorted(SERVE))
def test_every_stack_scaffolds_a_valid_package(tmp_path: Path, stack: str) -> None:
    root = tmp_path / f"demo-{stack}"
    scaffold(root, root.name, stack)
    task = load_task(root)
    assert task.contract.stack == stack
    pages = [p for p in task.repo.rglob("*.html")]
    assert len(pages) == 2, pages


def test_vite_manifests_agree(tmp_path: Path) -> None:
    root = tmp_path / "demo-vite"
    scaffold(root, "demo-vite", "vite")
    repo = root / "repo"
    package = json.loads((repo / "package.json").read_text())
    lock = json.loads((repo / "package-lock.json").read_text())
    assert package["name"] == lock["name"] == lock["packages"][""]["name"] == "demo-vite"
    assert lock["packages"][""]["devDependencies"] == package["devDependencies"]
    assert lock["packages"]["node_modules/vite"]["version"] == package["devDependencies"]["vite"]
    config = (repo / "vite.config.js").read_text()
    inputs = set(re.findall(r"page\('([^']+)'\)", config))
    assert inputs == {p.name for p in repo.glob("*.html")}
    for page in repo.glob("*.html"):
        assert '<script type="module" src="/src/main.js">' in page.read_text(), page
    assert (repo / "src" / "main.js").is_file() and (repo / "public" / "style.css").is_file()
    task = load_task(root)
    assert task.contract.serve.build and task.contract.serve.install.startswith("npm ci")
