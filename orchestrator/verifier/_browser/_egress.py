"""`Egress`: the browser's only way out, a SOCKS5 proxy that reaches one origin.

A page the solver wrote runs in the grading browser, and the browser runs on the host:
left alone it could reach the host's loopback services, the bridge gateway and other
cells' servers (WebSockets, preconnects and WebRTC pass `context.route`). So every
browser context talks to the network through a *door* of this proxy, its own listener
on 127.0.0.1 (a port of `sandbox.BROWSER_PORTS`, the only ones the kernel lets the
browser's user reach) that tunnels to the context's origin (`host:port`) and refuses every other
destination; the browser as a whole (`deny_url`: traffic of no context) gets a door that
refuses everything. `_pool.py` sets the proxies with loopback *not* bypassed
(`<-loopback>`), and Chromium's flags keep DNS and WebRTC from going around them.

SOCKS5 (RFC 1928, CONNECT, no authentication) rather than an HTTP proxy: Chromium opens
one proxied connection per destination, so plain HTTP, keep-alive and WebSocket upgrades
are byte tunnels the proxy never parses, and destination names are resolved here, never
by the browser. A door lives as long as its context (`Door.close`), and all of them as
long as the `Egress` (`async with`).
"""

from __future__ import annotations

import ipaddress
import secrets
import struct
from dataclasses import dataclass, field
from types import TracebackType
from typing import Self
from urllib.parse import urlsplit

import anyio
from anyio.abc import SocketStream, TaskGroup, TaskStatus
from anyio.streams.stapled import MultiListener

from sandbox import BROWSER_PORTS

from .._core import VerifierError, VerifierInfraError

HANDSHAKE_S = 10.0  # a client that does not finish its SOCKS greeting in time is dropped
CONNECT_S = 10.0
_CHUNK = 65536
_DEFAULT_PORTS = {"http": 80, "ws": 80, "https": 443, "wss": 443}
# SOCKS5 replies (RFC 1928 §6).
_OK, _FAILURE, _NOT_ALLOWED, _REFUSED, _NO_COMMAND, _NO_ADDRESS = 0, 1, 2, 5, 7, 8


def origin_target(origin: str) -> tuple[str, int] | None:
    """The (host, port) an origin's connections go to (`http://172.18.0.2:8000`); None
    for an origin that is not on the network (`about:`, `data:`)."""
    parts = urlsplit(origin)
    if parts.scheme not in _DEFAULT_PORTS:
        return None
    port = parts.port or _DEFAULT_PORTS.get(parts.scheme)
    if not parts.hostname or port is None:
        raise VerifierError(f"not an origin with a host and port: {origin!r}")
    return _normal_host(parts.hostname), port


def _normal_host(host: str) -> str:
    try:
        return str(ipaddress.ip_address(host.strip("[]")))
    except ValueError:
        return host.lower().rstrip(".")


@dataclass(slots=True)
class Door:
    """One listener: `url` is the proxy a context uses; it reaches `target` or nothing."""

    url: str
    target: tuple[str, int] | None
    scope: anyio.CancelScope
    refused: list[str]  # the egress's, shared by its doors

    def close(self) -> None:
        """Stop listening and cut this door's tunnels (sync: a Playwright event calls it)."""
        self.scope.cancel()


