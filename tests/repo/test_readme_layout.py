"""The README's "Layout" is the layer map `LAYERS` of `tests/layers.py` (#57): its table
has one row per layer, top first, and each row names exactly that layer's units, a
package written `name/` and a module `name`. A unit added to `LAYERS` and not to the
README (or the reverse, or moved between rows) fails here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.layers import LAYERS

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def layout_rows(readme: str) -> list[list[str]]:
    """The units column of the Layout table, row by row, as written (`cell/`, `config`)."""
    section = readme.split("\n## Layout\n", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("|")]
    return [re.findall(r"`([^`]+)`", line.split("|")[2]) for line in lines[2:]]


def layout_problems(readme: str, layers: list[set[str]], root: Path = ROOT) -> list[str]:
    rows = layout_rows(readme)
    problems = []
    if len(rows) != len(layers):
        problems.append(f"the README's Layout has {len(rows)} rows, LAYERS {len(layers)} layers")
    for n, (row, layer) in enumerate(zip(rows, layers, strict=False), 1):
        names = {u.removesuffix("/") for u in row}
        for unit in sorted(layer - names):
            problems.append(f"row {n}: LAYERS has {unit}, the README does not")
        for unit in sorted(names - layer):
            problems.append(f"row {n}: the README has {unit}, LAYERS does not")
        for written in row:
            unit = written.removesuffix("/")
            package = (root / "orchestrator" / unit).is_dir()
            if package != written.endswith("/"):
                kind = "a package: write `unit/`" if package else "a module: no slash"
                problems.append(f"row {n}: {written} is {kind}")
    return problems


def test_the_readme_layout_is_the_layer_map() -> None:
    assert layout_problems(README, LAYERS) == []


def _swap_rows(readme: str) -> str:
    a = "| setup | `config`, `faults` |"
    b = "| solvers | `solvers/`, `solver_cards` |"
    return readme.replace(a, "@@").replace(b, a).replace("@@", b)


PLANTED: dict[str, tuple[Callable[[str], str], str]] = {
    "a unit dropped": (
        lambda r: r.replace("`audit/`, ", ""),
        "row 6: LAYERS has audit, the README does not",
    ),
    "a stale unit": (
        lambda r: r.replace("`cpu`, ", "`cpu`, `workspace.py`, "),
        "row 13: the README has workspace.py, LAYERS does not",
    ),
    "rows out of order": (_swap_rows, "row 8: LAYERS has solver_cards, the README does not"),
    "a package without its slash": (
        lambda r: r.replace("`regrade/`", "`regrade`"),
        "row 5: regrade is a package: write `unit/`",
    ),
    "a layer missing": (
        lambda r: r.replace("| admission | `admission/` |", "| admission | |"),
        "row 4: LAYERS has admission, the README does not",
    ),
}


@pytest.mark.parametrize("bug", list(PLANTED))
def test_a_planted_mismatch_is_caught(bug: str) -> None:
    edit, caught = PLANTED[bug]
    planted = edit(README)
    assert planted != README
    assert caught in layout_problems(planted, LAYERS)
