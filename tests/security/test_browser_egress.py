"""Attack: a page the solver wrote uses the grading browser to reach the host (#36 item 1).

The cell's own server (a real Docker sandbox) serves `attack.html`; it opens a WebSocket,
fetch, image, iframe, EventSource, beacon, preconnect, dns-prefetch and WebRTC (STUN over
UDP, TURN over TCP) to the host's loopback (by address and by name), the bridge gateway,
every other host address, and another cell's server. Host listeners on 0.0.0.0 (TCP
and UDP) record every connection and datagram: through the pool that `capture`, `verify`
and `admit` share there are none, the other cell's server is refused by the pool's
egress, and the page's own origin still answers. Its control loads the same page in a
bare browser (no egress), as the pool did before, and the listener is reached: a wall
that lets the attack through turns the test red.

The browser's processes, read from /proc: none runs as root, the browser was started
without --no-sandbox, and its renderers are in Chromium's sandbox (their own user
namespace, seccomp filter, no new privileges). Below the browser, the kernel: a process
of the browser's user that ignores every proxy setting (a Python probe run as that
user) opens TCP to 127.0.0.1 (where the egress listens) and reaches nothing else (other
loopback addresses, every host address, UDP), where the same probe as root does.
"""

from __future__ import annotations

import ast
import json
import os
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import quote

import anyio
import pytest
from anyio.abc import SocketStream
from playwright.async_api import async_playwright

from orchestrator.contract import Viewport
from orchestrator.verifier import BrowserPool, BrowserSession
from orchestrator.verifier._browser._confine import browser_user
from sandbox import BROWSER_PORTS, DockerBackend, ImageBuilder, Labels, Sandbox, collect_garbage
from tests.fixtures.hostnet import (
    LIMITS,
    STATIC,
    gateway,
    host_addresses,
    host_listener,
    network_of,
    still_present,
)

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(180)]

ATTACK = """<!doctype html><meta charset="utf-8"><title>attack</title><body><script>
const targets = JSON.parse(decodeURIComponent(location.hash.slice(1)));
const seen = {};
const note = (what) => () => { seen[what] = 'reached'; };
async function attack() {
  seen.own = await fetch('/own.txt').then((r) => r.text(), (e) => String(e));
  for (const t of targets.tcp) {
    const ws = new WebSocket(`ws://${t}/ws`);
    ws.onopen = note('websocket ' + t);
    fetch(`http://${t}/fetch`, {mode: 'no-cors'}).then(note('fetch ' + t), () => {});
    const img = new Image();
    img.onload = note('image ' + t);
    img.src = `http://${t}/image.png`;
    document.body.append(img);
    const frame = document.createElement('iframe');
    frame.src = `http://${t}/frame`;
    document.body.append(frame);
    new EventSource(`http://${t}/events`).onopen = note('eventsource ' + t);
    navigator.sendBeacon(`http://${t}/beacon`, 'x');
    for (const rel of ['preconnect', 'dns-prefetch', 'prefetch']) {
      const link = document.createElement('link');
      link.rel = rel;
      link.href = `http://${t}/${rel}`;
      document.head.append(link);
    }
  }
  const ice = [
    ...targets.udp.map((t) => ({urls: `stun:${t}`})),
    ...targets.tcp.map((t) => ({urls: `turn:${t}?transport=tcp`, username: 'u', credential: 'c'})),
  ];
  const pc = new RTCPeerConnection({iceServers: ice});
  pc.createDataChannel('x');
  await pc.setLocalDescription(await pc.createOffer());
  await new Promise((r) => setTimeout(r, 2500));
  seen.ice = pc.iceGatheringState;
  window.done = seen;
}
attack();
</script>"""

OWN = "the cell's own origin answers\n"

