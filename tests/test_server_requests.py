"""The entry append and the context read as clients send them: which queries
and bodies are accepted, each request counted once by the rate limit and the
metrics under its route template, local mode's user; and the verified-token
memory (expired tokens are still refused)."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import jwt
import pytest

from server_support import SECRET, asgi_client, auth, create_app, settings, token
from unimem.errors import AuthError
from unimem.server.auth import Authenticator
from unimem.server.server_settings import RateLimit

BODY = {"role": "user", "content": "hello there", "mode": "voice", "language": "en"}
GOOD = auth("alice")


async def _seed(client: Any, session: str = "s", user: str = "alice", n: int = 12) -> None:
    for i in range(n):
        body = {**BODY, "content": f"message {i}"}
        r = await client.post(f"/v1/sessions/{session}/entries", json=body, headers=auth(user))
        assert r.status_code == 201, r.text


# (query, status, messages in the context when 200)
CONTEXT_QUERIES: list[tuple[str, int, int]] = [
    ("", 200, 10),
    ("?max_messages=1", 200, 1),
    ("?max_messages=3&include_rag=false", 200, 3),
    ("?include_rag=true&max_messages=5", 200, 5),
    ("?max_messages=4&max_messages=2", 200, 2),  # the last value wins
    ("?max_messages=10&unknown=1&x", 200, 10),
    ("?max%5Fmessages=2", 200, 2),
    ("?max_messages=1%30", 200, 10),  # percent-encoded digits: 10
    ("?MAX_MESSAGES=3", 200, 10),  # not the parameter: the default applies
    ("?max_messages=200", 200, 12),  # the limit
    ("?max_messages=0", 422, 0),
    ("?max_messages=-1", 422, 0),
    ("?max_messages=abc", 422, 0),
    ("?max_messages=", 422, 0),
    ("?max_messages=5.5", 422, 0),
    ("?max_messages=201", 422, 0),
    ("?max_messages=99999999999999999999", 422, 0),
    ("?include_rag=maybe", 422, 0),
]


@pytest.mark.parametrize(
    ("query", "status", "count"), CONTEXT_QUERIES, ids=[q or "none" for q, _, _ in CONTEXT_QUERIES]
)
async def test_context_queries_are_read_as_declared(
    tmp_path: Path, query: str, status: int, count: int
) -> None:
    app = create_app(settings(tmp_path))
    async with asgi_client(app) as client:
        await _seed(client)
        r = await client.get("/v1/sessions/s/context" + query, headers=GOOD)
    assert r.status_code == status, r.text
    if status == 200:
        assert len(r.json()["messages"]) == count
    else:
        assert r.json()["code"] == "invalid_input"


ENTRY_CASES: list[tuple[str, dict[str, Any], int]] = [
    ("plain", {"json": BODY}, 201),
    ("minimal", {"json": {"role": "assistant", "content": "ok"}}, 201),
    (
        "charset",
        {
            "content": json.dumps(BODY).encode(),
            "headers": {"Content-Type": "application/json; charset=utf-8"},
        },
        201,
    ),
    ("with-id", {"json": {**BODY, "id": "fixed-id-1"}}, 201),
    ("metadata", {"json": {**BODY, "metadata": {"k": [1, 2.5, None, "v"]}}}, 201),
    ("trigger", {"json": BODY, "params": {"trigger": "user_request"}}, 201),
    ("not-json", {"content": b"{not json", "headers": {"Content-Type": "application/json"}}, 422),
    ("list", {"json": [BODY]}, 422),
    ("no-content", {"json": {"role": "user"}}, 422),
    ("bad-role", {"json": {**BODY, "role": "wizard"}}, 422),
    ("extra-field", {"json": {**BODY, "surprise": 1}}, 422),
    ("bad-trigger", {"json": BODY, "params": {"trigger": "nope"}}, 422),
]


@pytest.mark.parametrize(("name", "kwargs", "status"), ENTRY_CASES, ids=[c[0] for c in ENTRY_CASES])
async def test_entry_bodies_are_stored_or_refused_whole(
    tmp_path: Path, name: str, kwargs: dict[str, Any], status: int
) -> None:
    app = create_app(settings(tmp_path))
    async with asgi_client(app) as client:
        await _seed(client, n=2)
        headers = {**GOOD, **kwargs.pop("headers", {})}
        r = await client.post("/v1/sessions/s/entries", headers=headers, **kwargs)
        assert r.status_code == status, r.text
        history = (await client.get("/v1/sessions/s/history", headers=GOOD)).json()
    assert len(history) == (3 if status == 201 else 2)
    if status == 201:
        assert history[-1] == r.json()


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({}, 401),
        ({"Authorization": "Bearer nope"}, 401),
        ({"Authorization": f"Bearer {token('alice', ttl=-10)}"}, 401),
        (auth("mallory"), 404),
    ],
    ids=["missing", "garbage", "expired", "other-user"],
)
async def test_appends_need_the_owners_token(
    tmp_path: Path, headers: dict[str, str], status: int
) -> None:
    app = create_app(settings(tmp_path))
    async with asgi_client(app) as client:
        await _seed(client, n=2)
        r = await client.post("/v1/sessions/s/entries", json=BODY, headers=headers)
    assert r.status_code == status, r.text


async def test_an_append_to_a_closed_session_is_a_conflict(tmp_path: Path) -> None:
    app = create_app(settings(tmp_path))
    async with asgi_client(app) as client:
        await _seed(client, n=2)
        assert (await client.post("/v1/sessions/s/close", headers=GOOD)).status_code == 200
        r = await client.post("/v1/sessions/s/entries", json=BODY, headers=GOOD)
    assert r.status_code == 409, r.text


async def test_rate_limit_counts_each_request_once(tmp_path: Path) -> None:
    app = create_app(settings(tmp_path, rate_limit=RateLimit(5, 3600.0)))
    statuses = []
    async with asgi_client(app) as client:
        for i in range(8):
            if i % 2:
                r = await client.get("/v1/sessions/s/context", headers=GOOD)
            else:
                r = await client.post("/v1/sessions/s/entries", json=BODY, headers=GOOD)
            statuses.append(r.status_code)
    assert statuses == [201, 200, 201, 200, 201, 429, 429, 429]


async def test_metrics_label_requests_by_route_template(tmp_path: Path) -> None:
    app = create_app(settings(tmp_path))
    async with asgi_client(app) as client:
        await _seed(client, n=2)
        await client.get("/v1/sessions/s/context?max_messages=3", headers=GOOD)
        text = (await client.get("/metrics")).text
    assert (
        'unimem_http_request_duration_seconds_count{method="GET",'
        'route="/v1/sessions/{session_id}/context",status="200"} 1.0'
    ) in text
    assert 'route="/v1/sessions/{session_id}/entries",status="201"} 2.0' in text


async def test_local_mode_requests_are_the_local_user(tmp_path: Path) -> None:
    app = create_app(settings(tmp_path, jwt_secret=None))
    async with asgi_client(app) as client:
        await _seed(client, user="ignored", n=1)
        r = await client.get("/v1/sessions/s/context", headers={})
    assert r.status_code == 200
    assert r.json()["user_id"] == "local"


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
