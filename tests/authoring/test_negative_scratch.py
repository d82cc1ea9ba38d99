"""`negative TASK NAME` (#54's kit): a scratch tree of the reference through a unit, and
`--save` writes the author's change as a patch admission applies to the same tree, with
its `[[negatives]]` entry; every wrong input is refused in one line and writes nothing."""

from __future__ import annotations

import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from orchestrator.authoring import R0, ScratchError, open_scratch, save_scratch
from orchestrator.cli import main
from orchestrator.contract import CANARY_LINE, TaskPackage, load_task

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "tasks" / "brackenfold-kiln-classes"  # 3 units, an eleventy site
STYLESHEET = "src/css/site.css"


@pytest.fixture
def task(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> TaskPackage:
    """A copy of a shipped task (its negatives folder emptied), and git with no config."""
    for var, value in {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null"}.items():
        monkeypatch.setenv(var, value)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = tmp_path / "tasks" / SHIPPED.name
    for part in ("repo", "reference", "negatives"):
        shutil.copytree(SHIPPED / part, root / part)
    shutil.copyfile(SHIPPED / "task.toml", root / "task.toml")
    return load_task(root)


def _admission_tree(task: TaskPackage, after: str, patch: Path, into: Path) -> Path:
    """What admission serves for a negative, built apart: R0, the reference patches
    through `after`, then the negative's patch (`Admitter.suite_on`'s order)."""
    shutil.copytree(task.repo, into)
    units = [u.id for u in task.contract.units]
    through = [] if after == R0 else units[: units.index(after) + 1]
    for p in [*(task.reference_patch(u) for u in through), patch]:
        subprocess.run(["git", "apply", "--whitespace=nowarn", str(p)], cwd=into, check=True)
    return into


def _files(tree: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(tree)): p.read_bytes()
        for p in sorted(tree.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(tree).parts
    }


@pytest.mark.parametrize("after", ["u3", "u1", R0])
def test_a_saved_negative_is_what_admission_will_serve(
    task: TaskPackage, tmp_path: Path, after: str
) -> None:
    tree = open_scratch(task, "broken-focus", after, tmp_path / "scratch")
    log = subprocess.run(["git", "log", "--format=%s"], cwd=tree, capture_output=True, text=True)
    units = [u.id for u in task.contract.units]
    through = [] if after == R0 else units[: units.index(after) + 1]
    assert log.stdout.split() == [*reversed(through), R0]
    with (tree / STYLESHEET).open("a") as css:
        css.write("a:focus { outline: none; }\n")
    (tree / "src" / "new-page.md").write_text("# A page the negative adds\n")
    saved = save_scratch(task, "broken-focus", tree, ["visual_anchors"], "no ring", force=False)

    assert saved.path == task.negative_patch("broken-focus")
    assert saved.path.read_text().startswith(CANARY_LINE + "diff --git")
    built = _admission_tree(task, after, saved.path, tmp_path / "admission")
    assert _files(built) == _files(tree)
    (entry,) = tomllib.loads(saved.toml)["negatives"]
    expected = {"name": "broken-focus", "expect_fail": ["visual_anchors"], "why": "no ring"}
    if after != R0:
        expected["after_unit"] = after
    assert entry == expected


def test_the_command_opens_then_saves_in_the_cache(
    task: TaskPackage, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Through the CLI, the default tree (under the cache) and the default unit (the last)."""
    assert main(["negative", str(task.root), "nowrap-badge"]) == 0
    tree = Path(capsys.readouterr().out.split(":")[0])
    assert tree == tmp_path / "cache" / "pwb" / "negatives" / task.contract.id / "nowrap-badge"
    with (tree / STYLESHEET).open("a") as css:
        css.write(".places { white-space: nowrap; }\n")
    args = ["negative", str(task.root), "nowrap-badge", "--save", "--expect", "layout_overflow"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert 'after_unit = "u3"' in out and 'expect_fail = ["layout_overflow"]' in out
    assert task.negative_patch("nowrap-badge").is_file()


def _refused(task: TaskPackage, tmp_path: Path, planted: str) -> str:
    tree = tmp_path / "scratch"
    open_scratch(task, "broken", "u3", tree)
    (tree / STYLESHEET).write_text("body { color: red }\n")
    gates, name, force = ["text"], "broken", False
    if planted == "an unknown gate":
        gates = ["text", "vibes"]
    elif planted == "no gate":
        gates = []
    elif planted == "nothing changed":
        subprocess.run(["git", "checkout", "--", "."], cwd=tree, check=True)
    elif planted == "another negative's tree":
        name = "other"
    elif planted == "not a scratch tree":
        shutil.rmtree(tree / ".git")
    elif planted == "a reference changed since":
        task.reference_patch("u2").write_text(CANARY_LINE)  # u3 no longer applies
    with pytest.raises(ScratchError) as exc:
        save_scratch(task, name, tree, gates, "", force=force)
    return str(exc.value)


@pytest.mark.parametrize(
    ("planted", "said"),
    [
        ("an unknown gate", "unknown gate(s) ['vibes']"),
        ("no gate", "name the gate(s)"),
        ("nothing changed", "nothing changed since the reference"),
        ("a patch there", "exists (--force to replace it)"),
        ("another negative's tree", "opened for brackenfold-kiln-classes/broken"),
        ("not a scratch tree", "no scratch tree"),
        ("a reference changed since", "git apply"),
    ],
)
def test_a_wrong_save_is_refused_in_one_line_and_writes_nothing(
    task: TaskPackage, tmp_path: Path, planted: str, said: str
) -> None:
    if planted == "a patch there":
        task.negative_patch("broken").write_text("kept\n")
    before = _files(task.root / "negatives")
    message = _refused(task, tmp_path, planted)
    assert said in message and "\n" not in message
    assert _files(task.root / "negatives") == before


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--after", "u9"], "--after 'u9': expected r0 or one of"),
        (["--dir", "{full}"], "not empty"),
    ],
    ids=["no such unit", "a tree there"],
)
def test_a_wrong_open_is_refused_and_leaves_the_tree(
    task: TaskPackage,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    said: str,
) -> None:
    full = tmp_path / "full"
    full.mkdir()
    (full / "mine.txt").write_text("the author's\n")
    args = [a.replace("{full}", str(full)) for a in args]
    assert main(["negative", str(task.root), "x-y", *args]) == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1
    assert _files(full) == {"mine.txt": b"the author's\n"}


def test_a_name_that_escapes_the_folder_is_refused(
    task: TaskPackage, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["negative", str(task.root), "../escape"]) == 2
    assert "expected" in capsys.readouterr().err
    assert not (task.root / "escape.patch").exists()


def test_negatives_listed_before_their_patches_are_made_one_by_one(
    task: TaskPackage, capsys: pytest.CaptureFixture[str]
) -> None:
    """An author who wrote task.toml's [[negatives]] first can still make each patch with
    `negative` (session 29: it refused the package until the block was cut out)."""
    listed = [n.name for n in task.contract.negatives]
    for name in listed[:2]:
        task.negative_patch(name).unlink()
    with pytest.raises(Exception, match="missing file"):
        load_task(task.root)  # what every other command still says
    name = listed[0]
    assert main(["negative", str(task.root), name]) == 0
    tree = Path(capsys.readouterr().out.split(":")[0])
    with (tree / STYLESHEET).open("a") as css:
        css.write(".places { white-space: nowrap; }\n")
    assert main(["negative", str(task.root), name, "--save", "--expect", "layout_overflow"]) == 0
    assert task.negative_patch(name).is_file() and not task.negative_patch(listed[1]).exists()
    # Any other problem is refused as before, in one line naming it.
    task.reference_patch("u2").unlink()
    capsys.readouterr()
    assert main(["negative", str(task.root), "another"]) == 2
    assert "reference/u2.patch" in capsys.readouterr().err
