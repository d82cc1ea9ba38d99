"""The workspace's tools and harness-side operations (issue #35, `workspace/_workspace.py`):
what each tool reports to the edit listener, the refusal texts, the disk check's bound,
patches, the reset, the repository's own guards and `attach`."""

from __future__ import annotations

import errno
import os
import subprocess
import time
from pathlib import Path

import anyio
import pytest

from orchestrator.workspace import (
    PROMPT_FILE,
    DiskLimitExceeded,
    EditEvent,
    PatchError,
    PathRefused,
    Workspace,
    WorkspaceError,
    _walk,
    _workspace,
)
from tests.slowness import bound

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _ws(tmp_path: Path, events: list[EditEvent] | None = None) -> Workspace:
    r0 = tmp_path / "r0"
    (r0 / "css").mkdir(parents=True)
    (r0 / "index.html").write_text("<h1>Hi</h1>\n")
    (r0 / "css" / "site.css").write_text("h1 { color: red; }\n")
    (r0 / "server.js").write_text("// not allowed\n")
    for skipped in (".git", "node_modules", "dist", "__pycache__"):
        (r0 / skipped).mkdir()
        (r0 / skipped / "x").write_text("never copied\n")
    ws = await Workspace.create(r0, tmp_path / "cell" / "ws", ["*.html", "css/**"])
    if events is not None:
        ws.listener = events.append
    return ws


async def test_create_copies_r0_without_build_output_or_git(tmp_path: Path) -> None:
    ws = await _ws(tmp_path)
    assert await ws.list_files() == ["css/site.css", "index.html", "server.js"]
    assert (tmp_path / "cell" / "ws").is_symlink()
    assert (tmp_path / "cell" / "ws").resolve() == ws.root
    assert ws.root.name == "tree" and ws.git_dir == ws.root.parent / "git"
    assert await ws.changed_paths() == [] and await ws.scope_violations() == ()
    assert await ws.patch() == b"" and await ws.diff() == ""


async def test_create_refuses_an_existing_destination(tmp_path: Path) -> None:
    ws = await _ws(tmp_path)
    dest = tmp_path / "cell" / "ws"
    with pytest.raises(WorkspaceError, match=rf"^workspace {dest} already exists$"):
        await Workspace.create(tmp_path / "r0", dest, ["**"])
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "nowhere")
    with pytest.raises(WorkspaceError, match="already exists"):
        await Workspace.create(tmp_path / "r0", dangling, ["**"])
    assert ws.root.is_dir()


async def test_every_tool_reports_what_it_did_to_the_listener(tmp_path: Path) -> None:
    events: list[EditEvent] = []
    ws = await _ws(tmp_path, events)
    await ws.write_file("./css//new.css", "p {}\n")
    await ws.edit("index.html", "Hi", "Hello")
    await ws.delete_file("css/new.css")
    with pytest.raises(PathRefused):
        await ws.write_file("server.js", "x")
    with pytest.raises(WorkspaceError):
        await ws.edit("index.html", "absent", "x")
    assert events == [
        EditEvent(op="write", path="css/new.css", applied=True),
        EditEvent(op="edit", path="index.html", applied=True),
        EditEvent(op="delete", path="css/new.css", applied=True),
        EditEvent(
            op="write",
            path="server.js",
            applied=False,
            reason="refused 'server.js': outside allowed paths (*.html, css/**)",
        ),
        EditEvent(op="edit", path="index.html", applied=False, reason=events[-1].reason),
    ]
    assert events[-1].reason
    assert await ws.read_file("index.html") == "<h1>Hello</h1>\n"


async def test_a_tool_without_a_listener_still_works(tmp_path: Path) -> None:
    ws = await _ws(tmp_path)
    await ws.write_file("css/a.css", "a {}")
    with pytest.raises(PathRefused):
        await ws.write_file("server.js", "x")
    assert await ws.read_file("css/a.css") == "a {}"


@pytest.mark.parametrize("path", [".", "./", "css/.."])
async def test_a_write_needs_a_file_path(tmp_path: Path, path: str) -> None:
    events: list[EditEvent] = []
    ws = await _ws(tmp_path, events)
    with pytest.raises(PathRefused) as info:
        await ws.write_file(path, "x")
    if path != "css/..":
        assert str(info.value) == f"refused {path!r}: not a file path"
    assert [(e.op, e.applied, e.reason) for e in events] == [("write", False, str(info.value))]


async def test_read_file_replaces_undecodable_bytes(tmp_path: Path) -> None:
    ws = await _ws(tmp_path)
    (ws.root / "raw.html").write_bytes(b"caf\xe9 \xc3\xa9")
    assert await ws.read_file("raw.html") == "caf\ufffd é"
    await ws.write_file("u.html", "é")
    assert (ws.root / "u.html").read_bytes() == "é".encode()


async def test_an_invalid_search_pattern_is_named(tmp_path: Path) -> None:
    ws = await _ws(tmp_path)
    with pytest.raises(WorkspaceError, match=r"^invalid search pattern '\(h1': missing \)"):
        await ws.search("(h1")
    hits = await ws.search(r"h1", under="css")
    assert [(h.path, h.line) for h in hits] == [("css/site.css", 1)]


