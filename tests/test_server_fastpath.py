"""The direct route for entry appends and context reads answers exactly what
FastAPI's route answers: each request is sent twice, once with the fast path on
and once off, to twin sessions, and the responses compared. Also the verified
token memory (expired tokens are still refused) and the metrics labels."""

from __future__ import annotations

import asyncio
import json
import re
import time
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest
from fastapi import FastAPI

from server_support import SECRET, asgi_client, auth, create_app, settings, token
from unimem.errors import AuthError
from unimem.server.auth import Authenticator
from unimem.server.fastpath import FastPathMiddleware
from unimem.server.settings import RateLimit

BODY = {"role": "user", "content": "hello there", "mode": "voice", "language": "en"}
_VOLATILE = re.compile(rb'"(id|timestamp|started_at|last_active_at)":"[^"]*"')


def _fast_path(app: FastAPI) -> FastPathMiddleware:
    layer: Any = app.middleware_stack
    while not isinstance(layer, FastPathMiddleware):
        layer = layer.app
    return layer


def _normal(response: httpx.Response) -> tuple[int, bytes, dict[str, str]]:
    """Status, body and headers, with ids and times blanked and the twin
    sessions renamed, so twin requests to twin sessions compare equal."""
    body = _VOLATILE.sub(rb'"\1":"*"', response.content)
    body = body.replace(b"twin-off", b"S").replace(b"twin-on", b"S")
    headers = {
        k: v.replace("twin-off", "S").replace("twin-on", "S")
        for k, v in response.headers.items()
        if k != "content-length"
    }
    return response.status_code, body, headers


async def _both(
    app: FastAPI,
    client: httpx.AsyncClient,
    method: str,
    path: str,
    **kwargs: Any,
) -> tuple[tuple[int, bytes, dict[str, str]], int]:
    """Send the request with the fast path off (session ``...-off``) and on
    (``...-on``); assert equal answers; return the answer and whether the fast
    path served it."""
    answers = []
    served = 0
    for mode in ("off", "on"):
        app.state.fast_path = mode == "on"
        before = _fast_path(app).served
        session = f"twin-{mode}"
        r = await client.request(method, path.replace("{s}", session), **kwargs)
        served = _fast_path(app).served - before
        answers.append(_normal(r))
    app.state.fast_path = True
    assert answers[0] == answers[1]
    return answers[1], served


async def _seed(client: httpx.AsyncClient, user: str = "alice", n: int = 12) -> None:
    for mode in ("off", "on"):
        for i in range(n):
            body = {**BODY, "content": f"message {i}"}
            r = await client.post(
                f"/v1/sessions/twin-{mode}/entries", json=body, headers=auth(user)
            )
            assert r.status_code == 201, r.text


GOOD = auth("alice")

CONTEXT_QUERIES = [
    ("", True),
    ("?max_messages=10", True),
    ("?max_messages=1", True),
    ("?max_messages=3&include_rag=false", True),
    ("?include_rag=true&max_messages=5", True),
    ("?max_messages=4&max_messages=2", True),
    ("?max_messages=10&unknown=1&x", True),
    ("?max_messages=0", False),
    ("?max_messages=-1", False),
    ("?max_messages=abc", False),
    ("?max_messages=", False),
    ("?max_messages=010", False),
    ("?max_messages=+5", False),
    ("?max_messages=%205", False),
    ("?max_messages=5.0", False),
    ("?max_messages=99999999999999999999", False),
    ("?max_messages=1000000", False),
    ("?max_messages=abc&max_messages=3", False),
    ("?include_rag=False", False),
    ("?include_rag=0", False),
    ("?include_rag=maybe", False),
    ("?max%5Fmessages=2", True),
    ("?max_messages=7", True),
    ("?max_messages=200", True),  # the limit
    ("?max_messages=201", False),
    ("?max_messages=99999999", False),
    ("?max_messages=999999999", False),
    ("?max_messages=1000000000", False),
    ("?max_messages=10&", True),
    ("?&max_messages=10", True),
    ("?max_messages=10%23x", False),
    ("?max_messages=1%30", True),  # percent-encoded digits: parse_qsl reads 10
    ("?MAX_MESSAGES=3", True),  # not the parameter: the default applies
    ("?include_rag=false", True),
]


