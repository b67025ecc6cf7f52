"""Bearer tokens (JWT, HS256) and the per-user rate limit.

A token's ``sub`` is the user id and ``exp`` is required. Without a secret
the server is in local mode and every caller is the local user.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass
from typing import Any

import jwt

from ..errors import AuthError, ConfigurationError, InvalidInputError, RateLimitedError
from ..validation import check_id
from .server_settings import MIN_SECRET_BYTES, RateLimit

__all__ = ["Authenticator", "RateLimiter", "issue_token", "parse_ttl"]

_ALGORITHM = "HS256"
_TTL_RE = re.compile(r"^\s*(\d+)\s*([smhdw]?)\s*$")
_TTL_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_ttl(text: str) -> int:
    """Seconds in ``"90"``, ``"15m"``, ``"1h"``, ``"7d"`` or ``"2w"``.

    Raises:
        InvalidInputError: not a positive duration.
    """
    match = _TTL_RE.match(text)
    seconds = int(match.group(1)) * _TTL_UNITS[match.group(2)] if match else 0
    if seconds < 1:
        raise InvalidInputError(
            f"ttl must be a positive duration such as 3600, 15m, 1h or 7d, got {text!r}",
            field="ttl",
        )
    return seconds


def issue_token(secret: str, user_id: str, ttl_seconds: int, *, now: float | None = None) -> str:
    """A signed token for ``user_id`` valid for ``ttl_seconds``.

    Raises:
        ConfigurationError: the secret is too short.
        InvalidInputError: the user id is not a valid id.
    """
    if len(secret.encode()) < MIN_SECRET_BYTES:
        raise ConfigurationError(f"the JWT secret must be at least {MIN_SECRET_BYTES} bytes")
    check_id(user_id, "user")
    issued = int(time.time() if now is None else now)
    claims = {"sub": user_id, "iat": issued, "exp": issued + ttl_seconds}
    return jwt.encode(claims, secret, algorithm=_ALGORITHM)


class Authenticator:
    """Turns an ``Authorization`` header (or a bare token) into a user id.

    Verifying an HS256 token costs tens of microseconds (PyJWT parses the key and
    the JSON on every call), which a client sending the same token on every
    request would pay each time. So tokens that verified are remembered, with
    their user, until their ``exp``: a remembered token is accepted again only
    while ``nbf``/``iat`` <= now < ``exp``, the window in which PyJWT would accept
    it too; outside it (or when forgotten) the token is decoded again and
    refused the same way. Failures are never remembered. The memory is bounded
    (``CACHE_SIZE`` tokens, oldest dropped first) and keyed by the whole token
    string, so a changed signature or claim is a different key.
    """

    #: Verified tokens remembered at most.
    CACHE_SIZE = 1024
    #: Longer tokens are verified every time (they would bloat the memory).
    CACHE_MAX_TOKEN = 2048

    def __init__(self, secret: str | None, local_user: str) -> None:
        self._secret = secret
        self._local_user = local_user
        # token -> (user id, valid from, valid until) in POSIX seconds
        self._verified: dict[str, tuple[str, float, float]] = {}

    @property
    def local_mode(self) -> bool:
        """Whether every caller is the local user."""
        return self._secret is None

    def user_from_header(self, header: str | None) -> str:
        """The user of ``Authorization: Bearer <token>``.

        Raises:
            AuthError: missing, malformed, badly signed or expired token.
        """
        if self._secret is None:
            return self._local_user
        if not header:
            raise AuthError("missing credentials: send 'Authorization: Bearer <token>'")
        scheme, _, token = header.strip().partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise AuthError("the Authorization header must be 'Bearer <token>'")
        return self.user_from_token(token.strip())

    def user_from_token(self, token: str | None) -> str:
        """The user of a bare token (the WebSocket's ``?token=``).

        Raises:
            AuthError: missing, malformed, badly signed or expired token.
        """
        if self._secret is None:
            return self._local_user
        if not token:
            raise AuthError("missing credentials: send a bearer token")
        known = self._verified.get(token)
        if known is not None:
            user, valid_from, valid_until = known
            # The clock PyJWT reads (datetime.now(UTC).timestamp() is time.time()).
            now = time.time()
            if valid_from <= now < valid_until:
                return user
            self._verified.pop(token, None)
        try:
            claims = jwt.decode(
                token,
                self._secret,
                algorithms=[_ALGORITHM],
                options={"require": ["exp", "sub"]},
            )
        except jwt.ExpiredSignatureError:
            raise AuthError("the token has expired; get a new one (unimem token)") from None
        except jwt.MissingRequiredClaimError as exc:
            raise AuthError(f"the token has no {exc.claim!r} claim") from None
        except jwt.InvalidTokenError:
            raise AuthError("the token is malformed or not signed with this server's key") from None
        subject = claims.get("sub")
        try:
            user = check_id(subject, "sub")
        except InvalidInputError:
            raise AuthError("the token's 'sub' is not a valid user id") from None
        if len(token) <= self.CACHE_MAX_TOKEN:
            self._remember(token, user, claims)
        return user

    def _remember(self, token: str, user: str, claims: dict[str, Any]) -> None:
        # PyJWT refuses a token when exp <= now, or iat > now, or nbf > now
        # (integer claims, no leeway): the same bounds, as floats.
        valid_from = -math.inf
        for name in ("iat", "nbf"):
            if name in claims:
                valid_from = max(valid_from, float(int(claims[name])))
        valid_until = float(int(claims["exp"]))
        verified = self._verified
        if len(verified) >= self.CACHE_SIZE:
            verified.pop(next(iter(verified)), None)
        verified[token] = (user, valid_from, valid_until)


@dataclass(slots=True)
class _Bucket:
    tokens: float
    stamp: float


class RateLimiter:
    """A token bucket per user, in this process.

    Each worker process keeps its own buckets, so with ``n`` workers a user
    may get up to ``n`` times the limit; that bound is documented, not hidden.
    """

    #: Idle buckets are dropped once there are more than this many users.
    PRUNE_AT = 10_000

    def __init__(self, limit: RateLimit | None) -> None:
        self._limit = limit
        self._buckets: dict[str, _Bucket] = {}

    def check(self, user_id: str, *, now: float | None = None) -> None:
        """Take one request from the user's bucket.

        Raises:
            RateLimitedError: the bucket is empty; ``retry_after`` says when it is not.
        """
        limit = self._limit
        if limit is None:
            return
        moment = time.monotonic() if now is None else now
        rate = limit.requests / limit.period
        bucket = self._buckets.get(user_id)
        if bucket is None:
            if len(self._buckets) >= self.PRUNE_AT:
                self._prune(moment, rate, limit.requests)
            bucket = self._buckets[user_id] = _Bucket(float(limit.requests), moment)
        else:
            bucket.tokens = min(
                float(limit.requests), bucket.tokens + (moment - bucket.stamp) * rate
            )
            bucket.stamp = moment
        if bucket.tokens < 1.0:
            wait = math.ceil((1.0 - bucket.tokens) / rate)
            raise RateLimitedError(
                f"rate limit of {limit.requests} requests per {limit.period:g} s reached; "
                f"retry after {wait} s",
                retry_after=wait,
            )
        bucket.tokens -= 1.0

    def _prune(self, now: float, rate: float, capacity: int) -> None:
        full = [
            user
            for user, bucket in self._buckets.items()
            if bucket.tokens + (now - bucket.stamp) * rate >= capacity
        ]
        for user in full:
            del self._buckets[user]