# Run as the browser's user: try each kind,host,port; print {target: outcome}.
PROBE = """
import json, socket, sys
out = {}
for target in sys.argv[1:]:
    kind, host, port = target.split(",")
    try:
        if kind == "udp":
            socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", (host, int(port)))
            out[target] = "sent"
        else:
            socket.create_connection((host, int(port)), timeout=2).close()
            out[target] = "connected"
    except OSError as exc:
        out[target] = type(exc).__name__
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def static_image(require_docker: None) -> None:
    anyio.run(lambda: ImageBuilder().ensure_stack("static", lambda _m: None), backend="asyncio")


@pytest.fixture
def sweep() -> Iterator[str]:
    name = f"sec-egress-{uuid.uuid4().hex[:8]}"
    yield name
    anyio.run(lambda: collect_garbage(sweep=name), backend="asyncio")


@asynccontextmanager
async def udp_listener() -> AsyncIterator[tuple[int, list[str]]]:
    """A UDP socket on 0.0.0.0:<random>; yields (port, senders of datagrams)."""
    senders: list[str] = []
    async with await anyio.create_udp_socket(local_host="0.0.0.0") as sock:

        async def record() -> None:
            async for _, (host, port) in sock:
                senders.append(f"{host}:{port}")

        async with anyio.create_task_group() as tg:
            tg.start_soon(record)
            yield sock.extra(anyio.abc.SocketAttribute.local_port), senders
            tg.cancel_scope.cancel()


def site(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "index.html").write_text("<h1>cell</h1>\n")
    (root / "attack.html").write_text(ATTACK)
    (root / "own.txt").write_text(OWN)
    return root


async def served(box: Sandbox) -> str:
    outcome = await box.serve()
    assert outcome.ready, outcome.detail
    return outcome.base_url


def attack_url(base: str, tcp: list[str], udp: list[str]) -> str:
    return f"{base}/attack.html#{quote(json.dumps({'tcp': tcp, 'udp': udp}))}"


async def run_attack(session: BrowserSession, url: str) -> dict[str, str]:
    await session.page.goto(url)
    await session.page.wait_for_function("window.done", timeout=20_000)
    seen: dict[str, str] = await session.page.evaluate("window.done")
    return seen


@pytest.mark.browser
@pytest.mark.docker
async def test_a_page_reaches_nothing_but_its_own_origin(
    static_image: None, require_chromium: None, sweep: str, tmp_path: Path
) -> None:
    backend = DockerBackend()
    async with (
        host_listener() as (tcp_port, peers),
        udp_listener() as (udp_port, senders),
        backend.open(site(tmp_path / "a"), STATIC, Labels(sweep=sweep, cell="a"), LIMITS) as a,
        backend.open(site(tmp_path / "b"), STATIC, Labels(sweep=sweep, cell="b"), LIMITS) as b,
    ):
        base, other = await served(a), await served(b)
        gw = gateway(await network_of(sweep))
        hosts = ["127.0.0.1", "localhost", gw, *(h for h in host_addresses() if h != gw)]
        cell_b = other.removeprefix("http://")
        tcp = [*(f"{h}:{tcp_port}" for h in hosts), cell_b]
        udp = [f"{h}:{udp_port}" for h in ("127.0.0.1", gw)]
        async with BrowserPool(max_contexts=1) as pool:

            async def job(session: BrowserSession) -> dict[str, str]:
                return await run_attack(session, attack_url(base, tcp, udp))

            seen = await pool.run(base, Viewport(width=800, height=600), job)
            await anyio.sleep(1.0)  # late preconnects and beacons
            refused = list(pool.refused)
        assert seen.pop("own") == OWN
        seen.pop("ice")  # ICE gathering's state: it tried (or is still trying)
        assert seen == {}, seen  # no vector reported success to the page
        assert peers == [] and senders == [], (peers, senders)
        # Cell b's server is up (the harness reaches it) but the egress refused it.
        assert cell_b in refused, refused
        # Control: the attack is real. The same page in a bare browser (no egress, as
        # the pool's was before) reaches the host's loopback and the gateway.
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path="/usr/bin/chromium")
            try:
                page = await browser.new_page()
                await page.goto(attack_url(base, [f"127.0.0.1:{tcp_port}", f"{gw}:{tcp_port}"], []))
                await page.wait_for_function("window.done", timeout=20_000)
            finally:
                await browser.close()
        hosts_reached = {ast.literal_eval(peer)[0] for peer in peers}
        assert {"127.0.0.1", gw} <= hosts_reached, peers


def _processes() -> dict[int, tuple[int, str]]:
    """pid -> (ppid, cmdline) of every process."""
    out = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            out[int(entry.name)] = (int(stat.rsplit(")", 1)[1].split()[1]), cmd)
    return out


def _descendants(root: int) -> list[int]:
    procs = _processes()
    found, frontier = [], [root]
    while frontier:
        parent = frontier.pop()
        kids = [pid for pid, (ppid, _) in procs.items() if ppid == parent]
        found += kids
        frontier += kids
    return [pid for pid in found if "chromium" in procs[pid][1]]


def _status(pid: int) -> dict[str, str]:
    lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    return {k: v.strip() for k, _, v in (line.partition(":") for line in lines)}


@pytest.mark.browser
async def test_chromium_runs_unprivileged_with_its_sandbox(require_chromium: None) -> None:
    async with BrowserPool(max_contexts=1) as pool:

        async def job(session: BrowserSession) -> None:
            await session.page.set_content("<p>renderer</p>")
            pids = _descendants(os.getpid())
            cmds = {pid: _processes()[pid][1] for pid in pids}
            browser = [p for p, c in cmds.items() if "--type=" not in c]
            renderers = [p for p, c in cmds.items() if "--type=renderer" in c]
            assert len(browser) == 1 and renderers, cmds
            user_ns = os.readlink(f"/proc/{browser[0]}/ns/user")
            assert user_ns == os.readlink("/proc/self/ns/user")
            for pid in pids:
                uids = _status(pid)["Uid"].split()
                assert "0" not in uids, (pid, cmds[pid], uids)
                # No capability in the host's user namespace (a sandboxed process holds
                # some inside its own, which grants nothing outside it).
                if os.readlink(f"/proc/{pid}/ns/user") == user_ns:
                    assert _status(pid)["CapEff"] == "0" * 16, cmds[pid]
            assert "--no-sandbox" not in cmds[browser[0]]
            for pid in renderers:
                status = _status(pid)
                assert status["Seccomp"] == "2", status  # a seccomp-bpf filter
                assert status["NoNewPrivs"] == "1", status
                assert os.readlink(f"/proc/{pid}/ns/user") != user_ns

        await pool.run("about:blank", Viewport(width=320, height=200), job)
        await kernel_wall()


async def test_a_network_removed_mid_probe_leaves_the_control(require_docker: None) -> None:
    """The root control of `kernel_wall` may meet a bridge address that another
    worker's sandbox network took away mid-probe: the connect is refused. That target
    leaves the control, and only it (an xdist run failed on exactly this)."""
    import aiodocker

    async with aiodocker.Docker() as docker:
        net = await docker.networks.create(
            {"Name": f"pwb-probe-{uuid.uuid4().hex[:8]}", "Labels": {"pwb.sweep": "probe"}}
        )
        try:
            gone = gateway(await net.show())
            assert gone in host_addresses()
        finally:
            await net.delete()
    async with host_listener() as (port, _):
        targets = [f"tcp,{h},{port}" for h in ["127.0.0.1", gone]]
        seen = await probe(targets, as_user=False)
        assert seen[f"tcp,{gone},{port}"] != "connected"  # the planted failure is real
        assert still_present(seen) == {f"tcp,127.0.0.1,{port}": "connected"}


async def probe(targets: list[str], as_user: bool) -> dict[str, str]:
    user = browser_user()
    assert user is not None, "the harness runs as root here: the browser must not"
    drop = ["setpriv", f"--reuid={user.uid}", f"--regid={user.gid}", "--clear-groups"]
    argv = [*(drop if as_user else []), "/usr/bin/python3", "-c", PROBE, *targets]
    done = await anyio.run_process(argv)
    result: dict[str, str] = json.loads(done.stdout)
    return result


@asynccontextmanager
async def proxy_port_listener() -> AsyncIterator[tuple[int, list[str]]]:
    """A TCP listener on 127.0.0.1 at a free port of `BROWSER_PORTS` (where the egress
    proxy listens); yields (port, peers that connected)."""
    peers: list[str] = []
    for port in range(BROWSER_PORTS[0], BROWSER_PORTS[1] + 1):
        try:
            listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=port)
            break
        except OSError:
            continue
    else:
        raise AssertionError("no free port in BROWSER_PORTS")

    async def handle(stream: SocketStream) -> None:
        peers.append(str(stream.extra(anyio.abc.SocketAttribute.remote_address)))
        await stream.aclose()

    async with listener, anyio.create_task_group() as tg:
        tg.start_soon(listener.serve, handle)
        yield port, peers
        tg.cancel_scope.cancel()


async def kernel_wall() -> None:
    """Run inside a pool (which installs the rule): the browser's user reaches
    127.0.0.1 over TCP on the proxy's ports (`BROWSER_PORTS`) and nothing else, not
    another loopback listener; root's probe, the same targets, reaches all."""
    async with (
        proxy_port_listener() as (proxy_port, proxy_peers),
        host_listener() as (tcp_port, peers),
        udp_listener() as (udp_port, senders),
    ):
        assert not BROWSER_PORTS[0] <= tcp_port <= BROWSER_PORTS[1]
        others = ["127.0.0.2", *host_addresses()]
        blocked = [f"tcp,{h},{tcp_port}" for h in ["127.0.0.1", *others]]
        blocked += [f"udp,{h},{udp_port}" for h in ["127.0.0.1", *others]]
        seen = await probe([f"tcp,127.0.0.1,{proxy_port}", *blocked], as_user=True)
        assert seen.pop(f"tcp,127.0.0.1,{proxy_port}") == "connected"
        assert all(v not in ("connected", "sent") for v in seen.values()), seen
        await anyio.sleep(0.5)
        assert len(proxy_peers) == 1 and peers == [] and senders == [], (peers, senders)
        # Control: root's probe reaches the same host addresses.
        seen = still_present(await probe(blocked, as_user=False))
        assert len(seen) > 2 and set(seen.values()) <= {"connected", "sent"}, seen
        await anyio.sleep(0.5)
        assert len(peers) > 1 and senders
