"""The authoring kit end to end (#23): `new` + `suggest`, then `capture` and `admit`,
with no hand edit beyond the request text and the one unit check (a static stack on the
local backend, real Chromium)."""

from __future__ import annotations

import difflib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from orchestrator.contract import CANARY_LINE, load_task

pytestmark = [pytest.mark.browser]
ROOT = Path(__file__).resolve().parents[2]
NEW_H1 = "Demo Shop opens late on Fridays"


def orch(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "orchestrator", *args]
    return subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def _patch(root: Path, rel: str, old: str, new: str) -> str:
    before = (root / "repo" / rel).read_text()
    after = before.replace(old, new)
    assert after != before
    diff = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=f"a/{rel}",
        tofile=f"b/{rel}",
    )
    return CANARY_LINE + "".join(diff)


def test_new_suggest_capture_admit(require_chromium: None, tmp_path: Path) -> None:
    tasks = tmp_path / "tasks"
    made = orch("new", "demo-shop", "--stack", "static", "--tasks-dir", str(tasks))
    assert made.returncode == 0, made.stderr
    root = tasks / "demo-shop"
    assert orch("tasks", str(root)).returncode == 0  # accepted as scaffolded
    assert orch("tasks", "demo-shop", "--tasks-dir", str(tasks)).returncode == 0  # by id too

    # The author's edits: the request text and the unit check, and the change itself.
    toml = root / "task.toml"
    text = toml.read_text()
    text = text.replace("TODO: the new headline", NEW_H1)
    text = text.replace(
        "TODO: what a PM, QA lead or designer asks for, in their words.",
        f"Please change the home page headline to '{NEW_H1}'.",
    )
    toml.write_text(text)
    (root / "reference" / "u1.patch").write_text(
        _patch(root, "index.html", "<h1>Welcome to Demo Shop</h1>", f"<h1>{NEW_H1}</h1>")
    )

    cap = orch("capture", str(root), "--backend", "local")
    assert cap.returncode == 0, cap.stdout + cap.stderr
    sug = orch("suggest", "demo-shop", "--tasks-dir", str(tasks))
    assert sug.returncode == 0, sug.stderr
    for kind in ("text_order", "box", "links", "token"):
        assert f'kind = "{kind}"' in sug.stdout, (kind, sug.stdout)
    # The scaffold's status line is a live region: kept announced (#44).
    assert 'selector = "#notice", name = "role", equals = "status"' in sug.stdout
    # The headline the unit changes is not proposed as protected copy.
    assert "Welcome to Demo Shop" not in sug.stdout
    toml.write_text(toml.read_text() + "\n" + sug.stdout)
    task = load_task(root)
    assert len(task.contract.preservation_check_ids()) >= 4

    adm = orch("admit", str(root), "--backend", "local", "--out", str(tmp_path / "adm"))
    assert adm.returncode == 0, adm.stdout + adm.stderr
    assert "| demo-shop | reference | yes |" in adm.stdout


VITE_H1 = "Demo Vite ships on Mondays"


@pytest.mark.full
@pytest.mark.docker
@pytest.mark.slow
def test_new_vite_capture_admit(
    require_docker: None, require_chromium: None, tmp_path: Path
) -> None:
    """`new --stack vite` scaffolds a package that builds and serves in the vite sandbox
    (dependencies from the task image: the cell has no network), captures and is admitted."""
    tasks = tmp_path / "tasks"
    made = orch("new", "demo-vite", "--stack", "vite", "--tasks-dir", str(tasks))
    assert made.returncode == 0, made.stderr
    root = tasks / "demo-vite"
    task = load_task(root)
    assert task.contract.stack == "vite" and task.contract.serve.build == "npm run build"
    for rel in ("package.json", "package-lock.json", "vite.config.js", "src/main.js"):
        assert (root / "repo" / rel).is_file(), rel

    toml = root / "task.toml"
    text = toml.read_text().replace("TODO: the new headline", VITE_H1)
    text = text.replace(
        "TODO: what a PM, QA lead or designer asks for, in their words.",
        f"Please change the home page headline to '{VITE_H1}'.",
    )
    toml.write_text(text)
    (root / "reference" / "u1.patch").write_text(
        _patch(root, "index.html", "<h1>Welcome to Demo Vite</h1>", f"<h1>{VITE_H1}</h1>")
    )

    cap = orch("capture", str(root), "--backend", "docker")
    assert cap.returncode == 0, cap.stdout + cap.stderr
    assert VITE_H1 in (root / "evidence" / "reference" / "home_d.txt").read_text()
    assert "Welcome to Demo Vite" in (root / "evidence" / "r0" / "home_d.txt").read_text()
    sug = orch("suggest", "demo-vite", "--tasks-dir", str(tasks))
    assert sug.returncode == 0, sug.stderr
    toml.write_text(toml.read_text() + "\n" + sug.stdout)

    adm = orch("admit", str(root), "--backend", "docker", "--out", str(tmp_path / "adm"))
    assert adm.returncode == 0, adm.stdout + adm.stderr
    assert "| demo-vite | reference | yes |" in adm.stdout


