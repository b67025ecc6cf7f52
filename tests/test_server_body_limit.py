"""A request body over the server's limit, sent to a real uvicorn server on
loopback: the client reads a 413 that names the limit (not a reset
connection), whether the body declares its length or streams it, and
nothing is stored."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from server_support import auth, create_app, running_server, settings, token
from unimem.client import MemoryClient
from unimem.errors import ContentTooLargeError, StoreUnavailableError
from unimem.server import middleware

LIMIT = 64 * 1024
#: Far more than the sockets' buffers hold: the server must read it for the
#: client, which sends its whole body first, to read the answer.
BIG = 5 * 1024 * 1024
ENTRIES = "/v1/sessions/s/entries"


@pytest.fixture
async def base(tmp_path: Path) -> AsyncIterator[str]:
    async with running_server(create_app(settings(tmp_path, max_body_bytes=LIMIT))) as url:
        yield url


async def _nothing_stored(base: str) -> None:
    async with MemoryClient(base, token=token("alice")) as client:
        assert await client.list_sessions() == []


async def test_memory_client_gets_content_too_large_for_a_5_mb_body(base: str) -> None:
    async with MemoryClient(base, token=token("alice"), timeout=30) as client:
        with pytest.raises(ContentTooLargeError) as refused:
            await client.add_entry("s", {"role": "user", "content": "x" * BIG})
        assert refused.value.field == "(body)" and refused.value.limit == LIMIT
        assert f"larger than {LIMIT} bytes" in str(refused.value)
        assert "UNIMEM_MAX_BODY_BYTES" in str(refused.value)
        # the same client goes on working (a new connection)
        stored = await client.add_entry("s", {"role": "user", "content": "small"})
        assert stored.content == "small"
        history = await client.get_history("s")
        assert [e.content for e in history] == ["small"]


async def test_a_streamed_5_mb_body_is_413_json(base: str) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        yield b'{"role":"user","content":"'
        for _ in range(BIG // 65536):
            yield b"a" * 65536
        yield b'"}'

    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        r = await http.post(
            ENTRIES,
            content=chunks(),
            headers={"content-type": "application/json", **auth("alice")},
        )
    assert "content-length" not in r.request.headers  # chunked
    assert r.status_code == 413
    assert r.json()["code"] == "content_too_large" and r.json()["limit"] == LIMIT
    await _nothing_stored(base)


async def test_a_declared_5_mb_body_is_413_json(base: str) -> None:
    body = b'{"role":"user","content":"' + b"a" * BIG + b'"}'
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        r = await http.post(
            ENTRIES, content=body, headers={"content-type": "application/json", **auth("alice")}
        )
    assert r.status_code == 413 and r.json()["field"] == "(body)"
    assert r.headers["connection"] == "close"
    await _nothing_stored(base)


async def test_a_body_too_big_to_read_is_cut_and_the_client_says_why(
    base: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # past what the server reads of a refused body, it closes on the rest: the
    # client cannot read the 413 and says what the size probably means
    monkeypatch.setattr(middleware, "DRAIN_BYTES", 0)
    async with MemoryClient(base, token=token("alice"), timeout=30) as client:
        with pytest.raises(StoreUnavailableError) as cut:
            await client.add_entry("s", {"role": "user", "content": "x" * BIG})
    assert "UNIMEM_MAX_BODY_BYTES" in str(cut.value) and "-byte request body" in str(cut.value)
    await _nothing_stored(base)


async def test_an_unauthenticated_body_just_over_the_limit_is_413_json(base: str) -> None:
    # dropping up to the limit again lets a client without credentials read
    # the answer when its body was a little too big
    body = b'{"role":"user","content":"' + b"a" * (LIMIT + 16 * 1024) + b'"}'
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        r = await http.post(ENTRIES, content=body, headers={"content-type": "application/json"})
    assert r.status_code == 413 and r.json()["limit"] == LIMIT


CHUNK = 64 * 1024


async def _refuse(headers: list[tuple[bytes, bytes]], chunks: int) -> tuple[int, int]:
    """A body of ``chunks`` pieces through the body limit alone: the status it
    answers and how many pieces it read."""
    from unimem.server.auth import Authenticator
    from unimem.server.middleware import BodyLimitMiddleware

    read = 0
    statuses: list[int] = []

    async def receive() -> dict[str, object]:
        nonlocal read
        read += 1
        return {"type": "http.request", "body": b"a" * CHUNK, "more_body": read < chunks}

    async def send(message: dict[str, object]) -> None:
        if message["type"] == "http.response.start":
            statuses.append(int(message["status"]))  # type: ignore[call-overload]

    async def never(scope: object, receive: object, send: object) -> None:
        raise AssertionError("a refused body reached the app")

    from server_support import SECRET

    limit = BodyLimitMiddleware(never, LIMIT, Authenticator(SECRET, "local"))
    scope = {"type": "http", "method": "POST", "path": ENTRIES, "headers": headers}
    await limit(scope, receive, send)  # type: ignore[arg-type]
    return statuses[0], read


def _bearer(user: str) -> tuple[bytes, bytes]:
    return b"authorization", auth(user)["Authorization"].encode()


async def test_a_refused_streamed_body_is_dropped_whole_only_for_a_valid_token() -> None:
    chunks = BIG // CHUNK
    assert await _refuse([_bearer("alice")], chunks) == (413, chunks)
    # without one: the limit, then the limit again (each overshot by a piece)
    most = (2 * LIMIT) // CHUNK + 2
    status, read = await _refuse([], chunks)
    assert status == 413 and read <= most
    status, read = await _refuse([(b"authorization", b"Bearer forged")], chunks)
    assert status == 413 and read <= most


async def test_a_declared_body_far_over_the_limit_is_not_read_without_a_valid_token() -> None:
    chunks = BIG // CHUNK
    declared = (b"content-length", str(BIG).encode())
    assert await _refuse([declared, _bearer("alice")], chunks) == (413, chunks)
    assert await _refuse([declared], chunks) == (413, 0)