@pytest.mark.parametrize(("query", "fast"), CONTEXT_QUERIES, ids=[q for q, _ in CONTEXT_QUERIES])
async def test_context_reads_answer_the_same(tmp_path: Path, query: str, fast: bool) -> None:
    app = create_app(settings(tmp_path))
    async with asgi_client(app) as client:
        await _seed(client)
        (status, _, _), served = await _both(
            app, client, "GET", "/v1/sessions/{s}/context" + query, headers=GOOD
        )
        assert served == int(fast)
        if fast:
            assert status == 200


@pytest.mark.parametrize(
    ("path", "headers"),
    [
        ("/v1/sessions/{s}/context", {}),
        ("/v1/sessions/{s}/context", {"Authorization": "Bearer nope"}),
        ("/v1/sessions/{s}/context", {"Authorization": f"Basic {token('alice')}"}),
        ("/v1/sessions/{s}/context", auth("mallory")),  # another user's session
        ("/v1/sessions/unknown-{s}/context", GOOD),
        ("/v1/sessions/{s}/context/", GOOD),
        ("/v1/sessions/bad%20id-{s}/context", GOOD),
        ("/v1/sessions/" + "x" * 129 + "{s}/context", GOOD),
    ],
)
async def test_context_edge_cases_answer_the_same(
    tmp_path: Path, path: str, headers: dict[str, str]
) -> None:
    app = create_app(settings(tmp_path))
    async with asgi_client(app) as client:
        await _seed(client)
        await _both(app, client, "GET", path, headers=headers)
        await _both(app, client, "HEAD", path, headers=headers)


ENTRY_CASES: list[tuple[str, dict[str, Any], bool]] = [
    ("plain", {"json": BODY}, True),
    ("minimal", {"json": {"role": "assistant", "content": "ok"}}, True),
    (
        "charset",
        {
            "content": json.dumps(BODY).encode(),
            "headers": {"Content-Type": "application/json; charset=utf-8"},
        },
        True,
    ),
    ("with-id", {"json": {**BODY, "id": "fixed-id-1"}}, True),
    ("metadata", {"json": {**BODY, "metadata": {"k": [1, 2.5, None, "v"]}}}, True),
    ("not-json", {"content": b"{not json", "headers": {"Content-Type": "application/json"}}, False),
    ("list", {"json": [BODY]}, False),
    ("empty", {"content": b"", "headers": {"Content-Type": "application/json"}}, False),
    ("no-content", {"json": {"role": "user"}}, False),
    ("bad-role", {"json": {**BODY, "role": "wizard"}}, False),
    ("extra-field", {"json": {**BODY, "surprise": 1}}, False),
    (
        "nan",
        {
            "content": b'{"role":"user","content":NaN}',
            "headers": {"Content-Type": "application/json"},
        },
        False,
    ),
    (
        "deep",
        {
            "content": b"[" * 100_000 + b"]" * 100_000,
            "headers": {"Content-Type": "application/json"},
        },
        False,
    ),
    (
        "text-plain",
        {"content": json.dumps(BODY).encode(), "headers": {"Content-Type": "text/plain"}},
        False,
    ),
    ("no-type", {"content": json.dumps(BODY).encode()}, False),
    (
        "vendor-json",
        {
            "content": json.dumps(BODY).encode(),
            "headers": {"Content-Type": "application/vnd.x+json"},
        },
        False,
    ),
    (
        "bom",
        {
            "content": b"\xef\xbb\xbf" + json.dumps(BODY).encode(),
            "headers": {"Content-Type": "application/json"},
        },
        True,  # json.loads reads the BOM, as Starlette's Request.json() does
    ),
    (
        "surrogate",
        {
            "content": b'{"role":"user","content":"a\\ud800b"}',
            "headers": {"Content-Type": "application/json"},
        },
        False,
    ),
    ("trigger", {"json": BODY, "params": {"trigger": "user_request"}}, False),
    ("bad-trigger", {"json": BODY, "params": {"trigger": "nope"}}, False),
]


