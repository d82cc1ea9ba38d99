"""`suggest --negatives` proposes a live region silenced (#53): the reference with the
region's `role` removed, a patch that applies to the reference's tree, and its
`[[negatives]]` entry, which loads as part of the contract."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from orchestrator.authoring import scaffold, suggest_negatives
from orchestrator.contract import load_task
from tests.fixtures.liveregions import evidence, region

GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "HOME": "/nonexistent"}


def _demo(tmp_path: Path) -> Path:
    root = tmp_path / "demo"
    scaffold(root, "demo", "static")  # both pages have <p id="notice" role="status">
    sid = load_task(root).contract.states[0].id
    lives = [
        region("p", "notice", role="status"),
        region("span", "gone", role="alert"),  # in no source file
        region("div", aria_live="polite"),  # no id to find it by
        region("p", "clock", role="timer"),  # announces nothing
    ]
    evidence(root, "r0", sid, lives)
    evidence(root, "reference", sid, lives)
    return root


def test_a_silenced_live_region_is_proposed_as_a_negative_that_applies(tmp_path: Path) -> None:
    root = _demo(tmp_path)
    proposed, skipped = suggest_negatives(load_task(root))
    assert [n.name for n in proposed] == ["silenced-notice"]
    (neg,) = proposed
    assert '-  <p id="notice" role="status">' in neg.patch
    assert '+  <p id="notice">Orders placed' in neg.patch
    assert 'expect_fail = ["regression_text"]' in neg.toml and 'after_unit = "u1"' in neg.toml
    assert "live region #gone: role='alert' found 0 times in a file" in skipped
    assert "live region <div>: no id and live attribute to find it by" in skipped
    assert not any("clock" in s for s in skipped)
    # It applies to the reference's tree, and its entry loads with the contract.
    tree = tmp_path / "tree"
    shutil.copytree(root / "repo", tree)
    subprocess.run(["git", "init", "-q"], cwd=tree, env=GIT_ENV, check=True)
    subprocess.run(["git", "apply", str(root / "reference" / "u1.patch")], cwd=tree, env=GIT_ENV)
    (root / "negatives" / "silenced-notice.patch").write_text(neg.patch)
    subprocess.run(
        ["git", "apply", str(root / "negatives" / "silenced-notice.patch")],
        cwd=tree,
        env=GIT_ENV,
        check=True,
    )
    for page in ("index.html", "about.html"):  # the layout repeats it on every page
        assert '<p id="notice">' in (tree / page).read_text()
    (root / "task.toml").write_text((root / "task.toml").read_text() + "\n" + neg.toml)
    assert [n.name for n in load_task(root).contract.negatives] == ["silenced-notice"]


def test_a_file_the_reference_edits_is_left_to_the_author(tmp_path: Path) -> None:
    root = _demo(tmp_path)
    patch = root / "reference" / "u1.patch"
    patch.write_text(
        patch.read_text()
        + "--- a/index.html\n+++ b/index.html\n@@ -15 +15 @@\n"
        + "-  <h1>Welcome to Demo</h1>\n+  <h1>Welcome</h1>\n"
    )
    proposed, skipped = suggest_negatives(load_task(root))
    assert proposed == []
    assert "live region #notice: the reference edits index.html (write it by hand)" in skipped
