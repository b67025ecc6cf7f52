"""The context read of the layered store: the session's window, switch events
and state, the user's settings and recent turns of other sessions, from Redis
in one round trip when cached; from the durable store otherwise (rebuilding
the cache, or marking the context degraded when Redis is down)."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime, timedelta

from ...models import MemoryEntry, MemorySettings, utcnow
from ...validation import is_valid_id
from ..contracts import ContextSnapshot, DurableStore
from ..redis.cache import EVENT_KEEP, CachedUser, SessionCache
from ..rows import event_from_json
from .cache_guard import CacheGuard, Down
from .window_rebuild import WindowRebuilds

__all__ = ["CACHE_DEGRADATION", "CachedContextReads"]

#: Degradation recorded when the session cache could not be used.
CACHE_DEGRADATION = "session_cache_unavailable"


class CachedContextReads:
    """:meth:`LayeredStore.load_context <unimem.stores.layered.LayeredStore.load_context>`.

    Args:
        durable: the authority.
        cache: the Redis layers.
        guard: the layered store's guard of Redis calls.
        rebuilds: rebuilds a window that is not cached.
        owners: the known owner of a session (``None`` when not known).
        remember: records a session's owner.
    """

    def __init__(
        self,
        durable: DurableStore,
        cache: SessionCache,
        guard: CacheGuard,
        rebuilds: WindowRebuilds,
        owners: Callable[[str], str | None],
        remember: Callable[[str, str], None],
    ) -> None:
        self.durable = durable
        self.cache = cache
        self._guard = guard
        self._rebuilds = rebuilds
        self._owners = owners
        self._remember = remember

    async def load(
        self, session_id: str, *, max_messages: int, event_limit: int
    ) -> ContextSnapshot:
        """The context from Redis in one round trip when cached, else from the durable
        store (rebuilding the cache); with the user's recent turns of other sessions."""
        since = utcnow() - timedelta(seconds=self.cache.short_term_ttl)
        if max_messages > self.cache.hot_window or event_limit > EVENT_KEEP:
            snap = await self.durable.load_context(
                session_id, max_messages=max_messages, event_limit=event_limit
            )
            return await self._with_recent(snap, session_id, since, max_messages, [])
        owner = self._owners(session_id)
        asked = time.monotonic()
        got = await self._guard.run(
            lambda: self._read(session_id, owner, max_messages, event_limit)
        )
        if isinstance(got, Down):
            snap = await self.durable.load_context(
                session_id, max_messages=max_messages, event_limit=event_limit
            )
            return await self._with_recent(
                snap, session_id, since, max_messages, [CACHE_DEGRADATION]
            )
        if got is None:  # not cached: read the durable store and rebuild
            full = await self._rebuilds.rebuild(session_id, asked)
            snap = ContextSnapshot(
                full.session,
                full.entries[-max_messages:],
                full.language_events[-event_limit:],
                full.mode_events[-event_limit:],
                full.settings,
            )
            return await self._with_recent(snap, session_id, since, max_messages, [])
        return got

    async def _read(
        self, session_id: str, owner: str | None, max_messages: int, event_limit: int
    ) -> ContextSnapshot | None:
        since = utcnow() - timedelta(seconds=self.cache.short_term_ttl)
        since_ms = int(since.timestamp() * 1000)
        user: CachedUser | None = None
        if owner is not None:
            cached, user = await self.cache.read_context(
                session_id, owner, max_messages, event_limit, since_ms=since_ms, limit=max_messages
            )
        else:
            cached = await self.cache.read(session_id, max_messages, event_limit)
        if cached is None or not (cached.complete or len(cached.entries) >= max_messages):
            return None
        state = cached.state
        self._remember(session_id, state.user_id)
        if user is None or owner != state.user_id:
            user = await self.cache.read_user(
                state.user_id, exclude_session=session_id, since_ms=since_ms, limit=max_messages
            )
        settings = await self._settings(state.user_id, user.settings)
        recent: list[MemoryEntry] | None = None
        if settings is None or settings.cross_session:
            if user.warm:
                recent = user.recent
            else:
                recent = await self._warm_recent(state.user_id, session_id, since, max_messages)
        return ContextSnapshot(
            session=state,
            entries=cached.entries,
            language_events=[event_from_json(e) for e in cached.language_events],
            mode_events=[event_from_json(e) for e in cached.mode_events],
            settings=settings,
            recent=recent,
        )

    async def _settings(self, user_id: str, raw: bytes | None) -> MemorySettings | None:
        if raw is None:  # not cached: read through
            stored = await self.durable.get_settings(user_id)
            text = stored.model_dump_json() if stored is not None else ""
            await self.cache.put_settings(user_id, text, only_if_absent=True)
            return stored
        return MemorySettings.model_validate_json(raw) if raw else None

    async def _warm_recent(
        self, user_id: str, session_id: str, since: datetime, limit: int
    ) -> list[MemoryEntry]:
        everything = await self.durable.recent_user_entries(
            user_id, since=since, exclude_session=None, limit=self.cache.short_term_cap
        )
        # an entry stored before ids were matched whole (a trailing newline) is
        # left out: the warm-up script splits members at the space, and one
        # such member would fail every context read of the user
        everything = [e for e in everything if is_valid_id(e.session_id) and is_valid_id(e.id)]
        await self.cache.warm_user(user_id, everything)
        return [e for e in everything if e.session_id != session_id][-limit:]

    async def _with_recent(
        self,
        snap: ContextSnapshot,
        session_id: str,
        since: datetime,
        limit: int,
        degradations: list[str],
    ) -> ContextSnapshot:
        recent: list[MemoryEntry] | None = None
        if snap.session is not None and (snap.settings is None or snap.settings.cross_session):
            recent = await self.durable.recent_user_entries(
                snap.session.user_id, since=since, exclude_session=session_id, limit=limit
            )
        return ContextSnapshot(
            snap.session,
            snap.entries,
            snap.language_events,
            snap.mode_events,
            snap.settings,
            recent=recent,
            degradations=degradations,
        )
