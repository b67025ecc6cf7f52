"""Bearer tokens, local mode and the per-user rate limit."""

from __future__ import annotations

import time
from pathlib import Path

import jwt
import pytest

from server_support import SECRET, asgi_client, auth, create_app, settings, token
from unimem.errors import AuthError, ConfigurationError, InvalidInputError, RateLimitedError
from unimem.server.auth import Authenticator, RateLimiter, issue_token, parse_ttl
from unimem.server.server_settings import RateLimit, ServerSettings, parse_rate_limit

BODY = {"role": "user", "content": "hello"}


def _forged(claims: dict[str, object], secret: str = SECRET) -> str:
    return jwt.encode(claims, secret, algorithm="HS256")


@pytest.mark.parametrize(
    "header",
    [
        None,
        "Bearer",
        "Basic dXNlcjpwYXNz",
        "Bearer not-a-jwt",
        f"Bearer {_forged({'sub': 'alice', 'exp': int(time.time()) + 60}, 'w' * 40)}",
        f"Bearer {_forged({'sub': 'alice', 'exp': int(time.time()) - 5})}",
        f"Bearer {_forged({'sub': 'alice'})}",
        f"Bearer {_forged({'exp': int(time.time()) + 60})}",
        f"Bearer {_forged({'sub': 'bad user!', 'exp': int(time.time()) + 60})}",
    ],
    ids=[
        "missing",
        "empty",
        "basic",
        "garbage",
        "wrong-key",
        "expired",
        "no-exp",
        "no-sub",
        "bad-sub",
    ],
)
async def test_bad_credentials_are_401_and_write_nothing(
    tmp_path: Path, header: str | None
) -> None:
    async with asgi_client(create_app(settings(tmp_path))) as client:
        headers = {"Authorization": header} if header is not None else {}
        r = await client.post("/v1/sessions/s/entries", json=BODY, headers=headers)
        assert r.status_code == 401, r.text
        assert r.json()["code"] == "unauthorized"
        assert r.headers["www-authenticate"] == "Bearer"
        sessions = await client.get("/v1/sessions", headers=auth("alice"))
        assert sessions.json()["sessions"] == []


async def test_token_user_is_the_owner(tmp_path: Path) -> None:
    async with asgi_client(create_app(settings(tmp_path))) as client:
        r = await client.post("/v1/sessions/s/entries", json=BODY, headers=auth("alice@example"))
        assert r.json()["user_id"] == "alice@example"


async def test_local_mode_makes_every_request_the_local_user(tmp_path: Path) -> None:
    app = create_app(settings(tmp_path, jwt_secret=None))
    async with asgi_client(app) as client:
        r = await client.post("/v1/sessions/s/entries", json=BODY)
        assert r.status_code == 201 and r.json()["user_id"] == "local"
        assert (await client.get("/healthz")).json() == {
            "status": "ok",
            "store": "sqlite",
            "local_mode": True,
        }


async def test_local_mode_refuses_remote_clients(tmp_path: Path) -> None:
    import httpx

    app = create_app(settings(tmp_path, jwt_secret=None))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app, client=("192.0.2.7", 5000))
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            r = await client.get("/v1/sessions")
            assert r.status_code == 401 and "local mode" in r.json()["message"]


async def test_rate_limit_answers_429_with_retry_after(tmp_path: Path) -> None:
    app = create_app(settings(tmp_path, rate_limit=RateLimit(3, 60.0)))
    async with asgi_client(app) as client:
        for _ in range(3):
            assert (await client.get("/v1/sessions", headers=auth("alice"))).status_code == 200
        r = await client.get("/v1/sessions", headers=auth("alice"))
        assert r.status_code == 429 and r.json()["code"] == "rate_limited"
        assert int(r.headers["retry-after"]) >= 1
        # per user: bob is not slowed down by alice
        assert (await client.get("/v1/sessions", headers=auth("bob"))).status_code == 200
        # health checks are never limited
        assert (await client.get("/healthz")).status_code == 200


def test_token_bucket_refills_over_time() -> None:
    limiter = RateLimiter(RateLimit(2, 10.0))
    limiter.check("u", now=0.0)
    limiter.check("u", now=0.0)
    with pytest.raises(RateLimitedError) as err:
        limiter.check("u", now=1.0)
    assert err.value.retry_after == 4
    limiter.check("u", now=5.0)


def test_issue_and_verify_round_trip() -> None:
    authn = Authenticator(SECRET, "local")
    assert authn.user_from_header(f"Bearer {token('carol')}") == "carol"
    assert authn.user_from_token(token("carol")) == "carol"
    with pytest.raises(AuthError, match="expired"):
        authn.user_from_token(issue_token(SECRET, "carol", 60, now=time.time() - 3600))
    with pytest.raises(ConfigurationError):
        issue_token("short", "carol", 60)
    with pytest.raises(InvalidInputError):
        issue_token(SECRET, "not ok", 60)


@pytest.mark.parametrize(
    ("text", "seconds"), [("90", 90), ("15m", 900), ("1h", 3600), ("7d", 604800), ("2w", 1209600)]
)
def test_parse_ttl(text: str, seconds: int) -> None:
    assert parse_ttl(text) == seconds


@pytest.mark.parametrize("text", ["", "0", "-1h", "1y", "soon"])
def test_parse_ttl_refuses_nonsense(text: str) -> None:
    with pytest.raises(InvalidInputError):
        parse_ttl(text)


def test_rate_limit_parsing() -> None:
    assert parse_rate_limit("600/minute") == RateLimit(600, 60.0)
    assert parse_rate_limit("10/second") == RateLimit(10, 1.0)
    assert parse_rate_limit("5/30") == RateLimit(5, 30.0)
    assert parse_rate_limit("off") is None
    for bad in ("fast", "10/fortnight", "-1/minute", "0/minute/2"):
        with pytest.raises(ConfigurationError):
            parse_rate_limit(bad)


def test_settings_from_env() -> None:
    env = {
        "UNIMEM_JWT_SECRET": SECRET,
        "UNIMEM_RATE_LIMIT": "100/hour",
        "UNIMEM_DATA_DIR": "/tmp/unimem-data",
        "UNIMEM_MAX_BODY_BYTES": "2048",
    }
    s = ServerSettings.from_env(env)
    assert s.database_url == "sqlite:////tmp/unimem-data/unimem.db"
    assert s.rate_limit == RateLimit(100, 3600.0) and not s.local_mode
    assert s.max_body_bytes == 2048
    assert ServerSettings.from_env({}).local_mode
    with pytest.raises(ConfigurationError, match="32 bytes"):
        ServerSettings.from_env({"UNIMEM_JWT_SECRET": "short"})
    with pytest.raises(ConfigurationError):
        ServerSettings.from_env({"UNIMEM_MAX_BODY_BYTES": "lots"})
