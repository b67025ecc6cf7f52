"""Read-through rebuild of a session's cached window, once per burst of readers.

A reader that finds a session not cached reads it from the durable store and
installs it in Redis. Readers of one session in this process share one
rebuild (single flight); across processes a Redis token lets one of them
install it, and only if no write touched the session while it was reading
(see :meth:`~unimem.stores.redis.cache.SessionCache.install`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from ...ids import new_id
from ..contracts import ContextSnapshot, DurableStore
from ..redis.cache import EVENT_KEEP
from .cache_guard import CacheGuard

__all__ = ["REBUILT_KEEP_SECONDS", "WindowRebuilds"]

#: How long a finished rebuild serves readers whose cache miss came before it ended.
REBUILT_KEEP_SECONDS = 2.0


class WindowRebuilds:
    """Rebuilds of cached windows from ``durable`` through ``guard``'s cache.

    Args:
        durable: the authority the window is read from.
        guard: the session cache, used while it works.
        on_owner: called with (session id, user id) of every session read.
    """

    def __init__(
        self, durable: DurableStore, guard: CacheGuard, on_owner: Callable[[str, str], None]
    ) -> None:
        self.durable = durable
        self.guard = guard
        self.on_owner = on_owner
        self._running: dict[str, asyncio.Task[ContextSnapshot]] = {}
        #: session -> (monotonic time its durable read began, snapshot) of the last
        #: rebuild, kept briefly for readers whose cache miss predates its end
        self._done: dict[str, tuple[float, ContextSnapshot]] = {}

    async def rebuild(self, session_id: str, asked: float) -> ContextSnapshot:
        """The session's hot window read from the durable store (and installed
        in Redis).

        ``asked`` is when the caller began the cache read that missed
        (``time.monotonic()``): a rebuild whose durable read began after that
        already holds everything the caller must see, so a reader that
        arrives just after it finished reuses it.
        """
        done = self._done.get(session_id)
        if done is not None and done[0] >= asked:
            return done[1]
        task = self._running.get(session_id)
        if task is None:
            task = asyncio.ensure_future(self._rebuild_once(session_id))
            self._running[session_id] = task
            task.add_done_callback(lambda _: self._running.pop(session_id, None))
        return await asyncio.shield(task)

    def _keep(self, session_id: str, began: float, snap: ContextSnapshot) -> None:
        entry = (began, snap)
        self._done[session_id] = entry

        def forget() -> None:
            if self._done.get(session_id) is entry:
                del self._done[session_id]

        asyncio.get_running_loop().call_later(REBUILT_KEEP_SECONDS, forget)

    async def _rebuild_once(self, session_id: str) -> ContextSnapshot:
        began = time.monotonic()
        token = new_id()
        cache = self.guard.cache
        locked = await self.guard.run(lambda: cache.lock_rebuild(session_id, token))
        snap = await self.durable.load_context(
            session_id, max_messages=cache.hot_window, event_limit=EVENT_KEEP
        )
        state = snap.session
        if locked is True and state is not None:
            self.on_owner(session_id, state.user_id)
            complete = len(snap.entries) < cache.hot_window
            await self.guard.run(
                lambda: cache.install(
                    token,
                    state,
                    snap.entries,
                    snap.language_events,
                    snap.mode_events,
                    complete=complete,
                )
            )
        self._keep(session_id, began, snap)
        return snap
