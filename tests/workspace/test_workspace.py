from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from orchestrator.workspace import EditEvent, PatchError, PathRefused, Workspace, WorkspaceError

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _ws(tmp_path: Path) -> Workspace:
    r0 = tmp_path / "r0"
    (r0 / "css").mkdir(parents=True)
    (r0 / "index.html").write_text("<h1>Hi</h1>\n<p>one</p>\n<p>one</p>\n")
    (r0 / "css" / "site.css").write_text("h1 { color: red; }\n")
    (r0 / "server.js").write_text("// not allowed\n")
    return await Workspace.create(r0, tmp_path / "ws", ["*.html", "css/**"])


async def test_fresh_repository_holds_only_r0(tmp_path: Path) -> None:
    ws = await _ws(tmp_path)
    log = subprocess.run(
        ["git", f"--git-dir={ws.git_dir}", "log", "--oneline"], capture_output=True, text=True
    )
    assert len(log.stdout.splitlines()) == 1
    assert await ws.list_files() == ["css/site.css", "index.html", "server.js"]
    assert await ws.changed_paths() == []


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("/etc/passwd", "absolute paths are not allowed"),
        ("../outside.html", "'..' is not allowed"),
        ("css/../../x.html", "'..' is not allowed"),
        ("server.js", "outside allowed paths"),
        # The refusal, not the echoed path: `.git` alone would match `'.git/config'`.
        (".git/config", ".git is not part of the workspace"),
        ("css/.git/config", ".git is not part of the workspace"),
    ],
)
async def test_writes_outside_the_rules_are_refused_with_reason(
    tmp_path: Path, path: str, why: str
) -> None:
    ws = await _ws(tmp_path)
    events: list[EditEvent] = []
    ws.listener = events.append
    with pytest.raises(PathRefused, match=re.escape(why)):
        await ws.write_file(path, "x")
    assert events and not events[0].applied and why in events[0].reason
    assert await ws.changed_paths() == []


async def test_symlink_escape_is_refused(tmp_path: Path) -> None:
    ws = await _ws(tmp_path)
    outside = tmp_path / "secret"
    outside.mkdir()
    (ws.root / "css" / "link").symlink_to(outside)
    with pytest.raises(PathRefused, match="is a link"):
        await ws.write_file("css/link/evil.css", "x")
    with pytest.raises(PathRefused, match="is a link"):
        await ws.read_file("css/link/anything")
    assert not (outside / "evil.css").exists()


async def test_edit_needs_one_exact_anchor(tmp_path: Path) -> None:
    ws = await _ws(tmp_path)
    with pytest.raises(WorkspaceError, match="not found"):
        await ws.edit("index.html", "<h2>", "<h3>")
    with pytest.raises(WorkspaceError, match="found 2 times"):
        await ws.edit("index.html", "<p>one</p>", "<p>two</p>")
    await ws.edit("index.html", "<h1>Hi</h1>", "<h1>Hello</h1>")
    assert "<h1>Hello</h1>" in await ws.read_file("index.html")
    assert await ws.changed_paths() == ["index.html"]
    assert "+<h1>Hello</h1>" in await ws.diff()


async def test_search_and_tree_id(tmp_path: Path) -> None:
    ws = await _ws(tmp_path)
    hits = await ws.search(r"color:\s*red")
    assert [(h.path, h.line) for h in hits] == [("css/site.css", 1)]
    before = await ws.tree_id()
    assert await ws.tree_id() == before
    await ws.write_file("css/new.css", "p {}")
    assert await ws.tree_id() != before
    await ws.reset_to_r0()
    assert await ws.tree_id() == before


async def test_patch_that_does_not_apply_is_a_clear_error(tmp_path: Path) -> None:
    ws = await _ws(tmp_path)
    bad = tmp_path / "bad.patch"
    bad.write_text("--- a/index.html\n+++ b/index.html\n@@ -1 +1 @@\n-<h1>Nope</h1>\n+<h1>X</h1>\n")
    with pytest.raises(PatchError, match=r"bad\.patch: does not apply"):
        await ws.apply_patch(bad)


async def test_scope_violations_list_paths_outside_allowed(tmp_path: Path) -> None:
    ws = await _ws(tmp_path)
    (ws.root / "server.js").write_text("// changed by a scaffold agent directly\n")
    await ws.write_file("index.html", "<h1>ok</h1>")
    assert await ws.scope_violations() == ("server.js",)


async def test_files_an_agent_committed_in_its_own_repository_still_count_for_scope(
    tmp_path: Path,
) -> None:
    """A CLI agent that runs `git init/add/commit` in the work tree (or commits there and
    then resets) cannot hide its changes: scope is the tree against R0, not any HEAD."""
    ws = await _ws(tmp_path)
    (ws.root / "server.js").write_text("// changed, then committed by the agent\n")
    (ws.root / "extra.js").write_text("// added and committed\n")
    env = {
        "GIT_AUTHOR_NAME": "a",
        "GIT_AUTHOR_EMAIL": "a@x",
        "GIT_COMMITTER_NAME": "a",
        "GIT_COMMITTER_EMAIL": "a@x",
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
    }
    for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "agent"]):
        subprocess.run(["git", *cmd], cwd=ws.root, env=env, check=True)
    assert await ws.scope_violations() == ("extra.js", "server.js")
    subprocess.run(["git", "reset", "-q", "--hard", "HEAD"], cwd=ws.root, env=env, check=True)
    assert await ws.scope_violations() == ("extra.js", "server.js")


async def test_delete_file_removes_one_allowed_file_and_says_why_not_otherwise(
    tmp_path: Path,
) -> None:
    ws = await _ws(tmp_path)
    events: list[EditEvent] = []
    ws.listener = events.append
    await ws.delete_file("css/site.css")
    assert not (ws.root / "css" / "site.css").exists()
    assert await ws.changed_paths() == ["css/site.css"]
    assert "deleted file mode" in await ws.diff()
    with pytest.raises(WorkspaceError, match="no such file"):
        await ws.delete_file("css/site.css")
    (ws.root / "css" / "sub").mkdir()
    with pytest.raises(WorkspaceError, match="no such file"):
        await ws.delete_file("css/sub")  # a folder is not a file
    with pytest.raises(PathRefused, match="outside allowed paths"):
        await ws.delete_file("server.js")
    assert (ws.root / "server.js").exists()
    assert [(e.op, e.applied) for e in events] == [("delete", True)] + [("delete", False)] * 3


async def test_restore_gives_back_everything_a_later_tree_added(tmp_path: Path) -> None:
    ws = await _ws(tmp_path)
    await ws.write_file("index.html", "<h1>checkpointed</h1>")
    kept = await ws.tree_id()
    # After the checkpoint: a tracked file changed, a flood in a new folder, an excluded
    # folder's file and an oversize file (neither held by any snapshot).
    await ws.write_file("index.html", "<h1>later</h1>")
    (ws.root / "flood").mkdir()
    (ws.root / "flood" / "a.bin").write_bytes(b"\0" * 4096)
    (ws.root / "node_modules").mkdir(exist_ok=True)
    (ws.root / "node_modules" / "big.bin").write_bytes(b"\0" * 4096)
    (ws.root / "huge.bin").write_bytes(b"\0" * (12 << 20))
    await ws.restore(kept)
    assert (ws.root / "index.html").read_text() == "<h1>checkpointed</h1>"
    assert not (ws.root / "flood").exists() and not (ws.root / "huge.bin").exists()
    assert not (ws.root / "node_modules").exists()
    assert await ws.tree_id() == kept
    assert await ws.disk_usage() < 1 << 20
