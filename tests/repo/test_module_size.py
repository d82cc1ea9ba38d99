"""#57's bound: no module of the harness over 400 lines (`docs/architecture.md`). A module
that grows past it is split by job, as `authoring/_twin.py` was into `_starter.py` and
`_toml_lines.py`."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MOST = 400


def too_long(roots: list[Path], most: int = MOST) -> dict[str, int]:
    """Each `.py` module under `roots` over `most` lines, with its count."""
    out = {}
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            lines = len(path.read_text(encoding="utf-8").splitlines())
            if lines > most:
                out[str(path.relative_to(root.parent))] = lines
    return out


def test_no_module_is_over_400_lines() -> None:
    assert too_long([ROOT / "orchestrator", ROOT / "sandbox"]) == {}


def test_a_planted_long_module_is_named(tmp_path: Path) -> None:
    pkg = tmp_path / "orchestrator"
    (pkg / "inner").mkdir(parents=True)
    (pkg / "inner" / "_long.py").write_text("x = 1\n" * (MOST + 1))
    (pkg / "_short.py").write_text("x = 1\n" * MOST)
    assert too_long([pkg]) == {"orchestrator/inner/_long.py": MOST + 1}
