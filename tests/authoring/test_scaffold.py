"""`new`: every stack scaffolds a package `tasks` accepts, with an image to run it; the
npm skeletons' manifests agree with each other (what `npm ci` checks in the image build)
and every page is a build input (a page left out of vite.config.js would be missing from
`dist/`); the hugo skeleton builds into dist/ without a lock file in the workspace; the
eleventy skeleton builds src/ into a fresh dist/ with the Eleventy its stack image pins,
the astro one with the Astro its stack image pins (the repo has no package.json)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from orchestrator.authoring import NPM_DEPS, SERVE, scaffold
from orchestrator.contract import load_task
from sandbox import stacks


@pytest.mark.parametrize("stack", sorted(SERVE))
def test_every_stack_scaffolds_a_valid_package(tmp_path: Path, stack: str) -> None:
    root = tmp_path / f"demo-{stack}"
    scaffold(root, root.name, stack)
    task = load_task(root)
    assert task.contract.stack == stack and stack in stacks()
    if stack == "hugo":  # pages are content; the HTML files are its layouts
        pages = sorted(p.name for p in (task.repo / "content").glob("*.md"))
        assert pages == ["_index.md", "about.md"]
    elif stack == "eleventy":  # pages are Markdown under src/ over a Nunjucks layout
        pages = sorted(p.name for p in (task.repo / "src").glob("*.md"))
        assert pages == ["about.md", "index.md"], pages
        assert (task.repo / "src" / "_includes" / "base.njk").is_file()
    elif stack == "astro":  # pages are .astro files under src/pages/ over a shared layout
        pages = sorted(p.name for p in (task.repo / "src" / "pages").glob("*.astro"))
        assert pages == ["about.astro", "index.astro"], pages
        assert (task.repo / "src" / "layouts" / "Base.astro").is_file()
    elif stack == "flask":  # pages are Jinja templates over a shared layout
        pages = sorted(p.name for p in (task.repo / "templates").glob("*.html"))
        assert pages == ["about.html", "base.html", "index.html"], pages
        assert '@app.get("/about.html")' in (task.repo / "app.py").read_text()
    else:
        pages = [p.name for p in task.repo.rglob("*.html")]
        assert sorted(pages) == ["about.html", "index.html"], pages
    assert "TODO" not in "".join(p.read_text() for p in task.repo.rglob("*") if p.is_file())


@pytest.mark.parametrize("stack", sorted(NPM_DEPS))
def test_npm_manifests_agree(tmp_path: Path, stack: str) -> None:
    root = tmp_path / f"demo-{stack}"
    scaffold(root, root.name, stack)
    repo = root / "repo"
    package = json.loads((repo / "package.json").read_text())
    lock = json.loads((repo / "package-lock.json").read_text())
    assert package["name"] == lock["name"] == lock["packages"][""]["name"] == root.name
    deps, dev_deps = NPM_DEPS[stack]
    assert package.get("dependencies", {}) == lock["packages"][""].get("dependencies", {}) == deps
    assert package["devDependencies"] == lock["packages"][""]["devDependencies"] == dev_deps
    for name, version in {**deps, **dev_deps}.items():  # pinned: the lock has exactly these
        assert lock["packages"][f"node_modules/{name}"]["version"] == version, name
    config = (repo / "vite.config.js").read_text()
    inputs = set(re.findall(r"page\('([^']+)'\)", config))
    assert inputs == {p.name for p in repo.glob("*.html")}
    entry = {"vite": "/src/main.js", "react": "/src/main.jsx", "svelte": "/src/main.js"}[stack]
    for page in repo.glob("*.html"):
        assert f'<script type="module" src="{entry}">' in page.read_text(), page
    assert (repo / entry.lstrip("/")).is_file() and (repo / "public" / "style.css").is_file()
    task = load_task(root)
    assert task.contract.serve.build and task.contract.serve.install.startswith("npm ci")
    plugin = {"vite": "", "react": "@vitejs/plugin-react", "svelte": "@sveltejs/vite-plugin-svelte"}
    assert plugin[stack] in config


def test_hugo_builds_into_dist_without_a_lock_file(tmp_path: Path) -> None:
    root = tmp_path / "demo-hugo"
    scaffold(root, "demo-hugo", "hugo")
    serve = load_task(root).contract.serve
    assert "--noBuildLock" in serve.build and "--destination dist" in serve.build
    assert "--directory dist" in serve.start and serve.rebuild_on_change
    assert 'title = "Demo Hugo"' in (root / "repo" / "hugo.toml").read_text()
    assert (root / "repo" / "static" / "style.css").is_file()


def test_eleventy_builds_a_fresh_dist_with_the_image_s_pinned_eleventy(tmp_path: Path) -> None:
    root = tmp_path / "demo-eleventy"
    scaffold(root, "demo-eleventy", "eleventy")
    repo = root / "repo"
    serve = load_task(root).contract.serve
    # Eleventy never deletes output: the build starts from an empty dist/.
    assert serve.build.startswith("rm -rf dist && eleventy ") and "--output=dist" in serve.build
    assert "--directory dist" in serve.start and serve.rebuild_on_change
    assert not serve.install and not (repo / "package.json").exists()  # in the image
    assert '"title": "Demo Eleventy"' in (repo / "src" / "_data" / "site.json").read_text()
    config = (repo / "eleventy.config.mjs").read_text()
    assert 'input: "src"' in config and '"src/style.css"' in config
    assert (repo / "src" / "style.css").is_file()
    # The stack image installs exactly the pinned Eleventy from its lock (npm ci).
    images = Path(__file__).resolve().parents[2] / "images" / "eleventy"
    package = json.loads((images / "package.json").read_text())
    lock = json.loads((images / "package-lock.json").read_text())
    version = package["dependencies"]["@11ty/eleventy"]
    assert re.fullmatch(r"3\.\d+\.\d+", version), version
    assert lock["packages"]["node_modules/@11ty/eleventy"]["version"] == version
    assert lock["packages"][""]["dependencies"] == package["dependencies"]
    assert "npm ci" in (images / "Dockerfile").read_text()


def test_astro_builds_a_fresh_dist_with_the_image_s_pinned_astro(tmp_path: Path) -> None:
    root = tmp_path / "demo-astro"
    scaffold(root, "demo-astro", "astro")
    repo = root / "repo"
    serve = load_task(root).contract.serve
    assert serve.build.startswith("rm -rf dist && astro build") and serve.rebuild_on_change
    # Nothing the build writes reaches the diff: its types are removed, env.d.ts is R0's.
    assert serve.build.endswith("&& rm -rf .astro") and (repo / "src" / "env.d.ts").is_file()
    assert "--directory dist" in serve.start and serve.restart_on_change
    assert not serve.install and not (repo / "package.json").exists()  # in the image
    assert "Demo Astro" in (repo / "src" / "components" / "Header.astro").read_text()
    config = (repo / "astro.config.mjs").read_text()
    assert 'outDir: "dist"' in config and 'output: "static"' in config
    assert (repo / "public" / "style.css").is_file()
    assert ".astro/" in (repo / ".gitignore").read_text().split()
    # The stack image installs exactly the pinned Astro from its lock (npm ci), and links
    # its tree above /workspace, where the repo's `import ... from "astro/..."` finds it.
    images = Path(__file__).resolve().parents[2] / "images" / "astro"
    package = json.loads((images / "package.json").read_text())
    lock = json.loads((images / "package-lock.json").read_text())
    version = package["dependencies"]["astro"]
    assert re.fullmatch(r"4\.\d+\.\d+", version), version
    assert lock["packages"]["node_modules/astro"]["version"] == version
    assert lock["packages"][""]["dependencies"] == package["dependencies"]
    dockerfile = (images / "Dockerfile").read_text()
    assert "npm ci" in dockerfile and "/node_modules" in dockerfile
