"""The server's HTTP protocol: a response's head and body in one write, and
every kind of response still correct through a real uvicorn on loopback."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket

from unimem.server.http import OneWriteHttpProtocol, _OneWriteTransport


class FakeTransport:
    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = False
        self.aborted = False

    def write(self, data: bytes) -> None:
        self.writes.append(bytes(data))

    def close(self) -> None:
        self.closed = True

    def abort(self) -> None:
        self.aborted = True

    def get_extra_info(self, name: str) -> str:
        return f"info:{name}"


HEAD = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n"


async def test_head_and_body_go_out_in_one_write():
    fake = FakeTransport()
    wrapped = _OneWriteTransport(fake, asyncio.get_running_loop())  # type: ignore[arg-type]
    wrapped.write(HEAD)
    assert fake.writes == []
    wrapped.write(b"{}")
    assert fake.writes == [HEAD + b"{}"]
    await asyncio.sleep(0)  # the cancelled flush sends nothing more
    assert fake.writes == [HEAD + b"{}"]
    assert wrapped.get_extra_info("peername") == "info:peername"


async def test_a_head_without_a_body_goes_out_on_the_next_loop_turn():
    fake = FakeTransport()
    wrapped = _OneWriteTransport(fake, asyncio.get_running_loop())  # type: ignore[arg-type]
    wrapped.write(HEAD)
    await asyncio.sleep(0)
    assert fake.writes == [HEAD]
    wrapped.write(b"chunk")  # later writes pass straight through
    assert fake.writes == [HEAD, b"chunk"]


async def test_a_large_body_is_sent_after_the_head_not_copied_to_it():
    fake = FakeTransport()
    wrapped = _OneWriteTransport(fake, asyncio.get_running_loop())  # type: ignore[arg-type]
    body = b"x" * (64 * 1024 + 1)
    wrapped.write(HEAD)
    wrapped.write(body)
    assert fake.writes == [HEAD, body]


async def test_interim_responses_and_other_bytes_pass_straight_through():
    fake = FakeTransport()
    wrapped = _OneWriteTransport(fake, asyncio.get_running_loop())  # type: ignore[arg-type]
    wrapped.write(b"HTTP/1.1 100 Continue\r\n\r\n")
    wrapped.write(b"\x81\x02hi")  # e.g. a WebSocket frame
    wrapped.write(bytearray(b"HTTP/1.1 200 OK\r\n\r\n"))  # not bytes: not held
    assert fake.writes == [
        b"HTTP/1.1 100 Continue\r\n\r\n",
        b"\x81\x02hi",
        b"HTTP/1.1 200 OK\r\n\r\n",
    ]


async def test_close_sends_a_held_head_first_and_abort_drops_it():
    fake = FakeTransport()
    wrapped = _OneWriteTransport(fake, asyncio.get_running_loop())  # type: ignore[arg-type]
    wrapped.write(HEAD)
    wrapped.close()
    assert fake.writes == [HEAD] and fake.closed
    other = FakeTransport()
    wrapped = _OneWriteTransport(other, asyncio.get_running_loop())  # type: ignore[arg-type]
    wrapped.write(HEAD)
    wrapped.abort()
    await asyncio.sleep(0)
    assert other.writes == [] and other.aborted


# ---------------------------------------------------------------- real uvicorn


async def plain(request: Request) -> Response:
    return JSONResponse({"hello": "world"})


async def echo(request: Request) -> Response:
    return Response(await request.body(), media_type="application/octet-stream")


async def stream(request: Request) -> Response:
    async def chunks() -> AsyncIterator[bytes]:
        yield b"first,"
        await asyncio.sleep(0.01)
        yield b"second"

    return StreamingResponse(chunks(), media_type="text/plain")


async def empty(request: Request) -> Response:
    return Response(status_code=204)


async def ws_echo(websocket: WebSocket) -> None:
    await websocket.accept()
    text = await websocket.receive_text()
    await websocket.send_text(f"echo:{text}")
    await websocket.close()


APP = Starlette(
    routes=[
        Route("/plain", plain, methods=["GET", "HEAD"]),
        Route("/echo", echo, methods=["POST"]),
        Route("/stream", stream),
        Route("/empty", empty),
        WebSocketRoute("/ws", ws_echo),
    ]
)


@pytest.fixture
async def port() -> AsyncIterator[int]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        free = sock.getsockname()[1]
    config = uvicorn.Config(
        APP, host="127.0.0.1", port=free, http=OneWriteHttpProtocol, log_level="error"
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    for _ in range(500):
        if server.started or task.done():
            break
        await asyncio.sleep(0.01)
    assert server.started, "uvicorn did not start"
    yield free
    server.should_exit = True
    await task


async def exchange(port: int, request: bytes, *, until: bytes | None = None) -> bytes:
    """Send ``request`` on a new connection; read until the server closes it
    (requests say ``Connection: close``) or ``until`` has been seen."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    await writer.drain()
    data = b""
    while until is None or until not in data:
        chunk = await asyncio.wait_for(reader.read(65536), 5)
        if not chunk:
            break
        data += chunk
    writer.close()
    return data


async def test_responses_through_uvicorn_are_whole(port: int):
    got = await exchange(port, b"GET /plain HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert got.startswith(b"HTTP/1.1 200 OK\r\n")
    assert got.endswith(b'\r\n\r\n{"hello":"world"}')

    got = await exchange(port, b"HEAD /plain HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert got.startswith(b"HTTP/1.1 200 OK\r\n") and got.endswith(b"\r\n\r\n")
    assert b"content-length: 17" in got

    got = await exchange(port, b"GET /stream HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert b"transfer-encoding: chunked" in got
    assert got.endswith(b"6\r\nfirst,\r\n6\r\nsecond\r\n0\r\n\r\n")

    got = await exchange(port, b"GET /empty HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert got.startswith(b"HTTP/1.1 204 No Content\r\n") and got.endswith(b"\r\n\r\n")


async def test_keep_alive_requests_in_a_row(port: int):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    for i in range(3):
        body = f"ping {i}".encode()
        writer.write(
            b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
        )
        await writer.drain()
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
        assert head.startswith(b"HTTP/1.1 200 OK\r\n")
        assert await asyncio.wait_for(reader.readexactly(len(body)), 5) == body
    writer.close()


async def test_expect_continue_gets_its_interim_response(port: int):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n"
    )
    await writer.drain()
    interim = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
    assert interim == b"HTTP/1.1 100 Continue\r\n\r\n"
    writer.write(b"hello")
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
    assert head.startswith(b"HTTP/1.1 200 OK\r\n")
    assert await asyncio.wait_for(reader.readexactly(5), 5) == b"hello"
    writer.close()


async def test_websocket_upgrade_still_works(port: int):
    import websockets

    async with websockets.connect(f"ws://127.0.0.1:{port}/ws") as ws:
        await ws.send("hi")
        assert await asyncio.wait_for(ws.recv(), 5) == "echo:hi"


async def test_head_answered_when_the_client_half_closes(port: int):
    # the head of a HEAD response is not held past the response's end, nor
    # dropped when the client's EOF closes the connection
    for _ in range(5):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"HEAD /plain HTTP/1.1\r\nHost: x\r\n\r\n")
        await writer.drain()
        writer.write_eof()
        got = await asyncio.wait_for(reader.read(), 5)
        assert got.startswith(b"HTTP/1.1 200 OK\r\n") and got.endswith(b"\r\n\r\n")
        writer.close()
