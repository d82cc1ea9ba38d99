"""The workspace attacks end to end through a real Docker sandbox: the container itself
plants the links and the git config, then the solver's tools and the harness's git run.

Also: the mount names nothing about the task, the container's root filesystem is
read-only with a bounded tmpfs, files the container made are owned back by the host
user, and every shipped stack still installs, builds and serves that way.
"""

from __future__ import annotations

import os
import re
import uuid
from pathlib import Path

import httpx
import pytest

from orchestrator.contract import load_task
from orchestrator.workspace import PathRefused, Workspace
from sandbox import DockerBackend, ImageBuilder, Labels, ServeSpec, collect_garbage

pytestmark = [pytest.mark.anyio, pytest.mark.docker, pytest.mark.timeout(900)]

ROOT = Path(__file__).resolve().parents[2]
CANARY = "5b1f0c7e-pwb-grader-only"
STATIC = ServeSpec(stack="static", start="exec python3 -m http.server $PORT")


@pytest.fixture
async def sweep(require_docker: None) -> object:
    name = f"pytest-secws-{uuid.uuid4().hex[:8]}"
    await ImageBuilder().ensure_stack("static", lambda _m: None)
    yield name
    await collect_garbage(sweep=name)


async def test_container_planted_links_and_git_config_do_nothing_on_the_host(
    sweep: str, tmp_path: Path
) -> None:
    task = load_task(ROOT / "tasks" / "fernhill-save-tools")
    ws = await Workspace.create(
        task.repo, tmp_path / task.contract.id / "cell" / "workspace", ["**"]
    )
    marker = tmp_path / "marker"
    secret = tmp_path / "grader.toml"
    secret.write_text(f"# pwb-canary: {CANARY}\n")
    config_before = (ws.git_dir / "config").read_bytes()
    target = next(p for p in await ws.list_files() if p.endswith(".html"))
    plant = f"""
set -e
ln -sf ../git/config {target}
ln -s {secret} leak.txt
ln -s / rootdir
mkdir -p .git css/.git
printf '[core]\\n\\tfsmonitor = "touch {marker}"\\n[diff]\\n\\texternal = "touch {marker}"\\n' > .git/config
cp .git/config css/.git/config
printf '* diff=x filter=x\\n' > .gitattributes
printf '.gitattributes\\n' > .gitignore
grep ' /workspace ' /proc/self/mountinfo > mountinfo.txt
touch /home/pwb/probe 2>&1 || true
(dd if=/dev/zero of=/tmp/flood bs=1M count=400 2>/dev/null && echo tmp-unbounded) || echo tmp-bounded
rm -f /tmp/flood
id -u > uid.txt
"""
    async with DockerBackend().open(ws.root, STATIC, Labels(sweep=sweep, cell="plant")) as box:
        result = await box.run(plant)
        assert result.ok, result.output_tail
        assert "Read-only file system" in result.output_tail, result.output_tail
        assert "tmp-bounded" in result.output_tail
        # The solver's tools, while the container is up.
        with pytest.raises(PathRefused, match="is a link"):
            await ws.write_file(target, "[core]\n\tfsmonitor = touch /tmp/x\n")
        with pytest.raises(PathRefused, match="is a link"):
            await ws.read_file("rootdir/etc/passwd")
        assert await ws.search(CANARY) == []
        assert await ws.search("fsmonitor", under="css") == []  # css/.git is never searched
        assert "leak.txt" not in await ws.list_files()
        # The harness's git, on the planted tree.
        changed = await ws.changed_paths()
        await ws.diff()
        await ws.scope_violations()
    assert (ws.git_dir / "config").read_bytes() == config_before
    assert not marker.exists()
    assert secret.read_text() == f"# pwb-canary: {CANARY}\n"
    assert target in changed and ".gitattributes" in changed  # a planted ignore hides nothing
    assert not any(".git/" in p or p.endswith("/.git") or p == ".git" for p in changed)
    # The host path the sandbox can see names no task, cell or sweep.
    mountinfo = (ws.root / "mountinfo.txt").read_text()
    for word in (task.contract.id, "fernhill", "cell", sweep, str(tmp_path)):
        assert word not in mountinfo, mountinfo
    assert re.search(r"/w-[A-Za-z0-9_]+/tree ", mountinfo), mountinfo
    # Everything the container made is the host user's again.
    if os.getuid() == 0:
        assert (ws.root / "uid.txt").read_text().strip() == "10001"
    for dirpath, dirs, files in os.walk(ws.root):
        for name in (*dirs, *files):
            st = os.lstat(os.path.join(dirpath, name))
            assert (st.st_uid, st.st_gid) == (os.getuid(), os.getgid()), name


STACK_TASKS = {
    "static": "fernhill-save-tools",
    "node": "clinic-booking-repair",
    "php": "library-events-tokens",
    "vite": "build-gig-board",
}


@pytest.mark.slow
@pytest.mark.parametrize("stack", sorted(STACK_TASKS))
async def test_every_shipped_stack_serves_on_a_read_only_root(
    sweep: str, tmp_path: Path, stack: str
) -> None:
    task = load_task(ROOT / "tasks" / STACK_TASKS[stack])
    image = await ImageBuilder().ensure_task_image(stack, task.repo, lambda _m: None)
    ws = await Workspace.create(task.repo, tmp_path / "ws", task.contract.allowed_paths)
    s = task.contract.serve
    spec = ServeSpec(
        stack=stack,
        install=s.install,
        build=s.build,
        start=s.start,
        ready_path=s.ready_path,
        ready_timeout=max(s.ready_timeout, 120),
        image=image,
    )
    async with DockerBackend().open(ws.root, spec, Labels(sweep=sweep, cell=stack)) as box:
        probe = await box.run("touch /home/pwb/probe 2>&1 || true")
        assert "Read-only file system" in probe.output_tail, probe.output_tail
        installed = await box.install()
        assert installed.ok, installed.output_tail
        built = await box.build()
        assert built.ok, built.output_tail
        served = await box.serve()
        assert served.ready, served.detail
        async with httpx.AsyncClient(trust_env=False, timeout=10) as client:
            response = await client.get(served.base_url + s.ready_path)
        assert response.status_code < 400
