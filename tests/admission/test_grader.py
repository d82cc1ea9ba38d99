"""The grader's fingerprint (orchestrator/admission/_grader.py): one byte of the code that decides
verdicts, of the pinned fonts, of Chromium's major version or of a stack's image inputs
changes it; the report, the scores or a README beside them do not."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from orchestrator.admission import (
    GRADER_SOURCES,
    GraderParts,
    chromium_major,
    grader_fingerprint,
    grader_parts,
    source_files,
)

ROOT = Path(__file__).resolve().parents[2]  # the checkout the fingerprint reads by default


def _copy(root: Path, rel: str) -> None:
    src = ROOT / rel
    if src.is_dir():
        shutil.copytree(src, root / rel, ignore=shutil.ignore_patterns("__pycache__"))
    else:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, root / rel)


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """The grader's sources, the report's, the scores' and the images, copied."""
    root = tmp_path / "repo"
    for rel in (*GRADER_SOURCES, "orchestrator/report", "orchestrator/scoring.py", "images"):
        _copy(root, rel)
    return root


@pytest.fixture
def fonts(tmp_path: Path) -> tuple[str, ...]:
    made = []
    for name in ("A.ttf", "B.ttf"):
        path = tmp_path / "fonts" / name
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(b"font " + name.encode())
        made.append(str(path))
    return tuple(made)


def _fp(root: Path, fonts: tuple[str, ...], browser: str = "156") -> str:
    return grader_parts(root, fonts=fonts, browser=lambda: browser).digest


def _plant(path: Path) -> None:
    """A planted bug in code: the first `==` of the file made `!=` (or, with none, a new
    statement)."""
    text = path.read_text()
    planted = text.replace(" == ", " != ", 1)
    path.write_text(planted if planted != text else text + "\nPLANTED = 1\n")


def _flip_a_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))


def test_the_fingerprint_is_deterministic_and_the_checkouts(
    checkout: Path, fonts: tuple[str, ...]
) -> None:
    assert _fp(checkout, fonts) == _fp(checkout, fonts)
    # The copy's grader is this checkout's: same bytes, same paths, same fingerprint.
    assert grader_parts(checkout, fonts=fonts).code == grader_parts(ROOT, fonts=fonts).code
    assert len(grader_fingerprint()) == 64 and grader_fingerprint() == grader_fingerprint()
    # Every listed source exists and is read; a missing one is an error, not a skip.
    read = {p.relative_to(ROOT).as_posix() for p in source_files(ROOT)}
    verifier = {
        p.relative_to(ROOT).as_posix() for p in (ROOT / "orchestrator/verifier").glob("*.py")
    }
    assert verifier <= read and "orchestrator/admission/_admit.py" in read
    assert not any(r.startswith("orchestrator/report/") for r in read)
    with pytest.raises(FileNotFoundError, match="orchestrator/nope"):
        source_files(ROOT, ("orchestrator/nope",))


@pytest.mark.parametrize(
    "rel",
    [
        "orchestrator/verifier/_core/_gates.py",
        "orchestrator/contract/_load.py",
        "orchestrator/cell/_flips.py",
        "orchestrator/admission/_admit.py",
    ],
)
def test_one_byte_of_the_code_that_decides_verdicts_changes_it(
    checkout: Path, fonts: tuple[str, ...], rel: str
) -> None:
    """A planted bug in one grading source."""
    before = _fp(checkout, fonts)
    _plant(checkout / rel)
    assert _fp(checkout, fonts) != before


def test_prose_and_layout_leave_it_and_unparsable_source_counts_by_bytes(
    checkout: Path, fonts: tuple[str, ...]
) -> None:
    """Docstrings, comments and line layout decide no verdict: editing them keeps the
    suite's records current. A string that is code (not the body's first) still counts."""
    rel = checkout / "orchestrator" / "verifier" / "_core/_gates.py"
    before = _fp(checkout, fonts)
    text = rel.read_text()
    head, _, rest = text.partition('"""')
    doc, _, body = rest.partition('"""')
    edited = head + '"""' + doc + " More prose.\n" + '"""' + body
    edited = edited.replace("\n\n\n", "\n\n# a comment\n\n\n", 1)
    rel.write_text(edited + "\n\n")
    assert _fp(checkout, fonts) == before
    rel.write_text(edited + '\nX = "a string that is code"\n')
    assert _fp(checkout, fonts) != before
    rel.write_text(text + "\ndef broken(:\n")  # unparsable: its bytes, so any edit counts
    broken = _fp(checkout, fonts)
    rel.write_text(text + "\ndef broken(:\n# edit\n")
    assert _fp(checkout, fonts) not in (before, broken)


