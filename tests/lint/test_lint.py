"""`lint` (#23): unused states, checks that cannot fail (judged on evidence), units no
negative exercises — each warning planted in a scaffolded package."""

from __future__ import annotations

import json
from pathlib import Path

from orchestrator.authoring import scaffold
from orchestrator.contract import CANARY, CANARY_LINE, load_task
from orchestrator.lint import lint

EXTRA = """
[[states]]
id = "about_d"
route = "/about.html"

[[checks]]
id = "keep-h1-box"
gate = "visual_anchors"
state = "home_d"
describe = "The headline stays put."
assert = { kind = "box", selector = "h1", x = 24, y = 90, tolerance = 4 }

[[checks]]
id = "keep-nothing"
gate = "visual_anchors"
state = "home_d"
describe = "A box with nothing to compare."
assert = { kind = "box", selector = "main" }

[[checks]]
id = "keep-order"
gate = "regression_text"
state = "home_m"
describe = "Headings in order."
assert = { kind = "text_order", selector = "h2", values = ["What we do", "Find us"] }
"""


def _evidence(root: Path, side: str, h1_y: float, text: str) -> None:
    out = root / "evidence" / side
    out.mkdir(parents=True, exist_ok=True)
    box = {"x": 24, "y": h1_y, "width": 400, "height": 40}
    anchors = [{"tag": "h1", "id": "", "index": 0, "text": "Hi", "box": box, "style": {}}]
    for sid in ("home_d", "home_m"):
        data = {"canary": CANARY, "state": sid, "anchors": anchors, "navs": [], "tokens": []}
        (out / f"{sid}.anchors.json").write_text(json.dumps(data))
        (out / f"{sid}.txt").write_text(CANARY_LINE + text)


def test_lint_names_each_problem(tmp_path: Path) -> None:
    root = tmp_path / "demo"
    scaffold(root, "demo", "static")
    (root / "task.toml").write_text((root / "task.toml").read_text() + EXTRA)
    # The h1 box matches neither R0 nor the reference; the headings are out of order on R0
    # only (a preservation check R0 fails).
    _evidence(root, "r0", 300, "Welcome Find us What we do")
    _evidence(root, "reference", 300, "Welcome What we do Find us")
    findings = lint(load_task(root))
    got = [f.text for f in findings if f.level == "warning"]
    assert "check keep-nothing: cannot fail (a box with no coordinate)" in got
    assert "check keep-h1-box: fails on R0 and on the reference: it can never pass" in got
    assert "check keep-order: preservation check failing on R0 (evidence/r0)" in got
    assert "unit u1: no negative expects a gate of its checks to fail" in got
    assert len(got) == 4, got
    # The health-only state is a note, and no negative could need it: no removal of
    # something a negative needs is advised, and it is not a warning.
    (note,) = [f.text for f in findings if f.level == "note"]
    assert note.startswith("state about_d: no check uses it"), note


def test_a_sound_package_is_quiet_on_checks(tmp_path: Path) -> None:
    root = tmp_path / "demo"
    scaffold(root, "demo", "static")
    (root / "task.toml").write_text((root / "task.toml").read_text() + EXTRA)
    _evidence(root, "r0", 90, "Welcome What we do Find us")
    _evidence(root, "reference", 91, "Welcome What we do Find us")
    got = [f.text for f in lint(load_task(root)) if f.text.startswith("check ")]
    assert got == ["check keep-nothing: cannot fail (a box with no coordinate)"]


ONLY_CATCHER = """
[[states]]
id = "about_d"
route = "/about.html"

[[negatives]]
name = "about-deleted"
expect_fail = ["routes"]
why = "The about page is deleted: only the health of a state on /about.html sees the 404."
"""

DELETE_ABOUT = (
    CANARY_LINE
    + """\
diff --git a/about.html b/about.html
deleted file mode 100644
"""
)


def _with_negative(tmp_path: Path, extra: str) -> Path:
    root = tmp_path / "demo"
    scaffold(root, "demo", "static")
    (root / "task.toml").write_text((root / "task.toml").read_text() + extra)
    (root / "negatives" / "about-deleted.patch").write_text(DELETE_ABOUT)
    return root


def test_a_health_only_state_a_negative_needs_gets_no_removal_advice(tmp_path: Path) -> None:
    # #38: the only state on /about.html is the only thing that catches `about-deleted`
    # (a route answering 404): lint must not suggest removing it, nor exit 1 for it.
    root = _with_negative(tmp_path, ONLY_CATCHER)
    findings = lint(load_task(root))
    (about,) = [f for f in findings if f.text.startswith("state about_d")]
    assert about.level == "note"
    assert "about-deleted (expects routes)" in about.text and about.text.endswith("keep it")
    assert "can go" not in about.text and "remove" not in about.text
    assert lint_exit(root) == 1  # u1 has no negative exercising text: a real warning ...
    root2 = tmp_path / "quiet"
    scaffold(root2, "quiet", "static")
    toml = (root2 / "task.toml").read_text() + ONLY_CATCHER
    toml = toml.replace('expect_fail = ["routes"]', 'expect_fail = ["routes", "text"]')
    (root2 / "task.toml").write_text(toml)
    (root2 / "negatives" / "about-deleted.patch").write_text(DELETE_ABOUT)
    assert lint_exit(root2) == 0  # ... and without it the health-only state alone exits 0


def test_a_health_only_twin_of_another_load_may_go(tmp_path: Path) -> None:
    extra = ONLY_CATCHER.replace('route = "/about.html"', 'route = "/"')
    (about,) = [f for f in lint(load_task(_with_negative(tmp_path, extra))) if "about_d" in f.text]
    assert about.level == "note" and "the same as state home_d's" in about.text


def lint_exit(root: Path) -> int:
    import argparse

    from orchestrator.commands import lint as command

    return command.run(argparse.Namespace(tasks=[str(root)], tasks_dir=root.parent))
