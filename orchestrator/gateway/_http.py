"""A small HTTP/1.1 server on anyio streams and h11 (the gateway's front door).

Not a web framework: one handler per request, keep-alive, bounded request bodies, and
responses whose body is either bytes or an async iterator of chunks (streamed with
chunked transfer encoding, how server-sent events pass through). Runs on any anyio
backend, unlike the asyncio-only ASGI servers.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

import anyio
import h11
from anyio.abc import ByteStream

log = logging.getLogger("orchestrator.gateway")

MAX_BODY = 32 * 1024 * 1024  # a request bigger than this is refused with 413
_READ = 65536
_IDLE_S = 300.0  # a keep-alive connection with no request for this long is closed


@dataclass(frozen=True, slots=True)
class Request:
    method: str
    path: str
    headers: dict[str, str]  # lower-case names; a repeated header keeps its last value
    body: bytes


@dataclass(slots=True)
class Response:
    status: int
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""
    stream: AsyncIterator[bytes] | None = None  # when set, sent chunk by chunk


Handler = Callable[[Request], Awaitable[Response]]


class _Closed(Exception):
    pass


class _TooLarge(Exception):
    pass


async def _next_event(conn: h11.Connection, stream: ByteStream) -> object:
    while True:
        event = conn.next_event()
        if event is not h11.NEED_DATA:
            return event
        try:
            data = await stream.receive(_READ)
        except (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError):
            data = b""
        conn.receive_data(data)
        if not data and conn.their_state is not h11.DONE:
            # The peer closed: h11 then yields ConnectionClosed or raises.
            event = conn.next_event()
            if event is h11.NEED_DATA:
                raise _Closed
            return event


async def _read_request(conn: h11.Connection, stream: ByteStream) -> Request | None:
    event = await _next_event(conn, stream)
    if isinstance(event, h11.ConnectionClosed):
        return None
    if not isinstance(event, h11.Request):
        raise _Closed
    headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in event.headers}
    chunks: list[bytes] = []
    size = 0
    while True:
        part = await _next_event(conn, stream)
        if isinstance(part, h11.Data):
            size += len(part.data)
            if size > MAX_BODY:
                raise _TooLarge
            chunks.append(bytes(part.data))
        elif isinstance(part, h11.EndOfMessage):
            break
        else:
            raise _Closed
    target = event.target.decode("latin-1")
    return Request(
        method=event.method.decode("ascii"), path=target, headers=headers, body=b"".join(chunks)
    )


async def _send(conn: h11.Connection, stream: ByteStream, data: bytes | None) -> None:
    if data:
        await stream.send(data)


async def _respond(conn: h11.Connection, stream: ByteStream, resp: Response) -> None:
    headers = [(k, v) for k, v in resp.headers if k.lower() not in ("content-length", "connection")]
    if resp.stream is None:
        headers.append(("content-length", str(len(resp.body))))
    await _send(conn, stream, conn.send(h11.Response(status_code=resp.status, headers=headers)))
    if resp.stream is None:
        await _send(conn, stream, conn.send(h11.Data(data=resp.body)))
    else:
        async for chunk in resp.stream:
            if chunk:
                await _send(conn, stream, conn.send(h11.Data(data=chunk)))
    await _send(conn, stream, conn.send(h11.EndOfMessage()))


def _plain(status: int, text: str) -> Response:
    return Response(status=status, headers=[("content-type", "text/plain")], body=text.encode())


async def serve_connection(stream: ByteStream, handler: Handler) -> None:
    """Answer requests on one connection until the client or the protocol closes it."""
    conn = h11.Connection(h11.SERVER)
    async with stream:
        while True:
            try:
                with anyio.fail_after(_IDLE_S):
                    request = await _read_request(conn, stream)
            except TimeoutError:
                return
            except _TooLarge:
                await _try_respond(conn, stream, _plain(413, "request body too large"))
                return
            except (_Closed, h11.RemoteProtocolError):
                if conn.our_state in (h11.IDLE, h11.SEND_RESPONSE):
                    await _try_respond(conn, stream, _plain(400, "bad request"))
                return
            if request is None:
                return
            try:
                response = await handler(request)
            except Exception:  # a bug of ours: say so to the client, keep serving others
                log.exception("gateway handler failed on %s %s", request.method, request.path)
                response = _plain(500, "gateway error")
            try:
                await _respond(conn, stream, response)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError, h11.LocalProtocolError):
                return  # the client hung up mid-answer
            finally:
                if response.stream is not None:
                    aclose = getattr(response.stream, "aclose", None)
                    if aclose is not None:
                        with anyio.move_on_after(10.0, shield=True):
                            await aclose()
            if conn.our_state is not h11.DONE or conn.their_state is not h11.DONE:
                return
            try:
                conn.start_next_cycle()
            except h11.LocalProtocolError:
                return


async def _try_respond(conn: h11.Connection, stream: ByteStream, resp: Response) -> None:
    try:
        await _respond(conn, stream, resp)
    except (anyio.BrokenResourceError, anyio.ClosedResourceError, h11.LocalProtocolError):
        pass
