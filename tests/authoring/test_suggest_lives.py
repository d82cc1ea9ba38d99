"""`suggest` proposes keeping R0's live regions (#44: announcements), from evidence only."""

from __future__ import annotations

from pathlib import Path

from orchestrator.authoring import scaffold, suggest
from orchestrator.contract import load_task
from tests.fixtures.liveregions import evidence, region


def test_live_regions_the_reference_keeps_are_proposed_and_the_rest_skipped(
    tmp_path: Path,
) -> None:
    root = tmp_path / "demo"
    scaffold(root, "demo", "static")
    task = load_task(root)
    sid = task.contract.states[0].id
    r0 = [
        region("p", "notice", role="status"),
        region("div", aria_live="polite"),
        region("div", aria_live="assertive"),
        region("output"),
        region("span", "gone", role="alert"),
    ]
    # The reference keeps all but the alert, which it turns into a plain status.
    ref = [*r0[:4], region("span", "gone", role="status")]
    evidence(root, "r0", sid, r0)
    evidence(root, "reference", sid, ref)
    toml, skipped = suggest(load_task(root))
    checks = [c for c in toml.split("[[checks]]") if "keep-live" in c]
    assert len(checks) == 4, toml
    assert 'selector = "#notice", name = "role", equals = "status"' in checks[0]
    assert 'selector = "div:not([id]) >> nth=0", name = "aria-live", equals = "polite"' in checks[1]
    assert 'name = "aria-live", equals = "assertive"' in checks[2]
    assert 'kind = "exists", selector = "output"' in checks[3]
    assert all('gate = "a11y"' in c and f'state = "{sid}"' in c for c in checks)
    assert f"{sid}: live region #gone: the reference changes it" in skipped
    # What it proposes loads as a contract (the author appends it).
    (root / "task.toml").write_text((root / "task.toml").read_text() + "\n" + toml)
    ids = {c.id for c in load_task(root).contract.checks}
    assert {f"keep-live-{sid}-{i}" for i in range(4)} <= ids


def test_evidence_without_live_regions_says_to_capture_again(tmp_path: Path) -> None:
    root = tmp_path / "demo"
    scaffold(root, "demo", "static")
    sid = load_task(root).contract.states[0].id
    evidence(root, "r0", sid, None)
    toml, skipped = suggest(load_task(root))
    assert "keep-live" not in toml
    assert f"{sid}: live regions: evidence captured before they were (capture)" in skipped
