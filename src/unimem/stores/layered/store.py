"""The production layering: a durable store (PostgreSQL) behind a Redis session cache.

Writes commit to the durable store first, then update Redis in one round trip;
``add_entry`` is acknowledged only after the durable commit. Reads of the
context come from Redis in one round trip when the session is cached, and
otherwise from the durable store, which also rebuilds the cached window (once
per burst of readers: :mod:`unimem.stores.layered.window_rebuild`).

When Redis is unreachable the store keeps working on the durable store alone
and marks results with the degradation ``session_cache_unavailable``; what
Redis missed meanwhile is dropped before it is trusted again, so a cache that
missed writes is never served (:mod:`unimem.stores.layered.cache_guard`).
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from ...models import MemoryEntry, MemoryEvent, MemorySettings, SessionInfo
from ..contracts import (
    AppendResult,
    ContextSnapshot,
    DeleteScope,
    DurableStore,
    EventStateStore,
    PhiGuard,
    SettingsGuard,
    SweepReportStore,
    VaultValue,
)
from ..redis.cache import SessionCache
from ..redis.driver import redis_client_from_url
from .cache_guard import CacheGuard, Down
from .context_reads import CACHE_DEGRADATION, CachedContextReads
from .durable_only import DurableOnly
from .window_rebuild import WindowRebuilds

__all__ = ["CACHE_DEGRADATION", "LayeredStore", "layered_store_from_urls"]

log = logging.getLogger("unimem.stores.layered")


class LayeredStore(DurableOnly):
    """A :class:`DurableStore` made of a durable store and a Redis session cache.

    What the cache holds a part of is here; what only the durable store keeps
    (facts, summaries, audit, vault, search, vectors, items) passes straight
    through (:class:`~unimem.stores.layered.durable_only.DurableOnly`).

    Args:
        durable: the authority (``PostgresStore``, or any ``DurableStore``).
        cache: the Redis layers.
        retry_after: seconds to leave Redis alone after it failed.
        owns_client: close the Redis client in :meth:`aclose`.
    """

    def __init__(
        self,
        durable: DurableStore,
        cache: SessionCache,
        *,
        retry_after: float = 1.0,
        owns_client: bool = True,
    ) -> None:
        self.durable = durable
        self.cache = cache
        self._owns_client = owns_client
        self._guard = CacheGuard(cache, retry_after=retry_after)
        self._owners: OrderedDict[str, str] = OrderedDict()
        self._rebuilds = WindowRebuilds(durable, self._guard, self._owner)
        self._context = CachedContextReads(
            durable, cache, self._guard, self._rebuilds, self._owners.get, self._owner
        )

    # ------------------------------------------------------------------ life cycle

    async def setup(self) -> None:
        """Open the durable store (Redis connects on first use)."""
        await self.durable.setup()

    async def aclose(self) -> None:
        """Close the durable store and (if owned) the Redis client."""
        await self.durable.aclose()
        if self._owns_client:
            await self.cache.client.aclose()

    @property
    def cache_available(self) -> bool:
        """Whether the last attempt to use Redis worked (or none failed recently)."""
        return self._guard.available

    def _owner(self, session_id: str, user_id: str) -> None:
        # a session's owner never changes, so this map never needs invalidating
        self._owners[session_id] = user_id
        self._owners.move_to_end(session_id)
        if len(self._owners) > 100_000:
            self._owners.popitem(last=False)

    # ------------------------------------------------------------------ writes

    async def append_entry(
        self,
        entry: MemoryEntry,
        *,
        trigger: str | None = None,
        settings_guard: SettingsGuard | None = None,
        events_after: Sequence[MemoryEvent] = (),
        phi_guard: PhiGuard | None = None,
        vault: Sequence[VaultValue] = (),
        language_detected: bool = False,
    ) -> AppendResult:
        result = await self.durable.append_entry(
            entry,
            trigger=trigger,
            settings_guard=settings_guard,
            events_after=events_after,
            phi_guard=phi_guard,
            vault=vault,
            language_detected=language_detected,
        )
        state = result.session
        if not result.created or state is None:
            # a retry: the first attempt may have committed and died before
            # updating Redis, so the cached window may lack it; drop it (rare)
            await self._invalidate([entry.session_id], [entry.user_id])
            return result
        self._owner(state.session_id, state.user_id)
        prev = (state.message_count - 1, state.event_count - len(result.events))
        done = await self._guard.run(
            lambda: self.cache.record(
                state, prev, result.entry, result.events, entry_json=result.entry_json
            )
        )
        if isinstance(done, Down):
            self._guard.missed([state.session_id], [state.user_id])
            degradations = [*result.entry.degradations, CACHE_DEGRADATION]
            result.entry = result.entry.model_copy(update={"degradations": degradations})
        return result

    async def append_event(self, event: MemoryEvent) -> MemoryEvent:
        if not isinstance(self.durable, EventStateStore):
            stored = await self.durable.append_event(event)
            await self._invalidate([event.session_id], [])
            return stored
        stored, state = await self.durable.append_event_with_state(event)
        self._owner(state.session_id, state.user_id)
        prev = (state.message_count, state.event_count - 1)
        done = await self._guard.run(lambda: self.cache.record(state, prev, None, [stored]))
        if isinstance(done, Down):
            self._guard.missed([state.session_id])
        return stored

    async def close_session(self, session_id: str, *, now: datetime) -> SessionInfo:
        state = await self.durable.close_session(session_id, now=now)
        prev = (state.message_count, state.event_count)
        done = await self._guard.run(lambda: self.cache.record(state, prev))
        if isinstance(done, Down):
            self._guard.missed([session_id])
        return state

    async def put_settings(self, user_id: str, settings: MemorySettings) -> None:
        await self.durable.put_settings(user_id, settings)
        raw = settings.model_dump_json()
        done = await self._guard.run(
            lambda: self.cache.put_settings(user_id, raw, only_if_absent=False)
        )
        if isinstance(done, Down):
            self._guard.missed(user_ids=[user_id])

    async def _invalidate(
        self, session_ids: Sequence[str], user_ids: Sequence[str], *, settings: bool = False
    ) -> None:
        done = await self._guard.run(
            lambda: self.cache.drop(session_ids, user_ids, settings=settings)
        )
        if isinstance(done, Down):
            self._guard.missed(session_ids, user_ids)

    async def extend_ttl(self, session_id: str) -> bool:
        """Extend the cached session's idle TTL; whether it was cached."""
        done = await self._guard.run(lambda: self.cache.touch(session_id))
        return done is True

    # ------------------------------------------------------------------ reads

    async def get_session(self, session_id: str) -> SessionInfo | None:
        cached = await self._guard.run(lambda: self.cache.get_state(session_id))
        if isinstance(cached, SessionInfo):
            return cached
        return await self.durable.get_session(session_id)

    async def get_entries(
        self, session_id: str, *, limit: int, before_seq: int | None = None
    ) -> list[MemoryEntry]:
        if before_seq is None and 0 < limit <= self.cache.hot_window:
            return (await self.load_history(session_id, limit=limit))[1]
        return await self.durable.get_entries(session_id, limit=limit, before_seq=before_seq)

    async def load_history(
        self, session_id: str, *, limit: int, before_seq: int | None = None
    ) -> tuple[SessionInfo | None, list[MemoryEntry]]:
        """State and last entries from Redis in one round trip when the window
        holds them; otherwise from the durable store (rebuilding a missing window)."""
        if before_seq is None and 0 < limit <= self.cache.hot_window:
            asked = time.monotonic()
            found = await self._guard.run(lambda: self.cache.read(session_id, limit, 0))
            if not isinstance(found, Down):
                if found is not None and (found.complete or len(found.entries) >= limit):
                    self._owner(session_id, found.state.user_id)
                    return found.state, found.entries
                if found is None:
                    snap = await self._rebuilds.rebuild(session_id, asked)
                    return snap.session, snap.entries[-limit:]
        return await self.durable.load_history(session_id, limit=limit, before_seq=before_seq)

    async def load_context(
        self, session_id: str, *, max_messages: int, event_limit: int
    ) -> ContextSnapshot:
        """The context from Redis in one round trip when cached, else from the durable
        store (rebuilding the cache); with the user's recent turns of other sessions."""
        return await self._context.load(
            session_id, max_messages=max_messages, event_limit=event_limit
        )

    async def get_settings(self, user_id: str) -> MemorySettings | None:
        raw = await self._guard.run(lambda: self.cache.get_settings(user_id))
        if isinstance(raw, bytes):
            return MemorySettings.model_validate_json(raw) if raw else None
        stored = await self.durable.get_settings(user_id)
        if raw is None:
            text = stored.model_dump_json() if stored is not None else ""
            await self._guard.run(
                lambda: self.cache.put_settings(user_id, text, only_if_absent=True)
            )
        return stored

    # ------------------------------------------------------------------ edits and deletions

    async def update_entry(
        self, session_id: str, entry_id: str, changes: dict[str, Any]
    ) -> MemoryEntry | None:
        updated = await self.durable.update_entry(session_id, entry_id, changes)
        if updated is not None:
            await self._invalidate([session_id], [updated.user_id])
        return updated

    async def delete_entry(self, session_id: str, entry_id: str) -> bool:
        """Delete from the durable store, then the session's cached keys (before
        too, so no reader re-caches the entry meanwhile)."""
        state = await self.durable.get_session(session_id)
        users = [state.user_id] if state is not None else []
        await self._invalidate([session_id], users)
        deleted = await self.durable.delete_entry(session_id, entry_id)
        await self._invalidate([session_id], users)
        return deleted

    async def _user_session_ids(self, user_id: str) -> list[str]:
        ids: list[str] = []
        while True:
            page = await self.durable.list_sessions(user_id, limit=1000, offset=len(ids))
            ids += [s.session_id for s in page]
            if len(page) < 1000:
                break
        cached = await self._guard.run(lambda: self.cache.user_sessions(user_id))
        if isinstance(cached, list):
            ids += [sid for sid in cached if sid not in set(ids)]
        return ids

    async def delete_user_data(
        self,
        user_id: str,
        *,
        scope: DeleteScope,
        since: datetime | None = None,
        session_ids: Sequence[str] = (),
    ) -> dict[str, int]:
        """Delete from the durable store, then every cached key of what was deleted
        (before too, so no reader re-caches it meanwhile)."""
        targets = list(session_ids) if scope == "session" else []
        if scope != "session":
            targets = await self._user_session_ids(user_id)
        await self._invalidate(targets, [user_id])
        counts = await self.durable.delete_user_data(
            user_id, scope=scope, since=since, session_ids=session_ids
        )
        # after "all" not a key of the user is left (settings are read through again)
        await self._invalidate(targets, [user_id], settings=scope == "all")
        return counts

    async def sweep_expired(self, *, now: datetime, default_retention_days: int) -> int:
        if not isinstance(self.durable, SweepReportStore):
            # no list of touched sessions: cached windows expire by TTL
            return await self.durable.sweep_expired(
                now=now, default_retention_days=default_retention_days
            )
        total, touched = await self.durable.sweep(
            now=now, default_retention_days=default_retention_days
        )
        await self._invalidate(touched, [])
        return total


def layered_store_from_urls(
    archive: DurableStore,
    session_url: str,
    *,
    hot_window: int,
    session_ttl: int,
    short_term_ttl: int,
) -> LayeredStore:
    """``archive`` behind a Redis session cache at ``session_url``
    (``redis://host:port/db`` or ``redis+cluster://host:port``)."""
    cache = SessionCache(
        redis_client_from_url(session_url),
        hot_window=hot_window,
        session_ttl=session_ttl,
        short_term_ttl=short_term_ttl,
    )
    return LayeredStore(archive, cache)