async def test_the_disk_check_allows_exactly_the_limit(tmp_path: Path) -> None:
    ws = await _ws(tmp_path)
    used = await ws.disk_usage()
    assert used > 0
    await ws.check_disk(used)
    with pytest.raises(DiskLimitExceeded) as info:
        await ws.check_disk(used - 1)
    assert (info.value.used, info.value.limit) == (used, used - 1)


async def test_a_patch_applies_and_is_reported(tmp_path: Path) -> None:
    events: list[EditEvent] = []
    ws = await _ws(tmp_path, events)
    await ws.write_file("index.html", "<h1>Patched</h1>\n")
    patch = tmp_path / "good.patch"
    patch.write_bytes(await ws.patch())
    assert await ws.diff() == patch.read_text()
    await ws.reset_to_r0()
    events.clear()
    await ws.apply_patch(patch)
    assert await ws.read_file("index.html") == "<h1>Patched</h1>\n"
    assert events == [EditEvent(op="patch", path="good.patch", applied=True)]


async def test_a_patch_that_does_not_apply_names_why_without_the_git_prefix(
    tmp_path: Path,
) -> None:
    events: list[EditEvent] = []
    ws = await _ws(tmp_path, events)
    bad = tmp_path / "bad.patch"
    bad.write_text("--- a/index.html\n+++ b/index.html\n@@ -1 +1 @@\n-<h1>No</h1>\n+<h1>X</h1>\n")
    with pytest.raises(PatchError) as info:
        await ws.apply_patch(bad)
    (event,) = events
    assert (event.op, event.path, event.applied) == ("patch", "bad.patch", False)
    assert "patch does not apply" in event.reason
    assert not event.reason.startswith("git apply failed")
    assert str(info.value) == f"bad.patch: does not apply: {event.reason}"


async def test_reset_to_r0_keeps_installed_and_built_output_and_the_prompt(
    tmp_path: Path,
) -> None:
    ws = await _ws(tmp_path)
    await ws.write_file("index.html", "changed")
    await ws.write_file("css/extra.css", "new")
    for kept in ("node_modules/m.js", "dist/app.js", PROMPT_FILE):
        (ws.root / kept).parent.mkdir(exist_ok=True)
        (ws.root / kept).write_text("kept")
    (ws.root / "stray.txt").write_text("gone")
    await ws.reset_to_r0()
    assert await ws.read_file("index.html") == "<h1>Hi</h1>\n"
    assert not (ws.root / "css" / "extra.css").exists()
    assert not (ws.root / "stray.txt").exists()
    for kept in ("node_modules/m.js", "dist/app.js", PROMPT_FILE):
        assert (ws.root / kept).read_text() == "kept"


async def test_the_prompt_file_is_written_and_removed_once(tmp_path: Path) -> None:
    ws = await _ws(tmp_path)
    assert await ws.write_prompt("do it") == PROMPT_FILE
    assert (ws.root / PROMPT_FILE).read_text() == "do it"
    await ws.remove_prompt()
    assert not (ws.root / PROMPT_FILE).exists()
    await ws.remove_prompt()  # already gone: not an error


async def test_changes_and_scope_are_read_against_r0(tmp_path: Path) -> None:
    ws = await _ws(tmp_path)
    (ws.root / "server.js").unlink()
    await ws.write_file("css/b.css", "b")
    (ws.root / "notes.txt").write_text("n")
    assert await ws.changed_paths() == ["css/b.css", "notes.txt", "server.js"]
    assert await ws.scope_violations() == ("notes.txt", "server.js")
    assert ws.patch_now() == await ws.patch()
    assert b"notes.txt" in ws.patch_now()


async def test_a_tampered_git_config_is_put_back_before_each_command(tmp_path: Path) -> None:
    ws = await _ws(tmp_path)
    config = ws.git_dir / "config"
    original = config.read_bytes()
    config.write_text("[core]\n\tfsmonitor = touch /tmp/pwned-by-config\n")
    await ws.write_file("index.html", "x")
    await ws.changed_paths()
    assert config.read_bytes() == original
    config.unlink()
    ws.patch_now()
    assert config.read_bytes() == original
    config.write_text("junk")
    assert ws.patch_now() == await ws.patch()
    assert config.read_bytes() == original


async def test_a_missing_repository_or_tree_is_an_error(tmp_path: Path) -> None:
    ws = await _ws(tmp_path)
    (ws.git_dir / "HEAD").unlink()
    with pytest.raises(WorkspaceError, match=r"^the workspace repository is missing$"):
        await ws.patch()
    with pytest.raises(WorkspaceError, match=r"^the workspace repository is missing$"):
        ws.patch_now()
    ws2 = await _ws(tmp_path / "two")
    ws2.root.rename(ws2.root.with_name("moved"))
    for read in (ws2.tree_id, ws2.file_index, ws2.patch):
        with pytest.raises(WorkspaceError, match=r"^cannot read the work tree: No such file"):
            await read()
    with pytest.raises(WorkspaceError, match=r"^cannot read the work tree: No such file"):
        ws2.patch_now()


