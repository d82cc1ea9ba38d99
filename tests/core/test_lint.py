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
    got = lint(load_task(root))
    assert "state about_d: no check uses it" in got
    assert "check keep-nothing: cannot fail (a box with no coordinate)" in got
    assert "check keep-h1-box: fails on R0 and on the reference: it can never pass" in got
    assert "check keep-order: preservation check failing on R0 (evidence/r0)" in got
    assert "unit u1: no negative expects a gate of its checks to fail" in got
    assert len(got) == 5, got


def test_a_sound_package_is_quiet_on_checks(tmp_path: Path) -> None:
    root = tmp_path / "demo"
    scaffold(root, "demo", "static")
    (root / "task.toml").write_text((root / "task.toml").read_text() + EXTRA)
    _evidence(root, "r0", 90, "Welcome What we do Find us")
    _evidence(root, "reference", 91, "Welcome What we do Find us")
    got = [line for line in lint(load_task(root)) if line.startswith("check ")]
    assert got == ["check keep-nothing: cannot fail (a box with no coordinate)"]
