"""The app's own middleware keeps its answers while doing less per request:
the local-mode loopback guard remembers each peer's verdict; the concurrency
limit runs a bounded number of requests at once and lets the others in turn."""

from __future__ import annotations

import asyncio
import ipaddress
from typing import Any

import pytest
from starlette.types import Message, Receive, Scope, Send

from unimem.server.middleware import ConcurrencyLimitMiddleware, LoopbackOnlyMiddleware


class _Inner:
    """The app behind the guard: answers 200 and counts the requests let through."""

    def __init__(self) -> None:
        self.calls = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.calls += 1
        if scope["type"] == "http":
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"ok"})
        else:
            await send({"type": "websocket.accept"})


async def _answer(guard: LoopbackOnlyMiddleware, kind: str, client: Any) -> Message:
    """The first message the guard (or the app behind it) sends."""
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    scope: dict[str, Any] = {
        "type": kind,
        "path": "/v1/sessions",
        "method": "GET",
        "headers": [],
        "query_string": b"",
        "client": client,
    }
    await guard(scope, receive, send)
    return sent[0]


def _expected(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return True


@pytest.mark.parametrize("kind", ["http", "websocket"])
async def test_loopback_guard_gives_each_peer_the_same_verdict_every_time(kind: str) -> None:
    inner = _Inner()
    guard = LoopbackOnlyMiddleware(inner)
    hosts = ["127.0.0.1", "::1", "127.5.5.5", "192.0.2.7", "10.0.0.1", "2001:db8::1", "testclient"]
    # more remote peers than the guard remembers: it forgets and parses again
    hosts += [f"198.51.100.{i % 256}" for i in range(LoopbackOnlyMiddleware.CACHE_SIZE + 40)]
    hosts += [f"2001:db8::{i:x}" for i in range(300)]
    let_through = 0
    for _ in range(2):
        for host in [*hosts, "127.0.0.1", "::1"]:
            first = await _answer(guard, kind, (host, 5000))
            if _expected(host):
                let_through += 1
                assert first["type"] in ("http.response.start", "websocket.accept"), host
                assert first.get("status", 200) == 200
            elif kind == "http":
                assert first["type"] == "http.response.start" and first["status"] == 401, host
            else:
                assert first == {"type": "websocket.close", "code": 4401}, host
    assert inner.calls == let_through > 0
    assert len(guard._verdicts) <= LoopbackOnlyMiddleware.CACHE_SIZE


async def test_loopback_guard_lets_scopes_without_a_peer_through() -> None:
    inner = _Inner()
    guard = LoopbackOnlyMiddleware(inner)
    for client in (None, ()):
        assert (await _answer(guard, "http", client))["status"] == 200
    assert inner.calls == 2


class _Held:
    """An app whose requests wait for ``go``; ``started`` says when a response
    begins before the wait (a stream) rather than after it."""

    def __init__(self, *, stream: bool = False) -> None:
        self.go = asyncio.Event()
        self.stream = stream
        self.running = 0
        self.most = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.running += 1
        self.most = max(self.most, self.running)
        if self.stream:
            await send({"type": "http.response.start", "status": 200, "headers": []})
        await self.go.wait()
        if not self.stream:
            await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})
        self.running -= 1


async def _request(app: Any, path: str = "/v1/sessions") -> int:
    statuses: list[int] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        if message["type"] == "http.response.start":
            statuses.append(message["status"])

    scope = {"type": "http", "path": path, "method": "GET", "headers": []}
    await app(scope, receive, send)
    return statuses[0]


async def _settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


async def test_concurrency_limit_runs_at_most_limit_requests_and_the_rest_in_turn() -> None:
    inner = _Held()
    limited = ConcurrencyLimitMiddleware(inner, limit=2)
    requests = [asyncio.create_task(_request(limited)) for _ in range(5)]
    await _settle()
    assert inner.running == 2
    # a probe is never held back
    probe = _Held()
    probe.go.set()
    assert await _request(ConcurrencyLimitMiddleware(probe, limit=1), "/healthz") == 200
    inner.go.set()
    assert await asyncio.gather(*requests) == [200] * 5
    assert inner.most == 2


async def test_concurrency_limit_frees_the_place_once_the_response_starts() -> None:
    # a streamed response (server-sent events) does not hold its place while it streams
    stream = _Held(stream=True)
    limited = ConcurrencyLimitMiddleware(stream, limit=1)
    requests = [asyncio.create_task(_request(limited)) for _ in range(3)]
    await _settle()
    assert stream.running == 3
    stream.go.set()
    assert await asyncio.gather(*requests) == [200] * 3


async def test_concurrency_limit_frees_the_place_of_a_request_that_failed() -> None:
    class Failing:
        async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
            raise RuntimeError("boom")

    limited = ConcurrencyLimitMiddleware(Failing(), limit=1)
    for _ in range(3):
        with pytest.raises(RuntimeError):
            await asyncio.wait_for(_request(limited), 1)
