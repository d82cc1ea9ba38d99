"""The canary: a marker in every grader-only file of a task package.

A solver or agent must never see it (a test scans everything they are shown); a model
that can recite it has been trained on, or shown, grader data. Grader-only files are
`task.toml`, the reference and negative patches (the line is a preamble `git apply`
skips) and the evidence text files `capture` writes.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

CANARY = "5b1f0c7e-pwb-grader-only"
CANARY_LINE = f"# pwb-canary: {CANARY}\n"
# What `capture` writes per state, and its accessibility snapshots (env.json, the
# environment fingerprint, is not task data).
EVIDENCE_TEXT = (".txt", ".aria.yaml", ".anchors.json", "a11y.json")


def grader_only_files(root: Path) -> Iterator[Path]:
    """Every grader-only text file of the task package at `root`."""
    yield root / "task.toml"
    for folder in ("reference", "negatives"):
        yield from sorted((root / folder).glob("*.patch"))
    evidence = root / "evidence"
    if evidence.is_dir():
        yield from sorted(
            p for p in evidence.rglob("*") if p.name.endswith(EVIDENCE_TEXT) and p.is_file()
        )


def canary_problems(root: Path, where: str) -> list[str]:
    """One line per authored grader-only file that lacks the canary, and one line for all
    of the evidence that lacks it (captured before the canary: the fix is to re-capture)."""
    marker = CANARY.encode()
    missing = [p for p in grader_only_files(root) if p.is_file() and marker not in p.read_bytes()]
    authored = [p for p in missing if not p.relative_to(root).parts[0] == "evidence"]
    out = [
        f"{where}: {p.relative_to(root)}: expected the canary line {CANARY_LINE.strip()!r}, "
        "got none"
        for p in authored
    ]
    old = [p for p in missing if p not in authored]
    if old:
        more = f" (and {len(old) - 1} more evidence files)" if len(old) > 1 else ""
        out.append(
            f"{where}: {old[0].relative_to(root)}{more}: expected the canary line, got none: "
            f"evidence captured before the canary; re-capture it: "
            f"python -m orchestrator capture {root}"
        )
    return out