@pytest.mark.parametrize(("name", "kwargs", "fast"), ENTRY_CASES, ids=[c[0] for c in ENTRY_CASES])
async def test_entry_appends_answer_the_same(
    tmp_path: Path, name: str, kwargs: dict[str, Any], fast: bool
) -> None:
    await check_append_answers_the_same(tmp_path, kwargs, fast, default_headers={})


async def check_append_answers_the_same(
    tmp_path: Path, kwargs: dict[str, Any], fast: bool, *, default_headers: dict[str, str]
) -> None:
    """POST ``kwargs`` with the fast path on and off: the same answer, served by
    the fast path as ``fast`` says, and the same history afterwards."""
    kwargs = dict(kwargs)
    app = create_app(settings(tmp_path))
    async with asgi_client(app) as client:
        await _seed(client, n=2)
        headers = {**GOOD, **kwargs.pop("headers", default_headers)}
        _, served = await _both(
            app, client, "POST", "/v1/sessions/{s}/entries", headers=headers, **kwargs
        )
        assert served == int(fast)
        # Both twins hold the same history afterwards.
        histories = []
        for mode in ("off", "on"):
            r = await client.get(f"/v1/sessions/twin-{mode}/history", headers=GOOD)
            histories.append(_normal(r))
        assert histories[0] == histories[1]


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Bearer nope"},
        {"Authorization": f"Bearer {token('alice', ttl=-10)}"},
        auth("mallory"),
    ],
    ids=["missing", "garbage", "expired", "other-user"],
)
async def test_entry_auth_and_isolation_answer_the_same(
    tmp_path: Path, headers: dict[str, str]
) -> None:
    app = create_app(settings(tmp_path))
    async with asgi_client(app) as client:
        await _seed(client, n=2)
        (status, _, _), _ = await _both(
            app, client, "POST", "/v1/sessions/{s}/entries", json=BODY, headers=headers
        )
        assert status in (401, 404)


async def test_closed_session_and_service_errors_answer_the_same(tmp_path: Path) -> None:
    app = create_app(settings(tmp_path))
    async with asgi_client(app) as client:
        await _seed(client, n=2)
        for mode in ("off", "on"):
            r = await client.post(f"/v1/sessions/twin-{mode}/close", headers=GOOD)
            assert r.status_code == 200
        (status, _, _), served = await _both(
            app, client, "POST", "/v1/sessions/{s}/entries", json=BODY, headers=GOOD
        )
        assert (status, served) == (409, 1)
        big = {**BODY, "content": "x" * 200_000}
        (status, _, _), _ = await _both(
            app, client, "POST", "/v1/sessions/{s}/entries", json=big, headers=GOOD
        )
        assert status in (409, 413, 422)


async def test_rate_limit_counts_each_request_once(tmp_path: Path) -> None:
    answers: dict[str, list[tuple[int, bytes, dict[str, str]]]] = {}
    for mode in ("off", "on"):
        app = create_app(settings(tmp_path / mode, rate_limit=RateLimit(5, 3600.0)))
        async with asgi_client(app) as client:
            app.state.fast_path = mode == "on"
            seq = []
            for i in range(8):
                if i % 2:
                    r = await client.get("/v1/sessions/s/context", headers=GOOD)
                else:
                    r = await client.post("/v1/sessions/s/entries", json=BODY, headers=GOOD)
                seq.append(_normal(r))
            answers[mode] = seq
    assert answers["off"] == answers["on"]
    assert [status for status, _, _ in answers["on"]] == [201, 200, 201, 200, 201, 429, 429, 429]


