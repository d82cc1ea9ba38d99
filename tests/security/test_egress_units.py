"""The browser's egress proxy and launcher, without a browser (#36 item 1).

A SOCKS5 client written here speaks to a door of `Egress` the way Chromium does: the
door's origin is tunnelled byte for byte; every other destination (another port of the
same host, loopback by name, an IPv6 literal, a domain) is refused with reply 2 and the
listener behind it sees no connection; so are BIND and UDP ASSOCIATE, and a client that
never finishes its greeting is dropped. The launcher drops to the browser's user.
"""

from __future__ import annotations

import ipaddress
import os
import struct
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import pytest
from anyio.abc import SocketStream

from orchestrator.verifier import BrowserPool, VerifierInfraError
from orchestrator.verifier._browser import _egress as _egress
from orchestrator.verifier._browser._confine import BrowserUser, launcher_script
from orchestrator.verifier._browser._egress import Egress, origin_target
from sandbox import BROWSER_PORTS
from sandbox._firewall import _owner_rules

pytestmark = pytest.mark.anyio


@asynccontextmanager
async def echo_listener() -> AsyncIterator[tuple[int, list[str]]]:
    """A loopback TCP echo server; yields (port, peers that connected)."""
    peers: list[str] = []
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)

    async def handle(stream: SocketStream) -> None:
        peers.append(str(stream.extra(anyio.abc.SocketAttribute.remote_address)))
        async with stream:
            async for chunk in stream:
                await stream.send(chunk)

    async with anyio.create_task_group() as tg:
        tg.start_soon(listener.serve, handle)
        yield listener.extra(anyio.abc.SocketAttribute.local_port), peers
        tg.cancel_scope.cancel()


def _port(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


async def socks(door_url: str, host: str, port: int, command: int = 1) -> tuple[int, SocketStream]:
    """CONNECT (or `command`) through a door: (reply code, the stream)."""
    stream = await anyio.connect_tcp("127.0.0.1", _port(door_url))
    await stream.send(b"\x05\x01\x00")
    assert await stream.receive(2) == b"\x05\x00"
    try:
        addr = b"\x01" + ipaddress.IPv4Address(host).packed
    except ValueError:
        try:
            addr = b"\x04" + ipaddress.IPv6Address(host).packed
        except ValueError:
            addr = b"\x03" + bytes([len(host)]) + host.encode()
    await stream.send(b"\x05" + bytes([command, 0]) + addr + struct.pack("!H", port))
    reply = await stream.receive(10)
    return reply[1], stream


async def test_a_door_tunnels_to_its_origin_and_refuses_the_rest() -> None:
    async with echo_listener() as (port, peers), echo_listener() as (other, other_peers):
        async with Egress() as egress:
            door = await egress.door(f"http://127.0.0.1:{port}")
            code, stream = await socks(door.url, "127.0.0.1", port)
            async with stream:
                assert code == 0
                await stream.send(b"GET / HTTP/1.1\r\n\r\n")
                assert await stream.receive() == b"GET / HTTP/1.1\r\n\r\n"
            refused = [
                ("127.0.0.1", other),  # the same host, another port
                ("localhost", port),  # the origin's port under another name
                ("::1", port),
                ("127.0.0.2", port),
                ("example.com", 80),
            ]
            for host, p in refused:
                code, stream = await socks(door.url, host, p)
                await stream.aclose()
                assert code == 2, (host, p)
            # BIND (2) and UDP ASSOCIATE (3), even to the origin, are not commands it has.
            for command in (2, 3):
                code, stream = await socks(door.url, "127.0.0.1", port, command)
                await stream.aclose()
                assert code == 7
            # The deny-all door (the browser's own traffic) refuses the origin too.
            code, stream = await socks(egress.deny_url, "127.0.0.1", port)
            await stream.aclose()
            assert code == 2
        assert len(peers) == 1 and other_peers == []
        assert f"127.0.0.1:{other}" in egress.refused and "localhost:" + str(port) in egress.refused


async def test_a_closed_door_stops_listening(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_egress, "HANDSHAKE_S", 0.2)
    async with echo_listener() as (port, _), Egress() as egress:
        door = await egress.door(f"http://127.0.0.1:{port}")
        # A client that sends nothing is dropped after the handshake's time.
        idle = await anyio.connect_tcp("127.0.0.1", _port(door.url))
        with anyio.fail_after(5):
            with pytest.raises((anyio.EndOfStream, anyio.BrokenResourceError)):
                await idle.receive()
        door.close()
        await anyio.sleep(0.05)
        with pytest.raises(OSError):
            await anyio.connect_tcp("127.0.0.1", _port(door.url))


async def test_every_door_listens_on_the_ports_the_kernel_lets_the_browser_reach(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lo, hi = BROWSER_PORTS
    async with Egress() as egress:
        doors = [await egress.door("http://127.0.0.1:9") for _ in range(5)]
        ports = {_port(d.url) for d in doors} | {_port(egress.deny_url)}
        assert len(ports) == 6 and all(lo <= p <= hi for p in ports), ports
        # The kernel's rule allows exactly that range on 127.0.0.1 over TCP.
        rules = _owner_rules(v6=False)
        assert f"-d 127.0.0.1 -p tcp --dport {lo}:{hi} -j RETURN" in rules
        assert "RETURN" not in _owner_rules(v6=True)  # no IPv6 at all
        # Every port of the range taken: one line saying so, never a port outside it.
        taken = _port(doors[0].url)
        monkeypatch.setattr(_egress, "BROWSER_PORTS", (taken, taken))
        with pytest.raises(VerifierInfraError, match=f"no free port .* {taken}-{taken}"):
            await egress.door("http://127.0.0.1:9")


def test_origin_targets() -> None:
    assert origin_target("http://172.18.0.2:8000") == ("172.18.0.2", 8000)
    assert origin_target("http://LocalHost.") == ("localhost", 80)
    assert origin_target("http://[::1]:81") == ("::1", 81)
    assert origin_target("about://") is None


def test_the_launcher_drops_every_privilege_before_chromium() -> None:
    script = launcher_script("/usr/bin/chromium", BrowserUser("pwb-browser", 999, 995))
    last = script.strip().splitlines()[-1]
    assert last.startswith("exec ") and last.endswith('/usr/bin/chromium "$@"')
    for flag in (
        "--reuid=999",
        "--regid=995",
        "--clear-groups",
        "--bounding-set=-all",
        "--no-new-privs",
    ):
        assert flag in last
    assert "--no-sandbox" not in script
    assert "chown -R 999:995" in script


@pytest.mark.skipif(os.geteuid() != 0, reason="as another user the browser runs as it")
async def test_a_missing_browser_user_is_refused_in_one_line() -> None:
    with pytest.raises(VerifierInfraError) as err:
        async with BrowserPool(executable_path="/bin/sh", user="pwb-no-such-user"):
            pass  # pragma: no cover: refused before any launch
    assert "pwb-no-such-user does not exist" in str(err.value)
    assert "scripts/install" in str(err.value) and "\n" not in str(err.value)