@dataclass(slots=True)
class Egress:
    """The doors of one browser pool; `refused` lists what was refused (host:port)."""

    refused: list[str] = field(default_factory=list)
    tunnels: int = 0  # connections that reached their target
    deny_url: str = ""
    _tg: TaskGroup | None = None
    _deny: Door | None = None

    async def __aenter__(self) -> Self:
        if self._tg is not None:
            raise VerifierError("an Egress cannot be entered twice")
        self._tg = anyio.create_task_group()
        await self._tg.__aenter__()
        try:
            self._deny = await self.door(None)
        except BaseException as exc:
            self._tg.cancel_scope.cancel()
            await self._tg.__aexit__(type(exc), exc, exc.__traceback__)
            raise
        self.deny_url = self._deny.url
        return self

    async def __aexit__(
        self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        assert self._tg is not None
        self._tg.cancel_scope.cancel()
        await self._tg.__aexit__(et, e, tb)

    async def door(self, origin: str | None) -> Door:
        """A new listener that tunnels to `origin`'s host:port only (None, or an origin
        not on the network: to nothing)."""
        if self._tg is None:
            raise VerifierError("Egress used outside `async with`")
        target = None if origin is None else origin_target(origin)
        door: Door = await self._tg.start(self._serve, target)
        return door

    async def _serve(
        self, target: tuple[str, int] | None, *, task_status: TaskStatus[Door]
    ) -> None:
        listener, port = await _listen()
        with anyio.CancelScope() as scope:
            async with listener, anyio.create_task_group() as tg:
                task_status.started(Door(f"socks5://127.0.0.1:{port}", target, scope, self.refused))

                async def handle(client: SocketStream) -> None:
                    await self._handle(client, target)

                await listener.serve(handle, tg)

    async def _handle(self, client: SocketStream, target: tuple[str, int] | None) -> None:
        async with client:
            wanted: tuple[str, int] | int | None = None
            with anyio.move_on_after(HANDSHAKE_S):
                wanted = await _read_request(client)
            if wanted is None:
                return
            if isinstance(wanted, int):
                await _reply(client, wanted)
                return
            if wanted != target:
                if len(self.refused) < 1000:
                    self.refused.append(f"{wanted[0]}:{wanted[1]}")
                await _reply(client, _NOT_ALLOWED)
                return
            try:
                with anyio.fail_after(CONNECT_S):
                    upstream = await anyio.connect_tcp(*wanted)
            except (OSError, TimeoutError):
                await _reply(client, _REFUSED)
                return
            async with upstream:
                self.tunnels += 1
                await _reply(client, _OK)
                async with anyio.create_task_group() as tg:
                    tg.start_soon(_pump, client, upstream)
                    tg.start_soon(_pump, upstream, client)


async def _listen() -> tuple[MultiListener[SocketStream], int]:
    """A listener on 127.0.0.1 at a free port of `BROWSER_PORTS`, the only ports the
    browser's user may reach (`sandbox._firewall`), tried from a random one on."""
    lo, hi = BROWSER_PORTS
    ports = list(range(lo, hi + 1))
    start = secrets.randbelow(len(ports))
    for port in ports[start:] + ports[:start]:
        try:
            listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=port)
        except OSError:
            continue  # taken: the next one
        return listener, port
    raise VerifierInfraError(f"no free port for the browser's egress proxy in {lo}-{hi}")


async def _read_exactly(stream: SocketStream, n: int) -> bytes:
    data = b""
    while len(data) < n:
        data += await stream.receive(n - len(data))
    return data


async def _read_request(client: SocketStream) -> tuple[str, int] | int | None:
    """The destination a SOCKS5 client asks for; an error reply code; None: hang up."""
    try:
        version, n_methods = await _read_exactly(client, 2)
        methods = await _read_exactly(client, n_methods)
        if version != 5 or 0 not in methods:
            await client.send(b"\x05\xff")  # no acceptable method
            return None
        await client.send(b"\x05\x00")
        version, command, _, kind = await _read_exactly(client, 4)
        if kind == 1:
            host = str(ipaddress.IPv4Address(await _read_exactly(client, 4)))
        elif kind == 4:
            host = str(ipaddress.IPv6Address(await _read_exactly(client, 16)))
        elif kind == 3:
            (length,) = await _read_exactly(client, 1)
            name = await _read_exactly(client, length)
            host = _normal_host(name.decode("ascii", "replace"))
        else:
            return _NO_ADDRESS
        (port,) = struct.unpack("!H", await _read_exactly(client, 2))
    except (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
        return None
    except ValueError:  # a domain name that is not text
        return None
    if version != 5 or command != 1:  # CONNECT only: no BIND, no UDP ASSOCIATE
        return _NO_COMMAND
    return host, port


async def _reply(client: SocketStream, code: int) -> None:
    try:
        await client.send(bytes([5, code, 0, 1, 0, 0, 0, 0, 0, 0]))
    except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
        pass  # the client is gone: nothing to tell


async def _pump(source: SocketStream, sink: SocketStream) -> None:
    """Copy until `source` ends, then end `sink`'s writing side."""
    try:
        async for chunk in source:
            await sink.send(chunk)
        await sink.send_eof()
    except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
        # One side is gone: end both directions.
        await source.aclose()
        await sink.aclose()
