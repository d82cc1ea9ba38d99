"""The workspace path guards (orchestrator/workspace/_paths.py) called directly, without
git or a sandbox: the string rules, the no-follow walk, the leaf rules (issue #18)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from orchestrator.workspace import PathRefused, WorkspaceError
from orchestrator.workspace import _paths as paths


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = tmp_path / "ws"
    (r / "css").mkdir(parents=True)
    (r / "css" / "site.css").write_text("h1 {}\n")
    (r / "index.html").write_text("<h1>Hi</h1>\n")
    return r


@pytest.mark.parametrize(
    "path", [".git", ".git/config", "css/.git", "css/.git/config", "a/b/.GIT/x", "public/.Git"]
)
def test_git_segment_is_refused_at_any_depth(root: Path, path: str) -> None:
    with pytest.raises(PathRefused, match=r"\.git is not part of the workspace"):
        paths.write_file(root, path, b"gitdir: /etc\n")
    with pytest.raises(PathRefused, match=r"\.git is not part of the workspace"):
        paths.read_file(root, path, 100)
    assert not any(p.name.lower() == ".git" for p in root.rglob("*"))


def test_names_that_only_contain_git_are_files_like_any_other(root: Path) -> None:
    for name in (".gitignore", "css/.github", "git", "css/x.git.bak"):
        paths.write_file(root, name, b"x")
        assert paths.read_file(root, name, 10) == b"x"
    assert paths.is_git_name(".GIT") and not paths.is_git_name(".gitx")


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("", "empty path"),
        (" index.html", "surrounding whitespace"),
        ("index.html\n", "surrounding whitespace"),
        ("a\0b", "NUL"),
        ("/etc/passwd", "absolute paths are not allowed"),
        ("../x", "'..' is not allowed"),
        ("css/../../x", "'..' is not allowed"),
        ("css/..", "'..' is not allowed"),
    ],
)
def test_path_strings_outside_the_rules_are_refused(root: Path, path: str, why: str) -> None:
    with pytest.raises(PathRefused, match=why.replace(".", r"\.")):
        paths.split(path)


def test_split_drops_empty_and_dot_segments() -> None:
    assert paths.split("css//./site.css") == ("css", "site.css")
    assert paths.split(".") == ()
    assert paths.split("a/b/") == ("a", "b")


def test_symlink_escape_is_refused(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "secret"
    outside.mkdir()
    (outside / "key").write_text("SECRET")
    (root / "css" / "link").symlink_to(outside)
    (root / "leak.html").symlink_to(outside / "key")
    for path in ("css/link/evil.css", "css/link/key"):
        with pytest.raises(PathRefused, match="is a link; links are not followed"):
            paths.write_file(root, path, b"x")
    with pytest.raises(PathRefused, match="'css/link' is a link"):
        paths.read_file(root, "css/link/key", 100)
    with pytest.raises(PathRefused, match="it is a link"):
        paths.read_file(root, "leak.html", 100)
    with pytest.raises(PathRefused, match="it is a link"):
        paths.write_file(root, "leak.html", b"x")
    with pytest.raises(PathRefused, match="it is a link"):
        paths.edit_file(root, "leak.html", "SECRET", "x", 100)
    assert not (outside / "evil.css").exists()
    assert (outside / "key").read_text() == "SECRET"


def test_hard_links_and_special_files_are_refused_for_writes(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "target.txt"
    outside.write_text("KEEP")
    os.link(outside, root / "hard.html")
    with pytest.raises(PathRefused, match="several hard links"):
        paths.write_file(root, "hard.html", b"x")
    with pytest.raises(PathRefused, match="several hard links"):
        paths.edit_file(root, "hard.html", "KEEP", "x", 100)
    assert outside.read_text() == "KEEP"
    assert paths.read_file(root, "hard.html", 100) == b"KEEP"  # reading one is harmless
    os.mkfifo(root / "pipe")
    with pytest.raises(PathRefused, match="not a regular file"):
        paths.read_file(root, "pipe", 100)


def test_missing_files_folders_and_a_file_in_place_of_a_folder(root: Path) -> None:
    with pytest.raises(WorkspaceError, match=r"no such file: 'nope\.html'"):
        paths.read_file(root, "nope.html", 10)
    with pytest.raises(WorkspaceError, match="no such folder: 'x'"):
        paths.read_file(root, "x/y.html", 10)
    with pytest.raises(WorkspaceError, match=r"'index\.html' is not a folder"):
        paths.write_file(root, "index.html/x", b"x")
    with pytest.raises(PathRefused, match="refused 'css': it is a folder"):
        paths.read_file(root, "css", 10)
    with pytest.raises(WorkspaceError, match="'css' is a folder, not a file"):
        paths.write_file(root, "css", b"x")
    with pytest.raises(WorkspaceError, match="is a folder, not a file"):
        paths.write_file(root, ".", b"x")
    with pytest.raises(WorkspaceError, match="no such file"):
        paths.delete_file(root, "css")
    with pytest.raises(WorkspaceError, match="no such file: 'gone'"):
        paths.delete_file(root, "gone")


def test_write_creates_folders_and_replaces_the_whole_file(root: Path) -> None:
    paths.write_file(root, "a/b/c.html", b"long content here")
    paths.write_file(root, "a/b/c.html", b"short")
    assert (root / "a" / "b" / "c.html").read_bytes() == b"short"
    assert paths.read_file(root, "a/b/c.html", 3) == b"sho"  # the read limit holds
    assert paths.read_file(root, "a/b/c.html", 0) == b""


def test_edit_needs_exactly_one_anchor_and_utf8(root: Path) -> None:
    (root / "two.html").write_text("<p>a</p><p>a</p>")
    with pytest.raises(WorkspaceError, match="search text found 2 times"):
        paths.edit_file(root, "two.html", "<p>a</p>", "x", 1000)
    with pytest.raises(WorkspaceError, match="search text not found"):
        paths.edit_file(root, "two.html", "<p>b</p>", "x", 1000)
    with pytest.raises(WorkspaceError, match="search text not found"):
        paths.edit_file(root, "two.html", "", "x", 1000)
    with pytest.raises(WorkspaceError, match="file is over 5 bytes"):
        paths.edit_file(root, "two.html", "<p>a</p>", "x", 5)
    (root / "bin.html").write_bytes(b"\xff\xfe")
    with pytest.raises(WorkspaceError, match="not UTF-8 text"):
        paths.edit_file(root, "bin.html", "a", "b", 100)
    paths.edit_file(root, "index.html", "Hi", "Hello there, everyone", 1000)
    assert (root / "index.html").read_text() == "<h1>Hello there, everyone</h1>\n"
    paths.edit_file(root, "index.html", "Hello there, everyone", "Yo", 1000)
    assert (root / "index.html").read_text() == "<h1>Yo</h1>\n"


def test_delete_unlinks_a_link_never_its_target(root: Path, tmp_path: Path) -> None:
    target = tmp_path / "t.txt"
    target.write_text("KEEP")
    (root / "l.html").symlink_to(target)
    paths.delete_file(root, "l.html")
    assert not (root / "l.html").is_symlink() and target.read_text() == "KEEP"
    paths.delete_file(root, "css/site.css")
    assert not (root / "css" / "site.css").exists()


@pytest.mark.parametrize(
    ("pattern", "yes", "no"),
    [
        ("*.html", ["index.html", ".x.html"], ["css/a.html", "index.htm", "index.html.bak"]),
        ("css/**", ["css/a.css", "css/a/b/c.css"], ["css", "js/css/a.css", "xcss/a"]),
        ("**/*.css", ["a.css", "x/y/a.css"], ["a.cssx", "a/css"]),
        ("img/?.png", ["img/a.png"], ["img/ab.png", "img//.png", "img/a/png"]),
        ("a+b.html", ["a+b.html"], ["aab.html"]),
    ],
)
def test_allowed_path_globs(pattern: str, yes: list[str], no: list[str]) -> None:
    for p in yes:
        assert paths.path_allowed(p, [pattern]), p
    for p in no:
        assert not paths.path_allowed(p, [pattern]), p
    assert paths.path_allowed("x", ["nope", "x"]) and not paths.path_allowed("x", [])


def test_refusals_name_the_path_and_the_component(root: Path, tmp_path: Path) -> None:
    (root / "css" / "link").symlink_to(tmp_path)
    with pytest.raises(PathRefused) as err:
        paths.write_file(root, "css/link/a/b.css", b"x")
    assert str(err.value) == (
        "refused 'css/link/a/b.css': 'css/link' is a link; links are not followed"
    )
    with pytest.raises(WorkspaceError) as err2:
        paths.edit_file(root, "index.html/x", "a", "b", 100)
    assert str(err2.value) == "refused 'index.html/x': 'index.html' is not a folder"
    with pytest.raises(WorkspaceError) as err3:
        paths.edit_file(root, "css/none.css", "a", "b", 100)
    assert str(err3.value) == "no such file: 'css/none.css'"
    with pytest.raises(WorkspaceError) as err4:
        paths.delete_file(root, ".")
    assert str(err4.value) == "no such file: '.'"
    with pytest.raises(WorkspaceError) as err5:
        paths.delete_file(root, "css/x/")
    assert str(err5.value) == "no such file: 'css/x/'"
    with pytest.raises(WorkspaceError) as err6:
        paths.delete_file(root, "css")
    assert str(err6.value) == "no such file: 'css'"


def test_leaf_refusals_say_exactly_why(root: Path, tmp_path: Path) -> None:
    os.mkfifo(root / "pipe")
    with pytest.raises(PathRefused) as err:
        paths.read_file(root, "pipe", 10)
    assert str(err.value) == "refused 'pipe': it is not a regular file"
    outside = tmp_path / "t.txt"
    outside.write_text("KEEP")
    os.link(outside, root / "hard.html")
    with pytest.raises(PathRefused) as err2:
        paths.write_file(root, "hard.html", b"x")
    assert str(err2.value) == "refused 'hard.html': it is a file with several hard links"


def test_failed_edits_and_deletes_create_no_folders(root: Path) -> None:
    for call in (
        lambda: paths.edit_file(root, "new/x.html", "a", "b", 100),
        lambda: paths.delete_file(root, "gone/x.html"),
        lambda: paths.read_file(root, "nope/x.html", 100),
    ):
        with pytest.raises(WorkspaceError, match="no such folder"):
            call()
    assert sorted(p.name for p in root.iterdir()) == ["css", "index.html"]


def test_new_files_are_0644_and_a_rewrite_can_empty_a_file(root: Path) -> None:
    old = os.umask(0o022)
    try:
        paths.write_file(root, "css/new.css", b"x")
    finally:
        os.umask(old)
    assert (root / "css" / "new.css").stat().st_mode & 0o777 == 0o644
    paths.write_file(root, "css/new.css", b"")
    assert (root / "css" / "new.css").read_bytes() == b""


def test_edit_limit_is_inclusive(root: Path) -> None:
    size = (root / "index.html").stat().st_size
    paths.edit_file(root, "index.html", "Hi", "Ho", size)
    assert (root / "index.html").read_text() == "<h1>Ho</h1>\n"
    with pytest.raises(WorkspaceError, match=f"file is over {size - 1} bytes"):
        paths.edit_file(root, "index.html", "Ho", "Hi", size - 1)


def test_the_root_itself_is_a_folder_not_a_file(root: Path) -> None:
    for do in (
        lambda: paths.read_file(root, ".", 10),
        lambda: paths.edit_file(root, ".", "a", "b", 10),
        lambda: paths.write_file(root, ".", b"x"),
    ):
        with pytest.raises(WorkspaceError) as err:
            do()
        assert str(err.value) == "'.' is a folder, not a file"


def test_reads_and_deletes_through_a_linked_folder_name_the_whole_path(root: Path) -> None:
    (root / "lnk").symlink_to(root / "css")
    want = "refused 'lnk/site.css': 'lnk' is a link; links are not followed"
    for do in (
        lambda: paths.read_file(root, "lnk/site.css", 10),
        lambda: paths.delete_file(root, "lnk/site.css"),
    ):
        with pytest.raises(PathRefused) as err:
            do()
        assert str(err.value) == want
    assert (root / "css" / "site.css").is_file()


def test_a_read_longer_than_one_chunk_is_whole(root: Path) -> None:
    data = bytes(range(256)) * 4096 + b"!"  # 1 MiB + 1: two reads of at most 1 MiB
    (root / "big.bin").write_bytes(data)
    assert paths.read_file(root, "big.bin", len(data)) == data
    assert paths.read_file(root, "big.bin", len(data) - 1) == data[:-1]


def test_replace_file_never_writes_through_a_hard_link(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("host file\n")
    os.link(outside, root / "README.md")
    paths.replace_file(root, "README.md", b"new\n")
    assert outside.read_text() == "host file\n"
    assert (root / "README.md").read_bytes() == b"new\n"
    assert os.stat(root / "README.md").st_nlink == 1
