"""`lint` (#23): unused states, checks that cannot fail (judged on evidence), units no
negative exercises — each warning planted in a scaffolded package."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orchestrator.authoring import scaffold
from orchestrator.contract import CANARY, CANARY_LINE, load_task
from orchestrator.lint import holds_on_evidence, lint

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
    # The scaffold's request is a placeholder (`new` and `twin` leave a TODO).
    assert "unit u1: its request is still a TODO: write what the user asks for" in got
    assert len(got) == 5, got
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
    toml = toml.replace('request = "TODO: ', 'request = "Please: ')  # the request written
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


ANCHOR_CHECKS = """
[[checks]]
id = "keep-second-h2"
gate = "visual_anchors"
state = "home_d"
describe = "The second heading stays put."
assert = { kind = "box", selector = "h2 >> nth=1", y = 300 }

[[checks]]
id = "keep-footer-box"
gate = "visual_anchors"
state = "home_d"
describe = "The footer stays put."
assert = { kind = "box", selector = "footer", y = 500 }

[[checks]]
id = "keep-header-token"
gate = "design_tokens"
state = "home_d"
describe = "The header follows the brand colour."
assert = { kind = "token", selector = "header", property = "color", token = "--brand" }

[[checks]]
id = "keep-h1-token"
gate = "design_tokens"
state = "home_d"
describe = "The headline follows the ink colour."
assert = { kind = "token", selector = "h1", property = "color", token = "--ink" }

[[checks]]
id = "keep-main-token"
gate = "design_tokens"
state = "home_d"
describe = "The page follows the paper colour (a token capture never saw on it)."
assert = { kind = "token", selector = "main", property = "background-color", token = "--paper" }

[[checks]]
id = "keep-nav"
gate = "navigation"
state = "home_d"
describe = "The main navigation keeps its entries."
assert = { kind = "links", selector = "header nav", entries = [{ text = "Home", href = "/" }] }