# A package's face (`_face`): what it exports decides no verdict; what it runs does.
FACE_EDITS = {
    "a name exported from a module it imports": (
        "from ._a11y import PERF_ID as PERF_ID\n",
        "from ._a11y import PERF_ID as PERF_ID\nfrom ._a11y import A11Y_ID as OTHER_NAME\n",
        False,
    ),
    "the exports reordered": (
        "from ._a11y import A11Y_EVIDENCE as A11Y_EVIDENCE\nfrom ._a11y import A11Y_ID as A11Y_ID\n",
        "from ._a11y import A11Y_ID as A11Y_ID\nfrom ._a11y import A11Y_EVIDENCE as A11Y_EVIDENCE\n",
        False,
    ),
    "__all__ written": (
        "from ._a11y import PERF_ID as PERF_ID\n",
        "from ._a11y import PERF_ID as PERF_ID\n__all__ = ['PERF_ID']\n",
        False,
    ),
    "a module it imports no more": ("from ._a11y import ", "from ._reuse import ", True),
    "a statement that runs": (
        "from ._a11y import PERF_ID as PERF_ID\n",
        "from ._a11y import PERF_ID as PERF_ID\nPERF_ID = 'x'\n",
        True,
    ),
}


@pytest.mark.parametrize("edit", list(FACE_EDITS))
def test_a_packages_exports_leave_it_and_what_its_init_runs_changes_it(
    checkout: Path, fonts: tuple[str, ...], edit: str
) -> None:
    old, new, changes = FACE_EDITS[edit]
    init = checkout / "orchestrator" / "verifier" / "__init__.py"
    text = init.read_text()
    assert old in text
    before = _fp(checkout, fonts)
    init.write_text(text.replace(old, new))
    assert (_fp(checkout, fonts) != before) is changes


def test_a_new_verifier_module_changes_it(checkout: Path, fonts: tuple[str, ...]) -> None:
    before = _fp(checkout, fonts)
    (checkout / "orchestrator" / "verifier" / "_new_gate.py").write_text("X = 1\n")
    assert _fp(checkout, fonts) != before


@pytest.mark.parametrize(
    "rel",
    ["orchestrator/report/_markdown.py", "orchestrator/scoring.py"],
)
def test_code_that_decides_no_verdict_leaves_it(
    checkout: Path, fonts: tuple[str, ...], rel: str
) -> None:
    before = _fp(checkout, fonts)
    _flip_a_byte(checkout / rel)
    (checkout / "orchestrator" / "verifier" / "__pycache__").mkdir(exist_ok=True)
    (checkout / "orchestrator" / "verifier" / "__pycache__" / "x.pyc").write_bytes(b"\0")
    assert _fp(checkout, fonts) == before


def test_the_rendering_environment_and_the_image_inputs_change_it(
    checkout: Path, fonts: tuple[str, ...]
) -> None:
    before = _fp(checkout, fonts)
    assert _fp(checkout, fonts, browser="157") != before
    _flip_a_byte(Path(fonts[0]))
    after_font = _fp(checkout, fonts)
    assert after_font != before
    Path(fonts[1]).unlink()  # a missing pinned font: a fixed word, still a difference
    assert _fp(checkout, fonts) not in (before, after_font)
    Path(fonts[1]).write_bytes(b"font B.ttf")
    assert _fp(checkout, fonts) == after_font
    stack = sorted(p.parent for p in (checkout / "images").glob("*/Dockerfile"))[-1]
    _flip_a_byte(stack / "Dockerfile")
    assert _fp(checkout, fonts) != after_font


def test_the_agent_layer_is_no_stack_image_input(checkout: Path, fonts: tuple[str, ...]) -> None:
    """An admission runs no CLI agent: `images/_agent/` does not make another grader."""
    before = _fp(checkout, fonts)
    _flip_a_byte(checkout / "images" / "_agent" / "Dockerfile")
    assert _fp(checkout, fonts) == before


def test_chromium_major_is_a_number_or_unknown() -> None:
    got = chromium_major()
    assert got == "unknown" or got.isdigit()


def test_a_tasks_fingerprint_covers_its_own_stack_and_the_base_alone(
    checkout: Path, fonts: tuple[str, ...]
) -> None:
    """A new stack, or another stack's image inputs, leave a task's record current; its
    own stack's and the base image's change it. The store's key (`common`) holds no image."""

    def fp(stack: str) -> GraderParts:
        return grader_parts(checkout, stack=stack, fonts=fonts, browser=lambda: "156")

    static, php = fp("static"), fp("php")
    assert static.digest != php.digest and static.common == php.common
    _flip_a_byte(checkout / "images" / "php" / "Dockerfile")
    (checkout / "images" / "planted").mkdir()
    (checkout / "images" / "planted" / "Dockerfile").write_text("FROM pwb-base:bookworm\n")
    assert fp("static") == static and fp("php").digest != php.digest
    assert fp("php").common == php.common
    _flip_a_byte(checkout / "images" / "base" / "bootstrap.sh")
    assert fp("static").digest != static.digest and fp("static").common == static.common
