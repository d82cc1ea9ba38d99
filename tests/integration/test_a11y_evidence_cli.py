"""Accessibility from the evidence end to end (#53): `capture` writes `evidence/a11y.json`,
and `verify` — no baseline, no R0 run — grades accessibility continuity against it
(a static task on the local backend, real Chromium).

The task is the booking page of `tests/verifier/sites/a11y/`: R0 is `r0`, the reference
`ok` (a harmless edit: a new lede line, the links' focus ring moved to their nav). The
planted regression is the reference with every `:focus` outline removed (`focus`'s rule):
it fails `a11y-focus`, which no authored check sees. The same task without the file, or
with a malformed one, grades as before / stops in one line.
"""

from __future__ import annotations

import difflib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from orchestrator.contract import CANARY_LINE, load_task
from orchestrator.verifier import A11yEvidence

pytestmark = [pytest.mark.browser]
ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "tests" / "verifier" / "sites" / "a11y"
NO_RING = "*:focus, *:focus-visible { outline: none; }"

TOML = """# pwb-canary: 5b1f0c7e-pwb-grader-only
id = "book-a11y"
regime = "change"
capability = "edit"
facet = "content"
stack = "static"
framework = "vanilla"
allowed_paths = ["*.html"]

[serve]
start = "python3 -m http.server $PORT --bind 0.0.0.0"
ready_path = "/"

[[states]]
id = "home"
route = "/index.html"

[[states]]
id = "bad"
route = "/index.html"
actions = [
  { do = "fill", selector = "#name", value = "Ada" },
  { do = "select", selector = "#day", value = "tue" },
  { do = "click", selector = "#send" },
]

[[checks]]
id = "lede-hours"
gate = "text"
state = "home"
assert = { kind = "text_contains", selector = "main", value = "Classes start at nine." }
describe = "The page says classes start at nine."

[[checks]]
id = "error-shown"
gate = "regression_text"
state = "bad"
assert = { kind = "text_contains", selector = "#error", value = "Enter your email" }
describe = "The form asks for the missing email."

[[units]]
id = "u1"
request = "Say on the booking page that classes start at nine."
checks = ["lede-hours"]
"""


def orch(*args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "orchestrator", *args]
    return subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def _page(variant: str) -> str:
    return (SITE / variant / "index.html").read_text()


@pytest.fixture(scope="module")
def captured(require_chromium: None, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The task package, captured (R0 and reference, `evidence/a11y.json` among them)."""
    root = tmp_path_factory.mktemp("tasks") / "book-a11y"
    (root / "repo").mkdir(parents=True)
    (root / "repo" / "index.html").write_text(_page("r0"))
    (root / "task.toml").write_text(TOML)
    diff = difflib.unified_diff(
        _page("r0").splitlines(keepends=True),
        _page("ok").splitlines(keepends=True),
        fromfile="a/index.html",
        tofile="b/index.html",
    )
    (root / "reference").mkdir()
    (root / "reference" / "u1.patch").write_text(CANARY_LINE + "".join(diff))
    cap = orch("capture", str(root), "--backend", "local")
    assert cap.returncode == 0, cap.stdout + cap.stderr
    return root


def _workspace(tmp: Path, name: str, html: str) -> Path:
    ws = tmp / name
    ws.mkdir()
    (ws / "index.html").write_text(html)
    return ws


def _verify(task: Path, ws: Path) -> subprocess.CompletedProcess[str]:
    return orch("verify", str(task), "--workspace", str(ws), "--backend", "local")


def _planted() -> str:
    ok = _page("ok")
    assert "</style>" in ok
    return ok.replace("</style>", f"{NO_RING}\n</style>", 1)


def test_capture_writes_both_sides_snapshots(captured: Path) -> None:
    task = load_task(captured)
    data = (captured / "evidence" / "a11y.json").read_bytes()
    ev = msgspec.json.decode(data, type=A11yEvidence)
    assert set(ev.r0) == set(ev.reference) == {"home", "bad"}
    home = ev.reference["home"]
    assert not home.axe_error and home.passes and home.focus and all(f.visible for f in home.focus)
    assert ev.r0["bad"].error_path and ev.r0["bad"].live  # the form's alert, announced
    assert task.contract_hash  # the package, evidence included, still loads


def test_verify_grades_accessibility_against_the_evidence(captured: Path, tmp_path: Path) -> None:
    ref = _verify(captured, _workspace(tmp_path, "ref", _page("ok")))
    assert ref.returncode == 0, ref.stdout + ref.stderr
    assert "a11y-" not in ref.stdout

    bad = _verify(captured, _workspace(tmp_path, "bad", _planted()))
    assert bad.returncode == 1, bad.stdout + bad.stderr
    table = {
        line.split()[0]: line.split()[1:] for line in bad.stdout.splitlines() if line[:1] != " "
    }
    assert table["visual_anchors"][0] == "fail" and "a11y-focus@home" in table["visual_anchors"]
    fail = next(line for line in bad.stdout.splitlines() if "FAIL a11y-focus@home" in line)
    # R0 and the reference are both bases; the message names the one it read last.
    assert "input#name: outline none, box-shadow none, same as unfocused" in fail, fail
    assert "(in the reference at this state focus showed: outline none -> auto" in fail
    # Nothing an authored check reads changed: only the accessibility rule fails.
    failed = {line.split()[1] for line in bad.stdout.splitlines() if line.startswith("  FAIL ")}
    assert failed and all(c.startswith("a11y-focus@") for c in failed), failed


def test_a_recapture_of_the_same_render_is_byte_identical(captured: Path, tmp_path: Path) -> None:
    task = tmp_path / "tasks" / captured.name
    shutil.copytree(captured, task)
    cap = orch("capture", str(task), "--backend", "local")
    assert cap.returncode == 0, cap.stdout + cap.stderr
    before = (captured / "evidence" / "a11y.json").read_bytes()
    assert (task / "evidence" / "a11y.json").read_bytes() == before


def test_without_evidence_verify_grades_as_before(captured: Path, tmp_path: Path) -> None:
    """No `evidence/a11y.json`: no base, no accessibility check; the regression passes."""
    task = tmp_path / "tasks" / captured.name
    shutil.copytree(captured, task)
    (task / "evidence" / "a11y.json").unlink()
    bad = _verify(task, _workspace(tmp_path, "bad", _planted()))
    assert bad.returncode == 0, bad.stdout + bad.stderr
    assert "a11y-" not in bad.stdout


def test_a_tampered_evidence_file_stops_verify_in_one_line(captured: Path, tmp_path: Path) -> None:
    task = tmp_path / "tasks" / captured.name
    shutil.copytree(captured, task)
    path = task / "evidence" / "a11y.json"
    path.write_text(path.read_text().replace('"visible": true', '"visible": "yes"', 1))
    got = _verify(task, _workspace(tmp_path, "ref", _page("ok")))
    assert got.returncode == 2, got.stdout + got.stderr
    lines = got.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{path}:"), got.stderr
    assert "expected `bool`, got `str`" in lines[0]
    assert got.stdout == ""  # nothing was graded
