"""Attacks on the workspace boundary, replayed through the Workspace API.

The sandbox (code the solver wrote, running in the container) can change anything in
the work tree between two solver tool calls; these tests play that part with plain file
operations on `ws.root`, then use the solver's tools and the harness's git commands the
way a cell does, and check that nothing outside the work tree was read, written or run.
"""

from __future__ import annotations

import os
import stat
import subprocess
import threading
import time
from pathlib import Path

import anyio
import pytest

from orchestrator.workspace import PROMPT_FILE, PathRefused, Workspace, WorkspaceError

pytestmark = pytest.mark.anyio

CANARY = "5b1f0c7e-pwb-grader-only"
ALLOWED = ["*.html", "css/**", "public/**"]


async def make_ws(tmp_path: Path) -> Workspace:
    r0 = tmp_path / "r0"
    (r0 / "css").mkdir(parents=True)
    (r0 / "public").mkdir()
    (r0 / "index.html").write_text("<h1>Hi</h1>\n")
    (r0 / "css" / "site.css").write_text("h1 { color: red; }\n")
    (r0 / "public" / "notes.html").write_text("notes\n")
    (r0 / "server.js").write_text("// not allowed\n")
    return await Workspace.create(r0, tmp_path / "cell" / "workspace", ALLOWED)


def host_secret(tmp_path: Path) -> Path:
    secret = tmp_path / "host" / "grader" / "task.toml"
    secret.parent.mkdir(parents=True)
    secret.write_text(f"# pwb-canary: {CANARY}\nassert = 'secret check'\n")
    return secret


def no_host_path(ws: Workspace, text: str) -> bool:
    return str(ws.root.parent) not in text and "/tmp" not in text


# ---------------------------------------------------------------- git metadata


async def test_repository_is_outside_the_work_tree(tmp_path: Path) -> None:
    ws = await make_ws(tmp_path)
    assert not (ws.root / ".git").exists()
    assert ws.root not in ws.git_dir.parents and ws.git_dir.is_dir()
    # Nothing in the mounted tree points at the repository either.
    for dirpath, _dirs, files in os.walk(ws.root):
        for name in files:
            assert b"gitdir" not in (Path(dirpath) / name).read_bytes()


@pytest.mark.parametrize(
    "target",
    ["../git/config", "../../git/config", "HOST", "../git/hooks/pre-commit"],
)
async def test_link_planted_by_the_sandbox_is_never_written_through(
    tmp_path: Path, target: str
) -> None:
    """Issue #13's root exploit: `public/notes.html -> ../.git/config`, then write_file."""
    ws = await make_ws(tmp_path)
    secret = host_secret(tmp_path)
    link = ws.root / "public" / "notes.html"
    link.unlink()
    link.symlink_to(secret if target == "HOST" else target)
    config_before = (ws.git_dir / "config").read_bytes()
    secret_before = secret.read_bytes()
    evil = "[core]\n\tfsmonitor = touch /tmp/pwn\n"
    with pytest.raises(PathRefused, match="is a link") as refused:
        await ws.write_file("public/notes.html", evil)
    assert no_host_path(ws, str(refused.value))
    with pytest.raises(PathRefused, match="is a link"):
        await ws.edit("public/notes.html", "notes", evil)
    with pytest.raises(PathRefused, match="is a link"):
        await ws.read_file("public/notes.html")
    assert (ws.git_dir / "config").read_bytes() == config_before
    assert secret.read_bytes() == secret_before
    assert not (ws.git_dir / "hooks" / "pre-commit").exists()
    # Deleting the link removes the link itself, never the target.
    await ws.delete_file("public/notes.html")
    assert secret.read_bytes() == secret_before and not link.is_symlink()


async def test_link_at_any_folder_component_is_refused(tmp_path: Path) -> None:
    ws = await make_ws(tmp_path)
    secret = host_secret(tmp_path)
    (ws.root / "css" / "deep").mkdir()
    (ws.root / "css" / "deep" / "up").symlink_to(secret.parent, target_is_directory=True)
    (ws.root / "public" / "repo").symlink_to("../../git", target_is_directory=True)
    for path in ("css/deep/up/task.toml", "css/deep/up/new.css", "public/repo/config"):
        with pytest.raises(PathRefused, match="is a link"):
            await ws.write_file(path, "x")
        with pytest.raises(PathRefused, match="is a link"):
            await ws.read_file(path)
    with pytest.raises(PathRefused, match="is a link"):
        await ws.list_files("public/repo")
    assert not (secret.parent / "new.css").exists()
    assert CANARY in secret.read_text()
    assert "x" != (ws.git_dir / "config").read_text()


