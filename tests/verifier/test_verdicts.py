"""Verdicts paid for once across a sweep's cells (`verifier/_reuse/_verdicts.py`): a checkpoint
whose work tree is byte-identical to another cell's, with the same checks and health,
takes that cell's report instead of replaying; a changed byte, another check set, a
state that posted to its server or a tree whose bytes the id does not hold replays."""

from __future__ import annotations

import functools
import shutil
import threading
from collections.abc import Callable, Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path

import msgspec
import pytest

from orchestrator.contract import TaskPackage
from orchestrator.records import VerifyReport
from orchestrator.verifier import (
    BrowserPool,
    BrowserVerifier,
    CheckpointView,
    Outcome,
    ReuseCache,
    RunHealth,
    StateJob,
    StateObservation,
    VerdictCache,
    VerifyRequest,
    verdict_key,
)
from orchestrator.workspace import Workspace

from .conftest import _QuietHandler, check, make_task

PAGES = {
    "a.html": '<h1 id="t">Alpha</h1>',
    "post.html": (
        '<h1 id="t">Post</h1><script>fetch("/a.html", {method: "POST"}).catch(() => 0)</script>'
    ),
}
HEALTH = RunHealth(build_applicable=False, serve_applicable=False)


def _task(tmp: Path, route: str = "/a.html") -> TaskPackage:
    return make_task(
        tmp,
        [{"id": "a", "route": route}],
        [check("title", "text", "a", kind="exists", selector="#t")],
    )


@pytest.fixture
def r0(tmp_path: Path) -> Path:
    root = tmp_path / "r0"
    root.mkdir()
    for name, text in PAGES.items():
        (root / name).write_text(text)
    return root


@pytest.fixture
def server_for() -> Iterator[Callable[[Path], str]]:
    servers: list[ThreadingHTTPServer] = []

    def serve(root: Path) -> str:
        handler = functools.partial(_QuietHandler, directory=str(root))
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}"

    yield serve
    for s in servers:
        s.shutdown()
        s.server_close()


def test_the_key_covers_checks_health_and_tree_and_refuses_unheld_bytes(tmp_path: Path) -> None:
    task = _task(tmp_path)
    index = {"": ("dir", ""), "a.html": ("file", "1:0")}
    key = verdict_key(task, ["x", "y"], HEALTH, "t1", index)
    assert key and key == verdict_key(task, ["y", "x"], HEALTH, "t1", index)
    assert key != verdict_key(task, None, HEALTH, "t1", index)
    # A full suite without accessibility snapshots (R0 of a task with a11y evidence) is
    # not the one a final on the same tree needs.
    full = verdict_key(task, None, HEALTH, "t1", index)
    assert full != verdict_key(task, None, HEALTH, "t1", index, a11y=False)
    assert key != verdict_key(task, ["x", "y"], HEALTH, "t2", index)
    scoped = RunHealth(build_applicable=False, serve_applicable=False, scope_violations=("z",))
    assert key != verdict_key(task, ["x", "y"], scoped, "t1", index)
    for kind in ("excluded", "oversize", "deep", "emptydir", "link"):
        assert verdict_key(task, None, HEALTH, "t1", {**index, "n": (kind, "")}) == ""


@pytest.mark.anyio
@pytest.mark.browser
async def test_a_second_cell_on_the_same_tree_takes_the_first_cells_report(
    tmp_path: Path, r0: Path, pool: BrowserPool, server_for: Callable[[Path], str]
) -> None:
    serve = server_for
    task, cache = _task(tmp_path), VerdictCache()

    async def cell(name: str, edit: str = "", checks: list[str] | None = None) -> VerifyReport:
        ws = await Workspace.create(r0, tmp_path / name, ["**"], store=tmp_path / f"{name}.git")
        if edit:
            await ws.write_file("a.html", edit)
        verifier = BrowserVerifier(pool, verdicts=cache)
        art = tmp_path / f"{name}-cell" / "artifacts" / "checkpoint-001"
        return await verifier.verify(
            VerifyRequest(
                task=task,
                base_url=serve(ws.root),
                check_ids=checks,
                health=HEALTH,
                artifacts=art,
                workspace=ws,
            )
        )

    first = await cell("one")
    assert first.states and not any(s.reused for s in first.states)
    second = await cell("two")
    assert cache.hits == 1
    assert [(c.id, c.passed) for c in second.checks] == [(c.id, c.passed) for c in first.checks]
    assert all("one-cell/checkpoint-001" in s.reused for s in second.states), second.states
    for s in second.states:
        if s.screenshot:
            assert (tmp_path / "two-cell" / "artifacts" / "checkpoint-001" / s.screenshot).is_file()
    # Another check set, or one changed byte: replayed.
    await cell("three", checks=["title"])
    changed = await cell("four", edit='<h1 id="t">Alpha!</h1>')
    assert cache.hits == 1 and not any(s.reused for s in changed.states)