async def test_metrics_label_fast_requests_by_route_template(tmp_path: Path) -> None:
    app = create_app(settings(tmp_path))
    async with asgi_client(app) as client:
        await _seed(client, n=1)
        before = _fast_path(app).served
        await client.get("/v1/sessions/twin-on/context?max_messages=3", headers=GOOD)
        assert _fast_path(app).served == before + 1
        text = (await client.get("/metrics")).text
    assert (
        'unimem_http_request_duration_seconds_count{method="GET",'
        'route="/v1/sessions/{session_id}/context",status="200"} 1.0'
    ) in text
    assert 'route="/v1/sessions/{session_id}/entries",status="201"} 2.0' in text


async def test_local_mode_fast_path_is_the_local_user(tmp_path: Path) -> None:
    app = create_app(settings(tmp_path, jwt_secret=None))
    async with asgi_client(app) as client:
        await _seed(client, user="ignored", n=1)
        (status, body, _), served = await _both(
            app, client, "GET", "/v1/sessions/{s}/context", headers={}
        )
    assert (status, served) == (200, 1)
    assert b'"user_id":"local"' in body


# The verified-token memory


def _claims_token(**claims: Any) -> str:
    return jwt.encode(claims, SECRET, algorithm="HS256")


async def test_a_remembered_token_is_refused_once_expired() -> None:
    authn = Authenticator(SECRET, "local")
    exp = int(time.time()) + 2
    tok = _claims_token(sub="alice", exp=exp)
    assert authn.user_from_token(tok) == "alice"
    assert authn.user_from_token(tok) == "alice"  # remembered
    assert tok in authn._verified
    await asyncio.sleep(max(0.0, exp - time.time()) + 0.05)
    with pytest.raises(AuthError, match="expired"):
        authn.user_from_token(tok)
    with pytest.raises(AuthError, match="expired"):
        authn.user_from_token(tok)
    assert tok not in authn._verified


def test_failures_and_future_tokens_are_not_remembered() -> None:
    authn = Authenticator(SECRET, "local")
    later = int(time.time()) + 600
    for tok in (
        _claims_token(sub="alice", exp=later + 60, nbf=later),
        _claims_token(sub="alice", exp=later + 60, iat=later),
        _claims_token(sub="alice", exp=int(time.time()) - 1),
        jwt.encode({"sub": "alice", "exp": later}, "w" * 40, algorithm="HS256"),
    ):
        for _ in range(2):
            with pytest.raises(AuthError):
                authn.user_from_token(tok)
    assert authn._verified == {}


def test_a_remembered_token_keeps_its_claim_window(monkeypatch: pytest.MonkeyPatch) -> None:
    authn = Authenticator(SECRET, "local")
    now = int(time.time())
    tok = _claims_token(sub="alice", exp=now + 600, iat=now - 5)
    assert authn.user_from_token(tok) == "alice"
    assert authn._verified[tok] == ("alice", float(now - 5), float(now + 600))
    # A clock beyond the window drops the memory and decodes again.
    monkeypatch.setattr("unimem.server.auth.time.time", lambda: now + 601.0)
    assert authn.user_from_token(tok) == "alice"  # PyJWT's own clock still accepts it


def test_the_token_memory_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Authenticator, "CACHE_SIZE", 3)
    authn = Authenticator(SECRET, "local")
    tokens = [token(f"user{i}") for i in range(5)]
    for i, tok in enumerate(tokens):
        assert authn.user_from_token(tok) == f"user{i}"
    assert list(authn._verified) == tokens[2:]
    long = _claims_token(sub="alice", exp=int(time.time()) + 60, pad="p" * 4000)
    assert authn.user_from_token(long) == "alice"
    assert long not in authn._verified
