"""Using the session cache only while it works, and never after it missed a write.

:class:`CacheGuard` runs each cache operation of the layered store. When Redis
fails, it answers :data:`DOWN` (the caller then serves from the durable store)
and leaves Redis alone for ``retry_after`` seconds instead of making every
turn of an outage wait for a timeout. The sessions and users whose writes
Redis missed meanwhile are remembered, and their cached keys dropped before
the next operation trusts Redis again, so a stale window is never served.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

from ..redis.cache import SessionCache
from ..redis.driver import SessionCacheUnavailableError

__all__ = ["DOWN", "CacheGuard", "Down"]

log = logging.getLogger("unimem.stores.layered")

_T = TypeVar("_T")


class Down:
    """Marker: the cache was not usable for this call."""


#: What :meth:`CacheGuard.run` answers when the cache was not usable.
DOWN = Down()


class CacheGuard:
    """Runs operations on ``cache`` while Redis works.

    Args:
        cache: the session cache.
        retry_after: seconds to leave Redis alone after it failed.
    """

    def __init__(self, cache: SessionCache, *, retry_after: float) -> None:
        self.cache = cache
        self.retry_after = retry_after
        self._down_until = 0.0
        self._dirty_sessions: set[str] = set()
        self._dirty_users: set[str] = set()

    @property
    def available(self) -> bool:
        """Whether the last attempt to use Redis worked (or none failed recently)."""
        return time.monotonic() >= self._down_until

    async def run(self, op: Callable[[], Awaitable[_T]]) -> _T | Down:
        """``op()``'s result; :data:`DOWN` if Redis is (or was just) unreachable.

        What Redis missed (see :meth:`missed`) is dropped first.
        """
        if time.monotonic() < self._down_until:
            return DOWN
        try:
            if self._dirty_sessions or self._dirty_users:
                await self._repair()
            return await op()
        except SessionCacheUnavailableError:
            if self._down_until == 0.0 or self.available:
                log.warning("session cache unreachable; serving from the durable store")
            self._down_until = time.monotonic() + self.retry_after
            return DOWN

    def missed(self, session_ids: Sequence[str] = (), user_ids: Sequence[str] = ()) -> None:
        """Note sessions and users whose cached keys missed a write (dropped
        before Redis is used again)."""
        self._dirty_sessions.update(session_ids)
        self._dirty_users.update(user_ids)

    async def _repair(self) -> None:
        sessions, users = list(self._dirty_sessions), list(self._dirty_users)
        await self.cache.drop(sessions, users, settings=True)
        self._dirty_sessions.difference_update(sessions)
        self._dirty_users.difference_update(users)
        log.info("session cache repaired: %d sessions, %d users dropped", len(sessions), len(users))