async def test_tree_id_and_file_index_agree(tmp_path: Path) -> None:
    ws = await _ws(tmp_path)
    tree, index = await ws.file_index()
    assert tree == await ws.tree_id()
    assert {"index.html", "css/site.css", "server.js"} <= set(index)


async def test_attach_finds_a_workspace_by_its_tree_or_cell_link(tmp_path: Path) -> None:
    ws = await _ws(tmp_path)
    await ws.write_file("index.html", "changed")
    config = (ws.git_dir / "config").read_bytes()
    for tree in (ws.root, tmp_path / "cell" / "ws"):
        again = Workspace.attach(tree, ["*.html"])
        assert again is not None
        assert (again.root, again.git_dir, again.allowed_paths) == (
            ws.root,
            ws.git_dir,
            ("*.html",),
        )
        assert await again.changed_paths() == ["index.html"]
        # An attached workspace knows no config of its own: it leaves the file alone.
        assert (ws.git_dir / "config").read_bytes() == config
    assert Workspace.attach(tmp_path / "r0", ["**"]) is None
    (ws.git_dir / "HEAD").unlink()
    assert Workspace.attach(ws.root, ["**"]) is None


async def test_discard_removes_tree_and_repository(tmp_path: Path) -> None:
    ws = await _ws(tmp_path)
    home = ws.root.parent
    await ws.discard()
    assert not home.exists() and not ws.git_dir.exists()


async def test_the_repository_is_bare_private_and_in_the_given_store(tmp_path: Path) -> None:
    r0 = tmp_path / "r0"
    (r0 / "img").mkdir(parents=True)
    (r0 / "img" / "logo.svg").write_text("<svg/>")
    (r0 / "logo.svg").symlink_to("img/logo.svg")
    store = tmp_path / "store"
    dest = tmp_path / "a" / "b" / "ws"  # its parents do not exist yet
    ws = await Workspace.create(r0, dest, ["**"], store=store)
    assert ws.root.is_relative_to(store) and dest.resolve() == ws.root
    assert (ws.git_dir.stat().st_mode & 0o777) == 0o700
    bare = subprocess.run(
        ["git", f"--git-dir={ws.git_dir}", "config", "core.bare"], capture_output=True, text=True
    )
    assert bare.stdout.strip() == "true"
    # R0's own links are copied as links, never followed.
    assert (ws.root / "logo.svg").is_symlink()
    assert os.readlink(ws.root / "logo.svg") == "img/logo.svg"


async def test_a_listener_given_to_the_constructor_hears_every_edit(tmp_path: Path) -> None:
    ws = await _ws(tmp_path)
    events: list[EditEvent] = []
    again = Workspace(ws.root, ws.git_dir, ["*.html"], listener=events.append)
    await again.write_file("index.html", "x")
    assert events == [EditEvent(op="write", path="index.html", applied=True)]


async def test_names_and_contents_that_are_not_utf8_are_read_with_replacement(
    tmp_path: Path,
) -> None:
    ws = await _ws(tmp_path)
    (ws.root / os.fsdecode(b"caf\xe9.html")).write_bytes(b"x\n")
    (ws.root / "index.html").write_bytes(b"<h1>\xff</h1>\n")
    assert await ws.changed_paths() == ["caf\ufffd.html", "index.html"]
    assert "+<h1>\ufffd</h1>" in await ws.diff()


async def test_a_search_stops_at_200_hits(tmp_path: Path) -> None:
    ws = await _ws(tmp_path)
    await ws.write_file("many.html", "hit\n" * 250)
    assert len(await ws.search("hit")) == 200
    assert len(await ws.search("hit", max_hits=5)) == 5


async def test_an_os_error_is_named_without_a_host_path() -> None:
    def fail() -> None:
        raise OSError(errno.ENOENT, "No such file or directory", "/host/secret/path")

    with pytest.raises(WorkspaceError, match=r"^file operation failed: No such file or directory$"):
        await _workspace._io(fail)

    def bare() -> None:
        raise PermissionError()

    with pytest.raises(WorkspaceError, match=r"^file operation failed: PermissionError$"):
        await _workspace._io(bare)


async def test_a_cancelled_search_is_abandoned_but_a_write_is_awaited(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = await _ws(tmp_path)

    def slow_search(*args: object) -> list[object]:
        time.sleep(6.0)
        return []

    monkeypatch.setattr(_walk, "search", slow_search)
    t0 = time.monotonic()
    with anyio.move_on_after(0.05):
        await ws.search("x")
    # the thread was left to finish on its own (6 s)
    assert time.monotonic() - t0 < bound(1.5, wrong=6.0)
    t0 = time.monotonic()
    with anyio.move_on_after(0.05):
        await _workspace._io(lambda: time.sleep(0.6))
    assert time.monotonic() - t0 >= 0.6  # file work is never abandoned halfway
