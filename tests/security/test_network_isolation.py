"""Attack: a sandbox connects to the host, to other cells and to the outside.

A listener on the host's 0.0.0.0 (random port) stands for every host service. Code in
a real sandbox tries the bridge gateway and every other host address; with the
harness's firewall nothing connects, and the control (the same sandbox on a network
without the firewall) shows that the attack does connect, so a missing rule turns
these tests red. The harness must still reach and verify the sandbox's page.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx
import pytest

from orchestrator.contract import load_task
from orchestrator.verifier import BrowserPool, verify
from sandbox import (
    DockerBackend,
    FirewallUnavailable,
    ImageBuilder,
    Labels,
    Sandbox,
    ServeSpec,
    _firewall,
    collect_garbage,
    firewall_preflight,
    open_backend,
)
from tests.fixtures.hostnet import (
    LIMITS,
    STATIC,
    gateway,
    host_addresses,
    host_listener,
    network_of,
)
from tests.fixtures.tinytask import make_tiny_task

pytestmark = [pytest.mark.anyio, pytest.mark.docker, pytest.mark.timeout(240)]

# Runs inside the sandbox: try each host:port, print {target: "connected" | error}.
ATTACK = """
import json, socket, sys
out = {}
for target in sys.argv[1:]:
    host, port = target.rsplit(":", 1)
    try:
        socket.create_connection((host, int(port)), timeout=2).close()
        out[target] = "connected"
    except OSError as exc:
        out[target] = type(exc).__name__ + ": " + str(exc)