[[checks]]
id = "keep-menu"
gate = "navigation"
state = "home_m"
describe = "A region that may not be a nav keeps its entries."
assert = { kind = "links", selector = ".menu", entries = [{ text = "Home", href = "/" }] }
"""


def _anchor(tag: str, index: int, y: float) -> dict[str, object]:
    box = {"x": 0, "y": y, "width": 400, "height": 40}
    return {"tag": tag, "id": "", "index": index, "text": tag, "box": box, "style": {}}


def test_evidence_judges_anchors_tokens_and_missing_navigation(tmp_path: Path) -> None:
    """What `twin --settle` moves into unit 1 (#54): a check on an anchor the page lacks
    fails; a token recorded on the element holds, one recorded elsewhere only fails on
    it; a navigation check fails on a page with no navigation region at all."""
    root = tmp_path / "demo"
    scaffold(root, "demo", "static")
    (root / "task.toml").write_text((root / "task.toml").read_text() + ANCHOR_CHECKS)
    out = root / "evidence" / "r0"
    out.mkdir(parents=True)
    anchors = [_anchor("header", 0, 0), _anchor("h1", 1, 90), _anchor("h2", 2, 300)]
    anchors += [_anchor("main", 3, 80)]
    tokens = [
        {"index": 0, "tag": "header", "id": "", "property": "color", "token": "--brand"},
        {"index": 2, "tag": "h2", "id": "", "property": "color", "token": "--ink"},
    ]
    home = {"canary": CANARY, "state": "home_d", "anchors": anchors, "navs": [], "tokens": tokens}
    (out / "home_d.anchors.json").write_text(json.dumps(home))
    phone = {"canary": CANARY, "state": "home_m", "anchors": [], "navs": [], "tokens": []}
    (out / "home_m.anchors.json").write_text(json.dumps(phone))
    task = load_task(root)
    got = {k.id: holds_on_evidence(task, k, "r0") for k in task.contract.checks}
    assert got["keep-second-h2"] is False  # one h2 only (at y 300): `nth=1` matches nothing
    assert got["keep-footer-box"] is False  # no footer
    assert got["keep-header-token"] is True
    assert got["keep-h1-token"] is False  # --ink is on the page, not on the h1
    assert got["keep-main-token"] is None  # --paper never recorded: capture cannot say
    assert got["keep-nav"] is False
    assert got["keep-menu"] is None  # `.menu` need not be a navigation region


TWINS = (
    "fernhill-save-tools",
    "corriemoor-walks-menu",
    "brackenfold-kiln-classes",
    "bikeshare-faq-content",
    "coworking-pricing-toggle",
    "skerrow-ferry-fares",
)


@pytest.mark.parametrize("source", TWINS)
def test_evidence_agrees_with_what_twin_authors_moved(source: str) -> None:
    """On each shipped twin's starter evidence, every check judged failing is one its
    author moved into unit 1, every check judged passing one they kept."""
    tasks = Path(__file__).resolve().parents[2] / "tasks"
    src = load_task(tasks / source).contract
    twin = load_task(tasks / f"build-{source}")
    moved = set(twin.contract.units[0].checks) - set(src.units[0].checks)
    judged = {
        cid: holds_on_evidence(twin, twin.contract.check(cid), "r0")
        for cid in src.preservation_check_ids()
    }
    assert {c for c, v in judged.items() if v is False} <= moved
    assert not {c for c, v in judged.items() if v is True} & moved
    assert sum(v is not None for v in judged.values()) >= len(judged) / 4


def test_a11y_evidence_captured_for_other_checks_is_named(tmp_path: Path) -> None:
    """evidence/a11y.json records what each check's selector read at its state; a check
    given another selector, moved or removed since the capture makes it stale (the
    live-region rule would compare against the old reading)."""
    root = tmp_path / "demo"
    scaffold(root, "demo", "static")
    (root / "task.toml").write_text((root / "task.toml").read_text() + EXTRA)
    path = root / "evidence" / "a11y.json"
    path.parent.mkdir(parents=True, exist_ok=True)

    def captured(*reads: tuple[str, str, str]) -> list[str]:
        snap: dict[str, dict[str, list[dict[str, str]]]] = {
            sid: {"live": []} for sid in ("home_d", "home_m")
        }
        for sid, check, sel in reads:
            snap[sid]["live"].append({"check": check, "selector": sel, "live": "", "text": ""})
        path.write_text(json.dumps({"canary": CANARY, "r0": snap, "reference": snap}))
        return [f.text for f in lint(load_task(root)) if "a11y.json" in f.text]

    assert captured(("home_d", "keep-h1-box", "h1"), ("home_m", "keep-order", "h2")) == []
    (stale,) = captured(("home_d", "keep-h1-box", "h2"))
    assert "r0/home_d: check keep-h1-box read 'h2', now 'h1'" in stale
    assert stale.endswith(": run capture again")
    (moved,) = captured(("home_d", "keep-order", "h2"), ("home_d", "old-check", "p"))
    assert "r0/home_d: check keep-order is gone" in moved  # it reads home_m now
    assert "check old-check is gone" in moved and "; 1 more" in moved
    path.write_text(f'{{"canary": "{CANARY}", not json')  # `capture` and `admit` say so
    assert not [f for f in lint(load_task(root)) if "a11y.json" in f.text]
    path.write_text(json.dumps({"canary": CANARY, "r0": {"home_d": [1]}, "reference": 2}))
    assert not [f for f in lint(load_task(root)) if "a11y.json" in f.text]


def test_a_reference_that_shifts_past_the_bar_is_named(tmp_path: Path) -> None:
    """A reference whose captured layout shift is poor and above R0's by more than the
    allowance is named before `admit` refuses it (session 29: a list filtered after the
    first paint, found only by a 9 min admission)."""
    root = tmp_path / "demo"
    scaffold(root, "demo", "static")
    path = root / "evidence" / "a11y.json"
    path.parent.mkdir(parents=True, exist_ok=True)

    def shifts(r0: object, ref: object) -> list[str]:
        sides = {
            side: {"home_m": {"layout_shift": v}} for side, v in (("r0", r0), ("reference", ref))
        }
        path.write_text(json.dumps({"canary": CANARY, **sides}))
        return [f.text for f in lint(load_task(root)) if "layout shift" in f.text]

    (named,) = shifts(0.0, 0.35)
    assert named.startswith("state home_m: the reference's captured layout shift is 0.35")
    assert "R0's 0.00" in named and "perf-layout-shift@home_m" in named
    assert shifts(0.0, 0.25) == []  # at the bar: passes, as the gate says (> 0.25)
    assert shifts(0.2, 0.3) == []  # within 0.1 of R0's: R0's debt
    assert shifts(0.15, 0.3) != []
    assert shifts(None, 0.9) == []  # R0 not measured: nothing to compare
    assert shifts(0.0, "0.9") == [] and shifts(0.0, True) == []  # not figures: `admit` rejects them


def test_a_unit_text_order_in_one_element_is_not_called_held_on_r0(tmp_path: Path) -> None:
    """The page's text in order says nothing of one element's (session 29: a unit check on
    the home page's box was "passes on R0 already" because R0's list elsewhere on the page
    named the same walks in the same order); on `body` it is the page's, and warned."""
    root = tmp_path / "demo"
    scaffold(root, "demo", "static")
    toml = (root / "task.toml").read_text()
    unit = 'checks = ["'
    assert toml.count(unit) == 1
    for selector, warned in (("article", False), ("body", True)):
        check = f"""
[[checks]]
id = "walks-in-order"
gate = "text"
state = "home_d"
describe = "The walks, in order."
assert = {{ kind = "text_order", selector = "{selector}", values = ["Mill pond", "Fen edge"] }}
"""
        (root / "task.toml").write_text(toml.replace(unit, unit + 'walks-in-order", "') + check)
        _evidence(root, "r0", 90, "Walks Mill pond Fen edge")
        got = [f.text for f in lint(load_task(root)) if "walks-in-order" in f.text]
        said = "check walks-in-order: passes on R0 already (evidence/r0): cannot fail"
        assert (said in got) is warned, (selector, got)