@pytest.mark.anyio
@pytest.mark.browser
async def test_a_state_that_posts_to_its_server_is_never_shared(
    tmp_path: Path, r0: Path, pool: BrowserPool, server_for: Callable[[Path], str]
) -> None:
    serve = server_for
    task, cache = _task(tmp_path, "/post.html"), VerdictCache()
    for name in ("one", "two"):
        ws = await Workspace.create(r0, tmp_path / name, ["**"], store=tmp_path / f"{name}.git")
        report = await BrowserVerifier(pool, verdicts=cache).verify(
            VerifyRequest(
                task=task,
                base_url=serve(ws.root),
                check_ids=None,
                health=HEALTH,
                artifacts=tmp_path / f"{name}-art",
                workspace=ws,
            )
        )
        assert not any(s.reused for s in report.states)
    assert cache.hits == 0 and not cache.kept


def _view_with(*observations: StateObservation, static: bool = True) -> CheckpointView:
    cache = ReuseCache(static=static)
    view = cache.checkpoint("t1", {"": ("dir", "")}, 1)
    task = _task(Path("/nonexistent"))
    state = task.contract.states[0]
    for obs in observations:
        job = StateJob(key=obs.state, state=state, actions=(), checks=(), base_url="http://h:1")
        view.record(job, obs)
    return view


CLEAN = StateObservation(state="a", requests=("GET http://h:1/a.html",))


@pytest.mark.parametrize(
    ("obs", "why"),
    [
        (msgspec.structs.replace(CLEAN, requests=("POST http://h:1/a",)), "sent 'POST"),
        (msgspec.structs.replace(CLEAN, error="browser crashed"), "not replayed cleanly"),
        (msgspec.structs.replace(CLEAN, unbounded="it opened a WebSocket"), "not replayed"),
        (msgspec.structs.replace(CLEAN, action_error="action 1 failed: Timeout"), "not replayed"),
        (
            msgspec.structs.replace(
                CLEAN, outcomes={"x": Outcome(passed=False, observed="Timeout 5000ms")}
            ),
            "not replayed",
        ),
    ],
)
def test_a_checkpoint_is_kept_only_when_every_replay_was_clean(
    obs: StateObservation, why: str
) -> None:
    assert _view_with(CLEAN).dirty("t1") == ""
    assert why in _view_with(CLEAN, obs).dirty("t1")
    assert "moved" in _view_with(CLEAN).dirty("t2")  # the tree changed during the replays


@pytest.mark.anyio
async def test_a_retried_cells_own_folder_or_a_vanished_one_is_no_error(tmp_path: Path) -> None:
    """A retried cell writes its checkpoints where its first attempt did: the kept
    report's folder is the new one (nothing to copy, no `same file` error, #51's first
    CI run). A folder cleared since is a miss: the checkpoint replays."""
    report = VerifyReport(checks=(), gates=())
    cache = VerdictCache()
    art = tmp_path / "cell" / "artifacts" / "checkpoint-001"
    (art / "states").mkdir(parents=True)
    (art / "states" / "a.png").write_bytes(b"png")
    cache.put("k", report, art)
    assert await cache.take("k", art) is not None  # the same folder
    other = tmp_path / "other" / "artifacts" / "checkpoint-002"
    assert await cache.take("k", other) is not None
    assert (other / "states" / "a.png").read_bytes() == b"png"
    assert cache.hits == 2
    shutil.rmtree(art)
    assert await cache.take("k", other) is None and "k" not in cache.kept
