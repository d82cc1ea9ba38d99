"""`suggest` proposes a design-token check once a page, not once per repeated element or
viewport (#54: it proposed 58 token checks for a 4-page site, the same colour rule on
every h2 at every state)."""

from __future__ import annotations

from pathlib import Path

from orchestrator.authoring import scaffold, suggest
from orchestrator.contract import load_task
from tests.authoring.evidence import token_evidence


def test_a_token_rule_is_proposed_once_a_page(tmp_path: Path) -> None:
    root = tmp_path / "demo"
    scaffold(root, "demo", "static")
    states = {s.id: s for s in load_task(root).contract.states}
    assert states["home_d"].route == states["home_m"].route  # one page, two viewports
    every = [
        (0, "header", "background-color", "--ink"),
        (1, "h2", "color", "--accent"),
        (2, "h2", "color", "--accent"),  # the same rule on the next h2
        (3, "h2", "color", "--muted"),  # another token: another rule
    ]
    for sid in states:
        token_evidence(root, "r0", sid, every)
        token_evidence(root, "reference", sid, every)
    toml, skipped = suggest(load_task(root))
    tokens = [c for c in toml.split("[[checks]]") if 'kind = "token"' in c]
    assert [
        (c.split('state = "')[1].split('"')[0], c.split("selector = ")[1].split(",")[0])
        for c in tokens
    ] == [
        ("home_d", '"header"'),
        ("home_d", '"h2 >> nth=0"'),
        ("home_d", '"h2 >> nth=2"'),
    ], toml
    repeats = [s for s in skipped if "proposed once for /" in s]
    assert (
        "home_d: h2 >> nth=1 color follows --accent: proposed once for / (home_d h2 >> nth=0)"
        in repeats
    )
    assert len(repeats) == 1 + 4  # the second h2 at home_d, all four at home_m
    # What it proposes loads as a contract.
    (root / "task.toml").write_text((root / "task.toml").read_text() + "\n" + toml)
    assert len([c for c in load_task(root).contract.checks if c.id.startswith("keep-token")]) == 3


def test_a_navigation_box_is_proposed_only_when_asked(tmp_path: Path) -> None:
    """A navigation's entries are checked by `links`; its box only with `nav_boxes`, since
    a negative dropping an entry would otherwise fail `visual_anchors` too."""
    root = tmp_path / "demo"
    scaffold(root, "demo", "static")
    for sid in ("home_d", "home_m"):
        for side in ("r0", "reference"):
            token_evidence(root, side, sid, [], extra=[("nav", 4)])
    task = load_task(root)
    plain, _ = suggest(task)
    asked, _ = suggest(task, nav_boxes=True)
    assert "keep-header-box-home_d" in plain and "keep-header-box-home_d" in asked
    assert "keep-nav-box" not in plain
    assert 'keep-nav-box-home_d-4"' in asked and 'selector = "nav"' in asked
