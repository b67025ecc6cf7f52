"""The redis-py client the Redis layers use, and how its failures reach the service.

The client is redis-py's own (``redis.asyncio.Redis``, or ``RedisCluster``
for ``redis+cluster://`` URLs), parsing replies with hiredis when it is
installed (the ``redis[hiredis]`` extra), and bounded by its own settings:
``socket_timeout`` per command, ``socket_connect_timeout`` per connect, one
immediate ``retry`` of a connection that turned out dead, and
``health_check_interval`` for pooled connections left idle. An unreachable or
hung Redis therefore costs a turn at most about one timeout before the
service degrades to the durable store.

Every redis-py exception is translated here, in one table
(:data:`REDIS_ERRORS`), to :class:`SessionCacheUnavailableError`: Redis is a
cache, so any failure of it, an unexpected error reply included, means
"serve from the durable store", never an error after the durable commit.
"""

from __future__ import annotations

import logging
from typing import Any

import redis.asyncio as aioredis
import redis.exceptions as rexc
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from ...errors import ConfigurationError, StoreUnavailableError

__all__ = [
    "REDIS_ERRORS",
    "RedisClient",
    "SessionCacheUnavailableError",
    "redis_client_from_url",
    "unavailable",
]

log = logging.getLogger("unimem.stores.redis")

RedisClient = aioredis.Redis | RedisCluster

#: Seconds a pooled connection may sit idle before redis-py checks it (``PING``)
#: on its next use.
HEALTH_CHECK_INTERVAL = 30


def redis_client_from_url(url: str, *, timeout: float = 0.5) -> RedisClient:
    """A client for ``redis://``, ``rediss://``, ``unix://`` or ``redis+cluster://host:port``.

    ``timeout`` bounds each command (``socket_timeout``) and each connect
    (``socket_connect_timeout``).

    Raises:
        ConfigurationError: the URL's scheme is none of these.
    """
    scheme = url.split("://", 1)[0].lower()
    opts: dict[str, Any] = {
        "socket_timeout": timeout,
        "socket_connect_timeout": timeout,
        # one immediate retry of a connection that died (a pooled connection of
        # a restarted server); a timeout is not retried, and redis-py's default
        # backs off for seconds, which would stall every turn of an outage
        # instead of degrading to the durable store at once
        "retry": Retry(NoBackoff(), 1, supported_errors=(rexc.ConnectionError,)),
    }
    if scheme in ("redis+cluster", "rediss+cluster"):
        return RedisCluster.from_url(url.replace("+cluster", "", 1), **opts)
    if scheme in ("redis", "rediss", "unix"):
        return aioredis.Redis.from_url(url, health_check_interval=HEALTH_CHECK_INTERVAL, **opts)
    raise ConfigurationError(
        f"unsupported session cache URL scheme {scheme!r}: use redis://host:port/db "
        "or redis+cluster://host:port"
    )


class SessionCacheUnavailableError(StoreUnavailableError):
    """Redis (the session cache) cannot be used right now."""


#: What each failure of redis-py means, most specific first (the first entry
#: the exception is an instance of applies). Every one becomes
#: :class:`SessionCacheUnavailableError`; ``expected`` failures (Redis down,
#: slow, restarting, failing over) are logged once by the layered store, the
#: others (an error reply unimem does not expect) here, as a warning each.
REDIS_ERRORS: tuple[tuple[type[BaseException], str, bool], ...] = (
    (rexc.AuthenticationError, "refused the credentials", False),
    (rexc.BusyLoadingError, "is loading its data", True),
    (rexc.TimeoutError, "did not answer in time", True),
    (rexc.ConnectionError, "is unreachable", True),
    (rexc.MasterDownError, "lost its primary", True),
    (rexc.ClusterDownError, "cluster is down", True),
    (rexc.TryAgainError, "cluster is resharding", True),
    (rexc.ReadOnlyError, "is a read-only replica", True),
    (rexc.ClusterError, "cluster failed", True),
    (rexc.CrossSlotTransactionError, "refused keys of several slots", False),
    (rexc.RedisClusterException, "cluster cannot be reached", True),
    (rexc.ResponseError, "answered with an error", False),
    (rexc.RedisError, "failed", False),
    (OSError, "is unreachable", True),  # (the built-in TimeoutError too)
)

#: Every exception :func:`unavailable` translates (what callers catch).
UNAVAILABLE: tuple[type[BaseException], ...] = tuple(cls for cls, _, _ in REDIS_ERRORS)


def unavailable(exc: BaseException) -> SessionCacheUnavailableError:
    """The error for a failure of redis-py (naming the failure, never content)."""
    for cls, meaning, expected in REDIS_ERRORS:
        if isinstance(exc, cls):
            if not expected:
                log.warning("session cache error: %s", type(exc).__name__)
            return SessionCacheUnavailableError(
                f"Redis {meaning} ({type(exc).__name__}); retry later"
            )
    raise TypeError(f"not a Redis failure: {type(exc).__name__}") from exc