# The stacks of issue #24: where the scaffold's home headline lives, as the author edits it.
HEADLINE = {
    "react": ("src/pages/Home.jsx", "<h1>Welcome to Demo React</h1>", "<h1>{}</h1>"),
    "svelte": ("src/lib/Home.svelte", "<h1>Welcome to Demo Svelte</h1>", "<h1>{}</h1>"),
    "hugo": ("content/_index.md", 'title: "Welcome to Demo Hugo"', 'title: "{}"'),
    "eleventy": ("src/index.md", 'title: "Welcome to Demo Eleventy"', 'title: "{}"'),
    "astro": ("src/pages/index.astro", '<Base title="Welcome to Demo Astro">', '<Base title="{}">'),
    "flask": ("templates/index.html", "<h1>Welcome to Demo Flask</h1>", "<h1>{}</h1>"),
}


@pytest.mark.full
@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("stack", sorted(HEADLINE))
def test_new_stack_capture_admit(
    require_docker: None, require_chromium: None, tmp_path: Path, stack: str
) -> None:
    """`new --stack react|svelte|hugo|eleventy|astro|flask`: the skeleton builds in its
    stack's image (npm dependencies from the task image, Hugo from Debian's package,
    Eleventy and Astro pinned in their stack images), serves, renders what
    its framework renders (the headline is not in any HTML file of React's or Svelte's
    R0), captures and is admitted with the suggested preservation checks."""
    tasks = tmp_path / "tasks"
    task_id = f"demo-{stack}"
    made = orch("new", task_id, "--stack", stack, "--tasks-dir", str(tasks))
    assert made.returncode == 0, made.stderr
    root = tasks / task_id
    rel, old, new = HEADLINE[stack]
    h1 = f"Demo {stack.capitalize()} opens on Sundays"
    toml = root / "task.toml"
    text = toml.read_text().replace("TODO: the new headline", h1)
    text = text.replace(
        "TODO: what a PM, QA lead or designer asks for, in their words.",
        f"Please change the home page headline to '{h1}'.",
    )
    toml.write_text(text)
    (root / "reference" / "u1.patch").write_text(_patch(root, rel, old, new.format(h1)))

    cap = orch("capture", str(root), "--backend", "docker", timeout=1200)
    assert cap.returncode == 0, cap.stdout + cap.stderr
    r0_text = (root / "evidence" / "r0" / "home_d.txt").read_text()
    assert f"Welcome to Demo {stack.capitalize()}" in r0_text and "Home" in r0_text
    assert h1 in (root / "evidence" / "reference" / "home_d.txt").read_text()
    sug = orch("suggest", task_id, "--tasks-dir", str(tasks))
    assert sug.returncode == 0, sug.stderr
    assert 'kind = "links"' in sug.stdout and 'kind = "text_order"' in sug.stdout, sug.stdout
    toml.write_text(toml.read_text() + "\n" + sug.stdout)

    adm = orch("admit", str(root), "--backend", "docker", "--out", str(tmp_path / "adm"))
    assert adm.returncode == 0, adm.stdout + adm.stderr
    assert f"| {task_id} | reference | yes |" in adm.stdout
    assert f"| {task_id} | r0 | yes |" in adm.stdout
