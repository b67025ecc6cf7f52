"""One ``asyncio.Lock`` per key (a user, a user's model), kept only while in use.

A lock held by no one could be dropped by asking ``lock.locked()``, but that
is ``False`` in the moment between a release and the wakeup of the next
waiter: a lock dropped then is replaced by a new one, and two callers of
the same key run at once. :class:`KeyedLocks` counts who holds or waits
for each key's lock and drops it when the count falls to zero.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Hashable
from contextlib import asynccontextmanager
from typing import Generic, TypeVar

__all__ = ["KeyedLocks"]

_K = TypeVar("_K", bound=Hashable)


class KeyedLocks(Generic[_K]):
    """Locks by key, each dropped once no caller holds or waits for it."""

    def __init__(self) -> None:
        self._locks: dict[_K, tuple[asyncio.Lock, int]] = {}

    def __contains__(self, key: object) -> bool:
        """Whether a caller holds or waits for ``key``'s lock."""
        return key in self._locks

    def __len__(self) -> int:
        """How many keys' locks are in use."""
        return len(self._locks)

    @asynccontextmanager
    async def hold(self, key: _K) -> AsyncIterator[None]:
        """Hold ``key``'s lock for the ``async with`` block (callers of one key
        run one at a time, in the order they asked)."""
        lock, users = self._locks.get(key, (None, 0))
        if lock is None:
            lock = asyncio.Lock()
        self._locks[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[key]
            if users == 1:
                del self._locks[key]
            else:
                self._locks[key] = (lock, users - 1)
