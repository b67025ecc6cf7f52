"""Bad input over HTTP: a clear JSON error naming the field, never a 500,
never a partial write."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from server_support import asgi_client, auth, create_app, settings
from unimem.errors import (
    AuthError,
    ConfigurationError,
    ContentTooLargeError,
    InvalidInputError,
    RateLimitedError,
    SchemaError,
    SessionClosedError,
    SessionNotFoundError,
    StoreUnavailableError,
    UnimemError,
)
from unimem.server.error_handlers import error_response, ws_close_code

ENTRIES = "/v1/sessions/s/entries"


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(settings(tmp_path, max_body_bytes=64 * 1024))
    async with asgi_client(app, headers=auth("alice")) as c:
        yield c


async def _nothing_stored(client: httpx.AsyncClient) -> None:
    r = await client.get("/v1/sessions/s/history")
    assert r.status_code in (200, 404)
    assert r.status_code == 404 or r.json() == []


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"role": "robot", "content": "x"}, "role"),
        ({"role": "user", "content": "x", "mode": "video"}, "mode"),
        ({"role": "user", "content": 5}, "content"),
        ({"role": "user"}, "content"),
        ({"role": "user", "content": "x", "surprise": True}, "surprise"),
        ({"role": "user", "content": "x", "language": "english!"}, "language"),
        ({"role": "user", "content": "x", "latency_ms": -1}, "latency_ms"),
        ({"role": "user", "content": "nul \u0000 inside"}, "content"),
        ({"role": "user", "content": "x", "user_id": "mallory"}, "entry.user_id"),
        ({"role": "user", "content": "x", "session_id": "other"}, "entry.session_id"),
        ({"role": "user", "content": "x", "id": "bad id with spaces"}, "entry.id"),
        ([1, 2], "(body)"),
    ],
)
async def test_invalid_entry_is_422_naming_the_field(
    client: httpx.AsyncClient, body: Any, field: str
) -> None:
    r = await client.post(ENTRIES, json=body)
    assert r.status_code == 422, r.text
    assert r.headers["content-type"] == "application/json"
    error = r.json()
    assert error["code"] == "invalid_input"
    assert error["field"] == field
    assert error["message"]
    await _nothing_stored(client)


async def test_content_over_the_limit_is_413_with_the_limit(client: httpx.AsyncClient) -> None:
    r = await client.post(ENTRIES, json={"role": "user", "content": "é" * 17_000})
    assert r.status_code == 413
    assert r.json()["code"] == "content_too_large"
    assert r.json()["field"] == "content" and r.json()["limit"] == 32 * 1024
    await _nothing_stored(client)


async def test_oversize_body_is_413_by_content_length(client: httpx.AsyncClient) -> None:
    big = b'{"role":"user","content":"' + b"a" * 70_000 + b'"}'
    r = await client.post(ENTRIES, content=big, headers={"content-type": "application/json"})
    assert r.status_code == 413 and r.json()["field"] == "(body)"
    await _nothing_stored(client)


async def test_oversize_streamed_body_is_413(client: httpx.AsyncClient) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        yield b'{"role":"user","content":"'
        for _ in range(20):
            yield b"a" * 4096
        yield b'"}'

    r = await client.post(ENTRIES, content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413 and r.json()["code"] == "content_too_large"
    await _nothing_stored(client)


@pytest.mark.parametrize(
    "raw",
    [b'{"role": "user", ', b"not json", b"", b'{"role": "user", "content": "x"}}'],
)
async def test_malformed_json_is_422(client: httpx.AsyncClient, raw: bytes) -> None:
    r = await client.post(ENTRIES, content=raw, headers={"content-type": "application/json"})
    assert r.status_code == 422, r.text
    assert r.json()["code"] == "invalid_input" and r.json()["field"] == "(body)"
    await _nothing_stored(client)


async def test_non_utf8_body_is_422(client: httpx.AsyncClient) -> None:
    raw = '{"role": "user", "content": "café"}'.encode("latin-1")
    r = await client.post(ENTRIES, content=raw, headers={"content-type": "application/json"})
    assert r.status_code == 422 and "UTF-8" in r.json()["message"]
    await _nothing_stored(client)


async def test_wrong_content_type_is_422(client: httpx.AsyncClient) -> None:
    r = await client.post(
        ENTRIES, content=b'{"role":"user","content":"x"}', headers={"content-type": "text/plain"}
    )
    assert r.status_code == 422
    await _nothing_stored(client)


@pytest.mark.parametrize(
    ("path", "params", "field"),
    [
        ("/v1/sessions/s/context", {"max_messages": 0}, "max_messages"),
        ("/v1/sessions/s/context", {"max_messages": 201}, "max_messages"),
        ("/v1/sessions/s/context", {"max_messages": "ten"}, "max_messages"),
        ("/v1/sessions/s/history", {"max_messages": 10_001}, "max_messages"),
        ("/v1/sessions/s/events", {"limit": 0}, "limit"),
        ("/v1/sessions/s/events", {"event_type": "Not Snake"}, "event_type"),
        ("/v1/sessions", {"limit": 0}, "limit"),
        ("/v1/sessions/bad%20id/context", {}, "session_id"),
    ],
)
async def test_out_of_range_queries_are_422(
    client: httpx.AsyncClient, path: str, params: dict[str, Any], field: str
) -> None:
    r = await client.get(path, params=params)
    assert r.status_code == 422, r.text
    assert r.json()["field"] == field


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/v1/sessions/s/mode-switch", {"from_mode": "voice", "to_mode": "fax"}, "to_mode"),
        ("/v1/sessions/s/mode-switch", {"from_mode": "voice"}, "to_mode"),
        (
            "/v1/sessions/s/language-switch",
            {"from_language": "en", "to_language": "fr", "trigger": "whim"},
            "trigger",
        ),
        (
            "/v1/sessions/s/language-switch",
            {"from_language": "en", "to_language": "??"},
            "to_language",
        ),
        ("/v1/sessions/s/events", {"event_type": "BadName"}, "event_type"),
        ("/v1/sessions/s/events", {"event_type": "ok", "data": [1]}, "data"),
        ("/v1/sessions/s/llm-context", {"current_query": "q", "max_tokens": 0}, "max_tokens"),
        ("/v1/sessions/s/llm-context", {"current_query": "q", "extra": 1}, "extra"),
    ],
)
async def test_invalid_bodies_are_422(
    client: httpx.AsyncClient, path: str, body: dict[str, Any], field: str
) -> None:
    await client.post(ENTRIES, json={"role": "user", "content": "x"})
    r = await client.post(path, json=body)
    assert r.status_code == 422, r.text
    assert r.json()["field"] == field
    events = (await client.get("/v1/sessions/s/events")).json()
    assert events == []


@pytest.mark.parametrize(
    ("path", "raw", "field"),
    [
        (ENTRIES, b'{"role":"user","content":"x","metadata":{"k":"\\ud800"}}', "metadata"),
        (ENTRIES, b'{"role":"user","content":"x","metadata":{"\\udfff":1}}', "metadata"),
        (ENTRIES, b'{"role":"user","content":"x","sources":[{"t":"a\\ud83d"}]}', "sources"),
        ("/v1/sessions/s/events", b'{"event_type":"ok","data":{"k":"\\ud800"}}', "data"),
    ],
)
async def test_escaped_lone_surrogates_in_json_fields_are_422(
    client: httpx.AsyncClient, path: str, raw: bytes, field: str
) -> None:
    """JSON can escape a lone surrogate, which no UTF-8 text holds: refused with
    the field named (it used to pass validation and fail the write with a 500)."""
    await client.post(ENTRIES, json={"role": "user", "content": "first"})
    r = await client.post(path, content=raw, headers={"Content-Type": "application/json"})
    assert r.status_code == 422, r.text
    assert r.json()["field"] == field and "surrogate" in r.json()["message"]
    history = (await client.get("/v1/sessions/s/history")).json()
    assert [e["content"] for e in history] == ["first"]
    assert (await client.get("/v1/sessions/s/events")).json() == []


@pytest.mark.parametrize(
    ("path", "raw", "field"),
    [
        (
            ENTRIES,
            b'{"role":"user","content":"x","metadata":{"n":18446744073709551616}}',
            "metadata",
        ),
        (
            ENTRIES,
            b'{"role":"user","content":"x","metadata":{"n":[-9223372036854775809]}}',
            "metadata",
        ),
        (
            ENTRIES,
            b'{"role":"user","content":"x","sources":[{"id":123456789012345678901}]}',
            "sources",
        ),
        ("/v1/sessions/s/events", b'{"event_type":"ok","data":{"n":99999999999999999999}}', "data"),
    ],
)
async def test_integers_beyond_64_bits_in_json_fields_are_422(
    client: httpx.AsyncClient, path: str, raw: bytes, field: str
) -> None:
    """Stores read JSON back with 64-bit integers: a wider one would come back
    rounded (as a float), so it is refused with the field named."""
    await client.post(ENTRIES, json={"role": "user", "content": "first"})
    r = await client.post(path, content=raw, headers={"Content-Type": "application/json"})
    assert r.status_code == 422, r.text
    assert r.json()["field"] == field and "64 bits" in r.json()["message"]
    history = (await client.get("/v1/sessions/s/history")).json()
    assert [e["content"] for e in history] == ["first"]
    assert (await client.get("/v1/sessions/s/events")).json() == []


async def test_the_widest_64_bit_integers_are_kept_exactly(client: httpx.AsyncClient) -> None:
    edges = {"max": 2**64 - 1, "min": -(2**63), "digits": "123456789012345678901"}
    r = await client.post(ENTRIES, json={"role": "user", "content": "x", "metadata": edges})
    assert r.status_code == 201, r.text
    [stored] = (await client.get("/v1/sessions/s/history")).json()
    assert stored["metadata"] == edges


async def test_invalid_delete_scope_is_422(client: httpx.AsyncClient) -> None:
    await client.post(ENTRIES, json={"role": "user", "content": "x"})
    r = await client.delete("/v1/me/memory", params={"scope": "week"})
    assert r.status_code == 422 and r.json()["field"] == "scope"
    r = await client.delete("/v1/me/memory", params={"scope": "day", "tz": "Mars/Olympus"})
    assert r.status_code == 422
    assert len((await client.get("/v1/sessions/s/history")).json()) == 1


async def test_unknown_route_and_method_are_json(client: httpx.AsyncClient) -> None:
    r = await client.get("/v1/nothing-here")
    assert r.status_code == 404 and r.json()["code"] == "not_found"
    r = await client.delete("/v1/sessions/s/entries")
    assert r.status_code == 405 and r.json()["code"] == "method_not_allowed"


@pytest.mark.parametrize(
    ("error", "status", "header"),
    [
        (InvalidInputError("bad", field="x"), 422, None),
        (ContentTooLargeError("big", field="content", limit=1), 413, None),
        (SessionNotFoundError("no"), 404, None),
        (SessionClosedError("closed"), 409, None),
        (AuthError("who"), 401, ("www-authenticate", "Bearer")),
        (RateLimitedError("slow down", retry_after=2.2), 429, ("retry-after", "3")),
        (StoreUnavailableError("down", retry_after=0.1), 503, ("retry-after", "1")),
        (SchemaError("migrate"), 503, ("retry-after", "30")),
        (ConfigurationError("bad setting"), 500, None),
    ],
)
def test_every_error_of_the_tree_has_its_status(
    error: UnimemError, status: int, header: tuple[str, str] | None
) -> None:
    response = error_response(error)
    assert response.status_code == status
    assert ws_close_code(error) == 4000 + status
    body = json.loads(bytes(response.body))
    assert body["code"] == error.code and body["message"] == error.message
    if header is not None:
        assert response.headers[header[0]] == header[1]
