"""The Redis layers: the session cache and the short-term layer in front of a durable store."""

from __future__ import annotations

from .cache import RedisSessionCache, SessionCache
from .driver import SessionCacheUnavailableError, redis_client_from_url

__all__ = [
    "RedisSessionCache",
    "SessionCache",
    "SessionCacheUnavailableError",
    "redis_client_from_url",
]
