"""The server's periodic retention sweep, run by one worker of many.

Each worker starts :func:`sweep_forever`; before every sweep it asks a lock
whether it is the one to run it:

- with Redis configured: ``SET <key> <worker> NX PX <interval>``. Whoever sets
  the key sweeps; the key expires by itself after the interval, so at most one
  sweep runs per interval across every worker and host, and a dead worker
  holds nothing.
- with PostgreSQL and no Redis: a session-level ``pg_try_advisory_lock`` on a
  connection the sweeping worker keeps open; it is released by PostgreSQL if
  that worker dies, and another worker takes over at its next tick.
- with SQLite: an exclusive ``flock`` on ``<database>.sweep.lock`` kept by the
  sweeping worker; the OS releases it when the process ends. (SQLite workers
  all share one host, as they share one file.)
- ``memory://``: one process, no lock.

A failed sweep is logged (counts and error type only) and retried at the next tick.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
import uuid
from pathlib import Path
from typing import IO, Protocol

from ..service import UnifiedMemoryService
from .server_settings import ServerSettings

__all__ = [
    "FileLeaderLock",
    "NoLock",
    "PostgresLeaderLock",
    "RedisIntervalLock",
    "SweepLock",
    "lock_for",
    "sweep_forever",
]

log = logging.getLogger("unimem.server")

#: Advisory lock id of the sweep (any fixed 64-bit number; "unimemSW" in ASCII).
PG_LOCK_ID = 0x756E696D656D5357 & 0x7FFFFFFFFFFFFFFF


class SweepLock(Protocol):
    """Decides, before each sweep, whether this worker runs it."""

    async def acquire(self) -> bool:
        """True when this worker should sweep now."""
        ...

    async def aclose(self) -> None:
        """Give up the lock and its connection."""
        ...


class NoLock:
    """One process: always sweep."""

    async def acquire(self) -> bool:
        """Always true."""
        return True

    async def aclose(self) -> None:
        """Nothing to release."""


class RedisIntervalLock:
    """``SET key token NX PX interval``: one sweep per interval across all workers."""

    def __init__(self, url: str, interval: float, key: str = "unimem:sweep-lock") -> None:
        from redis.asyncio import Redis

        self.client = Redis.from_url(url)
        self.key = key
        # Slightly under the interval, so the next tick of the same worker finds it free.
        self.ttl_ms = max(1, int(interval * 1000 * 0.9))
        self.token = uuid.uuid4().hex

    async def acquire(self) -> bool:
        """Set the key if nobody holds it.

        Raises:
            redis.exceptions.RedisError: Redis is unreachable (the sweep is skipped).
        """
        return bool(await self.client.set(self.key, self.token, nx=True, px=self.ttl_ms))

    async def aclose(self) -> None:
        """Close the connection; the key expires on its own."""
        await self.client.aclose()


class PostgresLeaderLock:
    """A session-level advisory lock held on a dedicated connection."""

    def __init__(self, url: str, lock_id: int = PG_LOCK_ID) -> None:
        self.url = url
        self.lock_id = lock_id
        self._conn: object | None = None

    async def acquire(self) -> bool:
        """Keep the lock if this worker has it, else try to take it.

        Raises:
            OSError, asyncpg.PostgresError: PostgreSQL is unreachable (skipped).
        """
        import asyncpg

        conn = self._conn
        if isinstance(conn, asyncpg.Connection) and not conn.is_closed():
            return True
        conn = await asyncpg.connect(self.url)
        if await conn.fetchval("SELECT pg_try_advisory_lock($1)", self.lock_id):
            self._conn = conn
            return True
        await conn.close()
        return False

    async def aclose(self) -> None:
        """Close the connection, which releases the lock."""
        conn, self._conn = self._conn, None
        close = getattr(conn, "close", None)
        if close is not None:
            with contextlib.suppress(Exception):
                await close()


class FileLeaderLock:
    """An exclusive ``flock`` held by the sweeping process until it exits."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fh: IO[bytes] | None = None

    async def acquire(self) -> bool:
        """Keep the lock if this process has it, else try to take it without waiting."""
        import fcntl

        if self._fh is not None:
            return True
        fh = self.path.open("ab")
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            fh.close()
            return False
        self._fh = fh
        return True

    async def aclose(self) -> None:
        """Release the lock."""
        fh, self._fh = self._fh, None
        if fh is not None:
            fh.close()  # closing the descriptor drops the flock


def lock_for(settings: ServerSettings) -> SweepLock:
    """The lock that fits the configured stores (see the module docstring)."""
    redis_url = settings.redis_url
    if redis_url and redis_url.split("://", 1)[0].lower() in ("redis", "rediss", "unix"):
        return RedisIntervalLock(redis_url, settings.sweep_interval)
    scheme, _, rest = settings.database_url.partition("://")
    scheme = scheme.lower()
    if scheme in ("postgres", "postgresql"):
        return PostgresLeaderLock(settings.database_url)
    if scheme == "sqlite":
        path = rest[1:] if rest.startswith("/") else rest
        path = path.split("?", 1)[0]
        if path and path != ":memory:":
            return FileLeaderLock(Path(os.path.expanduser(path + ".sweep.lock")))
    return NoLock()


async def sweep_forever(service: UnifiedMemoryService, lock: SweepLock, interval: float) -> None:
    """Sweep now, then every ``interval`` seconds, when ``lock`` says so. Runs until cancelled."""
    try:
        while True:
            try:
                if await lock.acquire():
                    started = time.perf_counter()
                    deleted = await service.sweep_retention()
                    log.info(
                        "retention sweep: %d rows deleted in %.0f ms",
                        deleted,
                        1e3 * (time.perf_counter() - started),
                    )
            except Exception as exc:  # a failed sweep must not stop the next one
                log.warning("retention sweep failed (%s); retrying next tick", type(exc).__name__)
            await asyncio.sleep(interval)
    finally:
        await lock.aclose()