@pytest.mark.parametrize(
    "path", [".git", ".git/config", "css/.git", "css/.git/config", "css/a/.GIT/x", "public/.Git"]
)
async def test_git_segment_at_any_depth_is_refused(tmp_path: Path, path: str) -> None:
    ws = await make_ws(tmp_path)
    before = await ws.tree_id()
    with pytest.raises(PathRefused, match=r"\.git is not part"):
        await ws.write_file(path, "gitdir: /etc\n")
    with pytest.raises(PathRefused, match=r"\.git is not part"):
        await ws.read_file(path)
    assert await ws.tree_id() == before


async def test_git_planted_in_the_tree_does_not_redirect_git(tmp_path: Path) -> None:
    """`.git` files and folders at any depth: git still uses the harness repository, and
    the snapshot neither fails nor records them (a solver cannot break its own cell)."""
    ws = await make_ws(tmp_path)
    decoy = tmp_path / "decoy"
    subprocess.run(["git", "init", "-q", str(decoy)], check=True)
    (ws.root / ".git").write_text(f"gitdir: {decoy / '.git'}\n")
    (ws.root / "css" / ".git").mkdir()
    (ws.root / "css" / ".git" / "config").write_text("[core]\n\tbare = maybe\n")
    (ws.root / "public" / "sub").mkdir()
    subprocess.run(["git", "init", "-q", str(ws.root / "public" / "sub")], check=True)
    (ws.root / "public" / "sub" / "page.html").write_text("<p>x</p>\n")
    await ws.write_file("css/site.css", "h1 { color: blue; }\n")
    assert await ws.changed_paths() == ["css/site.css", "public/sub/page.html"]
    assert "+h1 { color: blue; }" in await ws.diff()
    assert ".git" not in "".join(await ws.list_files())
    # The decoy repository saw nothing.
    status = subprocess.run(
        ["git", "-C", str(decoy), "status", "--porcelain"], capture_output=True, text=True
    )
    assert status.stdout == ""
    await ws.reset_to_r0()
    assert await ws.changed_paths() == []
    assert (ws.root / "css" / "site.css").read_text() == "h1 { color: red; }\n"


async def test_no_fall_through_to_an_enclosing_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Workspaces kept inside another repository: git never reaches the outer one, even
    with the workspace's own repository gone."""
    outer = tmp_path / "outer"
    subprocess.run(["git", "init", "-q", str(outer)], check=True)
    monkeypatch.setenv("PWB_WORKSPACES", str(outer / "store"))
    ws = await make_ws(tmp_path)
    await ws.write_file("index.html", "<h1>changed</h1>\n")
    assert await ws.changed_paths() == ["index.html"]
    outer_git = outer / ".git"
    index_before = (outer_git / "index").exists()
    # Remove the workspace's repository: commands fail, they do not adopt `outer`.
    import shutil

    shutil.rmtree(ws.git_dir)
    with pytest.raises(WorkspaceError):
        await ws.changed_paths()
    with pytest.raises(WorkspaceError):
        await ws.reset_to_r0()
    assert (outer_git / "index").exists() == index_before
    log = subprocess.run(["git", "-C", str(outer), "log"], capture_output=True, text=True)
    assert log.returncode != 0  # still no commit in the outer repository


MARKER_CONFIG = """[core]
\tfsmonitor = "touch {m}/fsmonitor; false"
\thooksPath = {hooks}
[diff]
\texternal = "{m}/ext.sh"
[diff "evil"]
\ttextconv = "{m}/ext.sh"
[filter "evil"]
\tclean = "{m}/ext.sh"
\tsmudge = "{m}/ext.sh"
"""


