"""The app's own middleware keeps its answers while doing less per request:
the local-mode loopback guard remembers each peer's verdict."""

from __future__ import annotations

import ipaddress
from typing import Any

import pytest
from starlette.types import Message, Receive, Scope, Send

from unimem.server.middleware import LoopbackOnlyMiddleware


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
