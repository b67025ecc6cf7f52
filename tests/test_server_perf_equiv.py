"""The fast path's cheaper parts answer exactly as before: the plain
``max_messages`` query read without parse_qsl, bodies read by orjson (and by
json.loads where orjson would read them differently), the body handed over by
the body limit, the state read without Starlette's ``State``; and the JSON the
HTTP layer writes is what pydantic writes of the service's own results."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from server_support import asgi_client, create_app, settings
from test_server_fastpath import (
    BODY,
    GOOD,
    _fast_path,
    _normal,
    _seed,
    check_append_answers_the_same,
)
from unimem.models import MemoryEntry
from unimem.server.middleware import BODY_KEY
from unimem.server.sessions import JsonBytesResponse


def _raw(text: str) -> dict[str, Any]:
    return {"content": text.encode(), "headers": {"Content-Type": "application/json"}}


ENTRY_CASES: list[tuple[str, dict[str, Any], bool]] = [
    ("int-64", {"json": {**BODY, "metadata": {"n": 2**63 - 1, "m": -(2**63)}}}, True),
    # refused (they would read back rounded): FastAPI answers the 422
    ("int-beyond-64", {"json": {**BODY, "metadata": {"n": 2**64, "m": 2**70}}}, False),
    ("int-below-64", {"json": {**BODY, "metadata": {"n": -(2**63) - 1}}}, False),
    ("uint-64", {"json": {**BODY, "metadata": {"n": 2**64 - 1}}}, True),
    ("digits-in-text", {"json": {**BODY, "content": "call 12345678901234567890123"}}, True),
    ("many-short-numbers", {"json": {**BODY, "metadata": {"n": list(range(100, 140))}}}, True),
    ("floats", {"json": {**BODY, "metadata": {"f": [0.1, 1e300, -0.0, 5e-324, 1e16]}}}, True),
    (
        "float-long",
        _raw('{"role":"user","content":"x","metadata":{"f":1.000000000000000001}}'),
        True,
    ),
    ("float-huge", _raw('{"role":"user","content":"x","metadata":{"f":1e400}}'), False),
    ("nan", _raw('{"role":"user","content":"x","metadata":{"f":NaN}}'), False),
    ("infinity", _raw('{"role":"user","content":"x","metadata":{"f":-Infinity}}'), False),
    ("duplicate-keys", _raw('{"role":"user","content":"first","content":"second"}'), True),
    ("whitespace", _raw(' \n{ "role" : "user" ,\t"content" : "x" }\r\n'), True),
    ("escapes", _raw('{"role":"user","content":"\\u00e9\\ud83d\\ude00\\n\\"\\/"}'), True),
    ("lone-surrogate", _raw('{"role":"user","content":"a\\udc00"}'), False),
    ("non-ascii", {"json": {**BODY, "content": "مرحبا 你好 ✓ \u2028"}}, True),
    ("trailing-comma", _raw('{"role":"user","content":"x",}'), False),
    ("two-documents", _raw('{"role":"user","content":"x"}{"a":1}'), False),
    (
        "utf-16",
        {
            "content": json.dumps(BODY).encode("utf-16"),
            "headers": {"Content-Type": "application/json"},
        },
        False,
    ),
    ("latency-int", {"json": {**BODY, "latency_ms": 5}}, True),
]


@pytest.mark.parametrize(("name", "kwargs", "fast"), ENTRY_CASES, ids=[c[0] for c in ENTRY_CASES])
async def test_entry_bodies_answer_the_same(
    tmp_path: Path, name: str, kwargs: dict[str, Any], fast: bool
) -> None:
    await check_append_answers_the_same(
        tmp_path, kwargs, fast, default_headers={"Content-Type": "application/json"}
    )


def _direct(app: FastAPI) -> Any:
    """The fast path layer called without the body limit around it, so it
    reads the body from ``receive`` itself."""
    layer = _fast_path(app)

    async def call(scope: Any, receive: Any, send: Any) -> None:
        scope["app"] = app
        assert BODY_KEY not in scope
        await layer(scope, receive, send)

    return call


# The body limit refuses bodies that are not UTF-8 before the fast path sees them.
DIRECT_CASES = [case for case in ENTRY_CASES if case[0] != "utf-16"]


@pytest.mark.parametrize(("name", "kwargs", "fast"), DIRECT_CASES, ids=[c[0] for c in DIRECT_CASES])
async def test_the_fast_path_reads_the_body_itself_without_the_body_limit(
    tmp_path: Path, name: str, kwargs: dict[str, Any], fast: bool
) -> None:
    kwargs = dict(kwargs)
    app = create_app(settings(tmp_path))
    async with asgi_client(app) as client:
        await _seed(client, n=1)
        headers = {**GOOD, **kwargs.pop("headers", {"Content-Type": "application/json"})}
        transport = httpx.ASGITransport(app=_direct(app))
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as direct:
            before = _fast_path(app).served
            a = await direct.post("/v1/sessions/twin-on/entries", headers=headers, **kwargs)
            assert _fast_path(app).served - before == int(fast)
            app.state.fast_path = False
            b = await client.post("/v1/sessions/twin-off/entries", headers=headers, **kwargs)
            app.state.fast_path = True
        assert _normal(a) == _normal(b)


async def test_responses_are_what_pydantic_writes_of_the_service_results(tmp_path: Path) -> None:
    app = create_app(settings(tmp_path))
    async with asgi_client(app) as client:
        bodies = [
            {**BODY, "content": "plain"},
            {**BODY, "latency_ms": 12.5, "metadata": {"f": [0.1, 1e16, 2**64 - 1], "t": "é"}},
            {"role": "assistant", "content": "x" * 300, "mode": "text", "latency_ms": 7},
            {**BODY, "sources": [{"url": "u", "score": 0.25}], "retrieved_passages": ["p"]},
        ]
        for session in ("main", "other"):
            for body in bodies:
                r = await client.post(f"/v1/sessions/{session}/entries", json=body, headers=GOOD)
                assert r.status_code == 201
                stored = MemoryEntry.model_validate_json(r.content)
                assert r.content == stored.model_dump_json().encode()
        service = app.state.service
        r = await client.get("/v1/sessions/main/context?max_messages=10", headers=GOOD)
        expected = await service.get_context("main", 10, True, user_id="alice")
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert r.content == expected.model_dump_json().encode()
        assert b'"recent":[{' in r.content  # the other session's entries are in it
        r = await client.get("/v1/sessions/main/history", headers=GOOD)
        history = await service.get_history("main", 50, user_id="alice")
        assert r.content == b"[" + b",".join(e.model_dump_json().encode() for e in history) + b"]"


async def test_fast_path_responses_are_json_bytes_responses(tmp_path: Path) -> None:
    """The fast path's answers carry Starlette's own headers for them."""
    app = create_app(settings(tmp_path))
    async with asgi_client(app) as client:
        await _seed(client, n=1)
        r = await client.get("/v1/sessions/twin-on/context", headers=GOOD)
    assert r.headers["content-type"] == "application/json"
    assert r.headers["content-length"] == str(len(r.content))
    assert list(r.headers) == ["content-length", "content-type"]
    assert JsonBytesResponse(b"{}", 201).raw_headers == [
        (b"content-length", b"2"),
        (b"content-type", b"application/json"),
    ]