async def test_planted_git_config_never_executes(tmp_path: Path) -> None:
    """fsmonitor, external diff, textconv, filters and hooks planted in the tree -- and
    even in the harness repository's own config -- never run."""
    ws = await make_ws(tmp_path)
    markers = tmp_path / "markers"
    markers.mkdir()
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    ext = markers / "ext.sh"
    ext.write_text(f'#!/bin/sh\ntouch {markers}/ran-"$$"\ncat\n')
    ext.chmod(0o755)
    for name in ("pre-commit", "post-checkout", "reference-transaction", "post-index-change"):
        (hooks / name).write_text(f"#!/bin/sh\ntouch {markers}/hook-{name}\n")
        (hooks / name).chmod(0o755)
    config = MARKER_CONFIG.format(m=markers, hooks=hooks)
    # What the sandbox can write: the tree (fake repositories, attributes, ignore rules).
    for fake in (ws.root / ".git", ws.root / "css" / ".git"):
        fake.mkdir()
        (fake / "config").write_text(config)
        (fake / "HEAD").write_text("ref: refs/heads/main\n")
    (ws.root / ".gitattributes").write_text("* diff=evil filter=evil\n")
    # What it could write only through a host-side bug: the repository's config and hooks.
    (ws.git_dir / "config").write_text((ws.git_dir / "config").read_text() + config)
    (ws.git_dir / "hooks").mkdir(exist_ok=True)
    for hook in hooks.iterdir():
        (ws.git_dir / "hooks" / hook.name).write_bytes(hook.read_bytes())
        (ws.git_dir / "hooks" / hook.name).chmod(0o755)
    await ws.write_file("css/site.css", "h1 { color: green; }\n")
    assert "css/site.css" in await ws.changed_paths()
    assert "+h1 { color: green; }" in await ws.diff()
    await ws.scope_violations()
    patch = tmp_path / "p.patch"
    patch.write_text(
        "--- a/index.html\n+++ b/index.html\n@@ -1 +1 @@\n-<h1>Hi</h1>\n+<h1>Patched</h1>\n"
    )
    await ws.apply_patch(patch)
    await ws.reset_to_r0()
    await ws.tree_id()
    assert sorted(p.name for p in markers.iterdir()) == ["ext.sh"]


# ---------------------------------------------------------------- grader data via links


async def test_search_and_list_do_not_follow_links_to_host_files(tmp_path: Path) -> None:
    ws = await make_ws(tmp_path)
    secret = host_secret(tmp_path)
    (ws.root / "css" / "leak.css").symlink_to(secret)
    (ws.root / "css" / "leakdir").symlink_to(secret.parent, target_is_directory=True)
    (ws.root / "public" / "config").symlink_to("../../git/config")
    assert await ws.search(CANARY) == []
    assert await ws.search("secret check") == []
    assert await ws.search(r"\[core\]") == []
    files = await ws.list_files()
    assert files == ["css/site.css", "index.html", "public/notes.html", "server.js"]
    assert await ws.search("color", under="css") != []  # search itself still works
    with pytest.raises(PathRefused, match="is a link"):
        await ws.search(CANARY, under="css/leakdir")
    with pytest.raises(PathRefused, match="is a link"):
        await ws.read_file("css/leak.css")


async def test_special_files_are_refused_not_opened(tmp_path: Path) -> None:
    ws = await make_ws(tmp_path)
    os.mkfifo(ws.root / "css" / "pipe.css")
    with anyio.fail_after(5):  # opening a FIFO for reading would block forever
        with pytest.raises(PathRefused, match="not a regular file"):
            await ws.read_file("css/pipe.css")
        with pytest.raises(PathRefused, match="not a regular file"):
            await ws.write_file("css/pipe.css", "x")
        assert await ws.search("x") == []
        await ws.tree_id()


async def test_hard_linked_file_is_not_written(tmp_path: Path) -> None:
    ws = await make_ws(tmp_path)
    os.link(ws.root / "server.js", ws.root / "css" / "alias.css")
    with pytest.raises(PathRefused, match="hard links"):
        await ws.write_file("css/alias.css", "overwritten")
    assert (ws.root / "server.js").read_text() == "// not allowed\n"


async def test_folder_swapped_for_a_link_while_the_solver_writes(tmp_path: Path) -> None:
    """A sandbox racing the harness (folder <-> link, thousands of times) never gets a
    write through to the link's target."""
    ws = await make_ws(tmp_path)
    target = tmp_path / "host" / "victim"
    target.mkdir(parents=True)
    stop = threading.Event()
    css = ws.root / "css"

    def flip() -> None:
        spare = ws.root / "css-real"
        while not stop.is_set():
            try:
                css.rename(spare)
                css.symlink_to(target, target_is_directory=True)
                css.unlink()
                spare.rename(css)
            except OSError:
                pass

    thread = threading.Thread(target=flip)
    thread.start()
    try:
        for i in range(300):
            try:
                await ws.write_file(f"css/f{i}.css", "raced")
            except WorkspaceError:
                pass
    finally:
        stop.set()
        thread.join()
    assert list(target.iterdir()) == []