print(json.dumps(out))
"""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def static_image(require_docker: None) -> None:
    anyio.run(lambda: ImageBuilder().ensure_stack("static", lambda _m: None), backend="asyncio")


@pytest.fixture
def sweep() -> Iterator[str]:
    name = f"sec-net-{uuid.uuid4().hex[:8]}"
    yield name
    anyio.run(lambda: collect_garbage(sweep=name), backend="asyncio")


async def attack(box: Sandbox, targets: list[str]) -> dict[str, str]:
    argv = " ".join(shlex.quote(t) for t in targets)
    res = await box.run(f"python3 -c {shlex.quote(ATTACK)} {argv}", timeout=60)
    assert res.exit_code == 0, res.output_tail
    result: dict[str, str] = json.loads(res.output_tail.strip().splitlines()[-1])
    return result


def site(tmp: Path) -> Path:
    root = tmp / "site"
    root.mkdir(exist_ok=True)
    (root / "index.html").write_text("<h1>cell</h1>\n")
    return root


async def test_sandbox_cannot_reach_the_host_and_the_harness_still_verifies(
    static_image: None, require_chromium: None, sweep: str, tmp_path: Path
) -> None:
    task = load_task(make_tiny_task(tmp_path / "tasks"))
    ws = tmp_path / "ws"
    shutil.copytree(task.root / "repo", ws)
    spec = ServeSpec(stack="static", start=task.contract.serve.start)
    backend = DockerBackend()
    async with (
        host_listener() as (port, peers),
        backend.open(ws, spec, Labels(sweep=sweep, cell="a"), LIMITS) as box,
    ):
        assert box.isolated
        gw = gateway(await network_of(sweep))
        addresses = [gw, *(a for a in host_addresses() if a != gw)]
        assert len(addresses) >= 2  # the gateway and at least the host's own interface
        seen = await attack(box, [f"{a}:{port}" for a in addresses])
        assert all(v != "connected" for v in seen.values()), seen
        assert peers == []
        # ... nor the outside (no route), nor the Docker daemon's usual TCP ports.
        seen = await attack(box, ["1.1.1.1:53", f"{gw}:2375", f"{gw}:22"])
        assert all(v != "connected" for v in seen.values()), seen
        # The harness still reaches the server and grades its page in Chromium.
        served = await box.serve()
        assert served.ready, served.detail
        async with BrowserPool(max_contexts=1) as pool:
            report = await verify(pool, task, served.base_url, check_ids=["nav-entries"])
        nav = next(c for c in report.checks if c.id == "nav-entries")
        assert nav.passed, nav.observed


async def test_control_the_same_attack_connects_without_the_firewall(
    static_image: None, sweep: str, tmp_path: Path
) -> None:
    """Proves the attack is real: drop the rules and the host listener is reached."""
    backend = DockerBackend(firewall=False)
    async with (
        host_listener() as (port, peers),
        backend.open(site(tmp_path), STATIC, Labels(sweep=sweep, cell="ctl"), LIMITS) as box,
    ):
        assert not box.isolated  # nothing claims isolation without the rules
        gw = gateway(await network_of(sweep))
        assert gw.split(".")[:3] != ["127", "0", "0"]
        seen = await attack(box, [f"{gw}:{port}"])
        assert seen[f"{gw}:{port}"] == "connected", seen
        assert peers


async def test_sandbox_cannot_reach_other_cells(
    static_image: None, sweep: str, tmp_path: Path
) -> None:
    other_sweep = sweep + "-b"
    backend = DockerBackend()
    try:
        async with (
            backend.open(site(tmp_path), STATIC, Labels(sweep=sweep, cell="a"), LIMITS) as a,
            backend.open(site(tmp_path), STATIC, Labels(sweep=sweep, cell="b"), LIMITS) as b,
            backend.open(site(tmp_path), STATIC, Labels(sweep=other_sweep, cell="c"), LIMITS) as c,
        ):
            urls = []
            for box in (b, c):
                served = await box.serve()
                assert served.ready, served.detail
                urls.append(served.base_url)
            async with httpx.AsyncClient() as client:  # the harness reaches both
                for url in urls:
                    assert (await client.get(url + "/")).status_code == 200
            targets = [u.removeprefix("http://") for u in urls]
            seen = await attack(a, targets)
            assert all(v != "connected" for v in seen.values()), seen
    finally:
        await collect_garbage(sweep=other_sweep)


async def test_rules_live_and_die_with_the_sweep_network(
    static_image: None, sweep: str, tmp_path: Path
) -> None:
    async with DockerBackend().open(site(tmp_path), STATIC, Labels(sweep=sweep, cell="a"), LIMITS):
        net_id = str((await network_of(sweep))["Id"])
        assert net_id[:12] in await _firewall.installed()
        listing = subprocess.run(["iptables", "-S", "INPUT"], capture_output=True, text=True)
        assert f"-j {_firewall.chain_name(net_id)}" in listing.stdout
    removed = await collect_garbage(sweep=sweep)
    assert {r.kind for r in removed} >= {"network", "firewall"}
    assert net_id[:12] not in await _firewall.installed()
    listing = subprocess.run(["iptables", "-S"], capture_output=True, text=True)
    assert _firewall.chain_name(net_id) not in listing.stdout
    # A chain whose network is gone (a crash between the two) is collected too.
    orphan = "0123456789ab" + uuid.uuid4().hex[:12]
    await _firewall.install(orphan, "br-" + orphan[:12])
    assert orphan[:12] in await _firewall.installed()
    removed = await collect_garbage(sweep="no-such-sweep")
    assert any(r.kind == "firewall" and orphan[:12] in r.name for r in removed)
    assert orphan[:12] not in await _firewall.installed()


async def test_an_allowed_gateway_port_is_the_only_way_out(
    static_image: None, sweep: str, tmp_path: Path
) -> None:
    """The scaffold arm's LLM gateway: one port on the network's gateway is reachable."""
    async with host_listener() as (port, peers), host_listener() as (other, other_peers):
        backend = DockerBackend(allow=_firewall.Allow(address="", port=port))
        async with backend.open(
            site(tmp_path), STATIC, Labels(sweep=sweep, cell="a"), LIMITS
        ) as box:
            gw = gateway(await network_of(sweep))
            seen = await attack(box, [f"{gw}:{port}", f"{gw}:{other}"])
        assert seen[f"{gw}:{port}"] == "connected", seen
        assert seen[f"{gw}:{other}"] != "connected", seen
        assert peers and not other_peers


async def test_without_root_docker_cells_are_refused_in_one_line(
    require_docker: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("os.geteuid", lambda: 1000)
    with pytest.raises(FirewallUnavailable) as err:
        await firewall_preflight()
    assert "needs root" in str(err.value)
    with pytest.raises(FirewallUnavailable) as err:
        await open_backend("docker")
    message = str(err.value)
    assert "\n" not in message and "docker_firewall = false" in message
    with pytest.raises(FirewallUnavailable):
        await open_backend("auto")  # Docker is there: no silent fallback either
    backend = await open_backend("docker", firewall=False)  # explicitly allowed
    assert isinstance(backend, DockerBackend)


async def test_an_allow_that_is_not_an_address_is_refused() -> None:
    with pytest.raises(FirewallUnavailable, match="not an IP"):
        await _firewall.install("0" * 64, "br-000000000000", _firewall.Allow(address="", port=1))
