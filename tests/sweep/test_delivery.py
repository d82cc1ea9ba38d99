"""A cell's files from a worker node to the driver's run directory
(`orchestrator.sweep._delivery`, issue #22): the driver writes what an attempt wrote on
its node, and nothing a delivery could smuggle in besides."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import tarfile
import time
from pathlib import Path

import pytest

from orchestrator.sweep import (
    DeliveryRefused,
    deliver,
    drop_stale,
    known_baselines,
    open_staging,
    pack_cell,
    remove_retired,
    seed_baselines,
    take_cell,
    write_patch,
)
from orchestrator.workspace import Workspace
from sandbox import lock_held

KEY = "tiny-shop/reference/staged/0"
CELL = "tiny-shop__reference__staged__0"


def _staged_cell(root: Path, outside: Path) -> Path:
    cell = root / "cells" / CELL
    (cell / "artifacts" / "checkpoint-001" / "states").mkdir(parents=True)
    (cell / "artifacts" / "checkpoint-001" / "states" / "home.png").write_bytes(b"\x89PNG")
    (cell / "events.jsonl").write_text('{"kind": "start", "attempt": 2}\n')
    outside.mkdir(exist_ok=True)
    (outside / "secret").write_text("the node's own file")
    (cell / "workspace").symlink_to(outside)  # a node path: not for the driver
    (root / "baseline").mkdir()
    (root / "baseline" / "abc-local.json").write_text('{"key": "abc-local", "gates": {}}')
    return cell


def test_an_attempt_comes_back_whole_and_its_staging_is_removed(tmp_path: Path) -> None:
    staging = tmp_path / "node"
    cell = _staged_cell(staging, tmp_path / "node-workspace")
    data = take_cell(staging, KEY)
    assert not cell.exists()  # the node's staging of the cell is gone
    run_dir = tmp_path / "run"
    (run_dir / "cells" / CELL).mkdir(parents=True)
    # an earlier attempt's log (another node's, or the driver's "node lost" line)
    (run_dir / "cells" / CELL / "events.jsonl").write_text('{"kind": "error", "attempt": 1}\n')
    written = deliver(data, run_dir, KEY)
    got = run_dir / "cells" / CELL
    assert (got / "events.jsonl").read_text().splitlines() == [
        '{"kind": "error", "attempt": 1}',
        '{"kind": "start", "attempt": 2}',
    ]
    assert (got / "artifacts" / "checkpoint-001" / "states" / "home.png").read_bytes() == b"\x89PNG"
    assert not (got / "workspace").exists() and not (got / "workspace").is_symlink()
    assert (run_dir / "baseline" / "abc-local.json").is_file()
    assert f"cells/{CELL}/events.jsonl" in written


def _tar(*members: tarfile.TarInfo, content: bytes = b"bad") -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for info in members:
            if info.isreg():
                info.size = len(content)
                tar.addfile(info, io.BytesIO(content))
            else:
                tar.addfile(info)
    return buf.getvalue()


def _member(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = link
    return info


def _ok() -> tarfile.TarInfo:
    return _member(f"cells/{CELL}/events.jsonl")


ATTACKS = {
    "dotdot": _member(f"cells/{CELL}/../../escaped.txt"),
    "dotdot-first": _member("../escaped.txt"),
    "absolute": _member("/tmp/pwb-delivery-escaped.txt"),
    "symlink": _member(f"cells/{CELL}/link", tarfile.SYMTYPE, "/etc/passwd"),
    "symlink-relative": _member(f"cells/{CELL}/link", tarfile.SYMTYPE, "../../.."),
    "hardlink": _member(f"cells/{CELL}/hard", tarfile.LNKTYPE, "/etc/passwd"),
    "device": _member(f"cells/{CELL}/dev", tarfile.CHRTYPE),
    "fifo": _member(f"cells/{CELL}/fifo", tarfile.FIFOTYPE),
    "another-cell": _member("cells/other__cell/events.jsonl"),
    "run-file": _member("manifest.jsonl"),
    "baseline-subdir": _member("baseline/x/y.json"),
    "dot": _member(f"./cells/{CELL}/events.jsonl"),
}


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_a_member_that_may_not_be_written_refuses_the_whole_delivery(
    tmp_path: Path, attack: str
) -> None:
    run_dir = tmp_path / "a" / "run"
    run_dir.mkdir(parents=True)
    # the good member first: a refusal after it was written would be too late
    data = _tar(_ok(), ATTACKS[attack])
    with pytest.raises(DeliveryRefused, match="delivery holds"):
        deliver(data, run_dir, KEY)
    assert list(run_dir.iterdir()) == []  # nothing written, not even the good member
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["run"]
    assert not (tmp_path / "escaped.txt").exists()
    assert not Path("/tmp/pwb-delivery-escaped.txt").exists()


def test_a_link_in_the_run_directory_is_not_followed(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    outside = tmp_path / "outside"
    outside.mkdir()
    (run_dir / "cells").mkdir(parents=True)
    (run_dir / "cells" / CELL).symlink_to(outside)  # planted where the cell's dir goes
    with pytest.raises(DeliveryRefused, match="not a directory"):
        deliver(_tar(_ok()), run_dir, KEY)
    assert list(outside.iterdir()) == []
    os.unlink(run_dir / "cells" / CELL)
    (run_dir / "cells" / CELL).mkdir()
    (run_dir / "cells" / CELL / "events.jsonl").symlink_to(outside / "victim")
    with pytest.raises(DeliveryRefused, match="cannot write"):
        deliver(_tar(_ok()), run_dir, KEY)
    assert list(outside.iterdir()) == []


def test_not_a_tar_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DeliveryRefused, match="not a tar"):
        deliver(b"x" * 1024, tmp_path, KEY)


def test_staging_is_locked_while_open_and_removed_after(tmp_path: Path) -> None:
    with open_staging("sweep-1", tmp_path) as staging:
        assert staging.root == tmp_path / "sweep-1"
        assert lock_held(str(staging.lock))
        _staged_cell(staging.root, tmp_path / "ws")
    assert not (tmp_path / "sweep-1").exists()
    assert (tmp_path / "ws" / "secret").exists()  # a link is removed, not followed


def test_stale_staging_is_dropped_and_a_live_sessions_kept(tmp_path: Path) -> None:
    dead = tmp_path / "dead-sweep"
    dead.mkdir()
    (dead / ".lock").touch()  # its node host died: nobody holds it
    old = time.time() - 3600
    os.utime(dead, (old, old))
    fresh = tmp_path / "fresh-sweep"  # created a moment ago, not yet locked
    fresh.mkdir()
    with open_staging("live-sweep", tmp_path) as live:
        os.utime(live.root, (old, old))
        assert drop_stale(tmp_path) == []  # dropped already on open: the dead one
        assert not dead.exists()
        assert fresh.exists() and live.root.exists()


def test_staging_under_a_planted_link_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "base").symlink_to(elsewhere)  # e.g. another user's link in /tmp
    with pytest.raises(OSError, match="not a folder owned by this user"):
        with open_staging("sweep-1", tmp_path / "base"):
            pass
    assert list(elsewhere.iterdir()) == []


@pytest.mark.anyio
async def test_a_cells_final_work_tree_comes_back_as_a_patch_that_rebuilds_it(
    tmp_path: Path,
) -> None:
    """Where a single-host cell has its `workspace` link, the node sends the work tree
    as `workspace.patch` against R0: on a copy of R0 it gives the tree byte for byte
    (a changed file in Latin-1, a binary file added, a file deleted)."""
    r0 = tmp_path / "r0"
    (r0 / "pages").mkdir(parents=True)
    (r0 / "index.html").write_text("<p>caf\u00e9</p>\n", encoding="latin-1")
    (r0 / "pages" / "old.html").write_text("<p>old</p>\n")
    staging = tmp_path / "node"
    link = staging / "cells" / CELL / "workspace"
    ws = await Workspace.create(r0, link, ["**"], store=tmp_path / "store")
    (link / "index.html").write_bytes("<p>th\u00e9 \u00e0 l'\u00e9t\u00e9</p>\n".encode("latin-1"))
    (link / "logo.png").write_bytes(bytes(range(256)) * 4)
    (link / "pages" / "old.html").unlink()
    final = _tree(ws.root)
    await write_patch(staging, KEY)
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    deliver(take_cell(staging, KEY), run_dir, KEY)
    assert not link.is_symlink() and not ws.root.exists()  # the node's copy is gone
    rebuilt = tmp_path / "rebuilt"
    shutil.copytree(r0, rebuilt)
    patch = run_dir / "cells" / CELL / "workspace.patch"
    subprocess.run(["git", "apply", "--binary", str(patch)], cwd=rebuilt, check=True)
    assert _tree(rebuilt) == final != _tree(r0)


@pytest.mark.anyio
async def test_a_packed_cell_carries_its_patch_and_its_staging_goes_after_the_reply(
    tmp_path: Path,
) -> None:
    """`pack_cell` (the node's one worker-thread step after an attempt): the tar holds the
    cell's files and its `workspace.patch` (the same bytes `Workspace.patch` gives); the
    cell's staging leaves `cells/` at once but its work tree is removed only by
    `remove_retired` (off the reply's path), or, if that never ran, with the session's
    staging: no workspace of the node outlives its session."""
    r0 = tmp_path / "r0"
    r0.mkdir()
    (r0 / "index.html").write_text("<p>R0</p>\n")
    store = tmp_path / "store"
    with open_staging("sweep-1", tmp_path / "base") as staging:
        homes = []
        for n in range(2):
            key = f"tiny-shop/reference/staged/{n}"
            cell = staging.root / "cells" / key.replace("/", "__")
            ws = await Workspace.create(r0, cell / "workspace", ["**"], store=store)
            (cell / "workspace" / "index.html").write_text(f"<p>final {n}</p>\n")
            (cell / "events.jsonl").write_text('{"kind": "start"}\n')
            homes.append(ws.root.parent)
            data, retired = pack_cell(staging.root, key)
            assert retired is not None and not cell.exists() and ws.root.is_dir()
            run_dir = tmp_path / f"run-{n}"
            run_dir.mkdir()
            deliver(data, run_dir, key)
            got = run_dir / "cells" / cell.name
            assert (got / "workspace.patch").read_bytes() == await ws.patch()
            assert f"+<p>final {n}</p>" in (got / "workspace.patch").read_text()
            assert (got / "events.jsonl").read_text() == '{"kind": "start"}\n'
            if n == 0:
                remove_retired(retired)
                assert not retired.exists() and not homes[0].exists()
        assert homes[1].exists()  # retired, not yet removed: the session's exit takes it
    assert not homes[1].exists() and not (tmp_path / "base" / "sweep-1").exists()
    assert pack_cell(tmp_path, "tiny-shop/none/staged/0")[1] is None  # nothing staged


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_the_drivers_baselines_seed_a_nodes_cache_and_nothing_else(tmp_path: Path) -> None:
    """A resumed sweep's nodes start from the run's baseline cache; a link in it is not
    read, and a name that is not a plain `<key>.json` refuses them all, writing nothing."""
    run_dir, root = tmp_path / "run", tmp_path / "staging"
    (run_dir / "baseline").mkdir(parents=True)
    root.mkdir()
    (run_dir / "baseline" / "0123abcd-local.json").write_bytes(b'{"key":"k","gates":{}}')
    secret = tmp_path / "secret.json"
    secret.write_text("not the run's")
    (run_dir / "baseline" / "linked-local.json").symlink_to(secret)
    known = known_baselines(run_dir)
    assert known == {"0123abcd-local.json": b'{"key":"k","gates":{}}'}
    seed_baselines(root, known)
    assert (root / "baseline" / "0123abcd-local.json").read_bytes() == known["0123abcd-local.json"]
    assert known_baselines(tmp_path / "no-run") == {}
    for bad in ("../escape.json", "sub/x.json", ".hidden.json", "x.txt"):
        fresh = tmp_path / f"fresh-{abs(hash(bad))}"
        fresh.mkdir()
        with pytest.raises(DeliveryRefused, match="not a plain"):
            seed_baselines(fresh, {"ok.json": b"{}", bad: b"{}"})
        assert not (fresh / "baseline").exists() and not (tmp_path / "escape.json").exists()