# ---------------------------------------------------------------- size and the loop


async def test_large_file_does_not_stall_the_event_loop(tmp_path: Path) -> None:
    """A 300 MB file: search skips it, read caps it, the snapshot does not hash it, and
    the loop keeps ticking (issue #13 measured a 9.4 s stall)."""
    ws = await make_ws(tmp_path)
    big = ws.root / "css" / "huge.css"
    line = b"a { color: red; } /* needle */\n"
    with big.open("wb") as f:
        chunk = line * (1 << 15)
        for _ in range(300 * 2**20 // len(chunk) + 1):
            f.write(chunk)
    assert big.stat().st_size >= 300 * 2**20
    worst = 0.0
    done = anyio.Event()

    async def ticker() -> None:
        nonlocal worst
        while not done.is_set():
            t0 = time.perf_counter()
            await anyio.sleep(0.005)
            worst = max(worst, time.perf_counter() - t0 - 0.005)

    async with anyio.create_task_group() as tg:
        tg.start_soon(ticker)
        t0 = time.perf_counter()
        hits = await ws.search("needle")
        text = await ws.read_file("css/huge.css")
        await ws.tree_id()
        files = await ws.list_files()
        used = await ws.disk_usage()
        took = time.perf_counter() - t0
        done.set()
    assert hits == []  # skipped: over the per-file search cap
    assert len(text) <= 200_000
    assert "css/huge.css" in files
    assert used >= 300 * 2**20
    assert worst < 0.25, f"event loop stalled {worst:.3f} s (tools took {took:.2f} s)"
    print(f"loop lag max {worst * 1000:.1f} ms; tools {took:.2f} s")


async def test_disk_check_names_usage_and_limit(tmp_path: Path) -> None:
    from orchestrator.workspace import DiskLimitExceeded

    ws = await make_ws(tmp_path)
    await ws.check_disk(1 << 20)
    (ws.root / "public" / "flood.bin").write_bytes(os.urandom(3 << 20))
    with pytest.raises(DiskLimitExceeded, match=r"3 MiB used, limit 1 MiB") as exc:
        await ws.check_disk(1 << 20)
    assert exc.value.used > exc.value.limit
    assert no_host_path(ws, str(exc.value))


async def test_errors_shown_to_the_solver_name_no_host_path(tmp_path: Path) -> None:
    ws = await make_ws(tmp_path)
    (ws.root / "css" / "ro").mkdir()
    (ws.root / "css" / "ro" / "f.css").write_text("x")
    (ws.root / "css" / "ro").chmod(stat.S_IRUSR | stat.S_IXUSR)
    messages = []
    for call in (
        lambda: ws.read_file("nope/missing.html"),
        lambda: ws.write_file("index.html/child.html", "x"),
        lambda: ws.edit("index.html", "absent", "x"),
        lambda: ws.delete_file("css/none.css"),
        lambda: ws.list_files("css/site.css"),
        lambda: ws.read_file("css"),
    ):
        with pytest.raises(WorkspaceError) as exc:
            await call()
        messages.append(str(exc.value))
    for m in messages:
        assert no_host_path(ws, m), m


@pytest.mark.parametrize("planted", ["link", "dir", "fifo"])
async def test_scaffold_prompt_replaces_whatever_the_sandbox_planted(
    tmp_path: Path, planted: str
) -> None:
    """The harness writes `.pwb-prompt.md` each scaffold turn: a link there is removed,
    not written through, and the cell carries on (no error to misclassify)."""
    ws = await make_ws(tmp_path)
    secret = host_secret(tmp_path)
    before = secret.read_bytes()
    spot = ws.root / PROMPT_FILE
    if planted == "link":
        spot.symlink_to(secret)
    elif planted == "dir":
        (spot / "sub").mkdir(parents=True)
        (spot / "sub" / "escape").symlink_to(secret.parent, target_is_directory=True)
    else:
        os.mkfifo(spot)
    with anyio.fail_after(5):
        await ws.write_prompt("do the thing")
    assert spot.read_text() == "do the thing" and not spot.is_symlink()
    assert secret.read_bytes() == before and secret.parent.is_dir()
    await ws.remove_prompt()
    assert not spot.exists()
    assert await ws.changed_paths() == []
