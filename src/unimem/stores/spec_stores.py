"""The spec's store classes under their names, as thin faces of the layer modules.

``RedisMemoryStore`` (session layer: ``save_session``, ``load_session``,
``extend_ttl``, ``delete_session``, ``delete_all``) over
:class:`~unimem.stores.redis.SessionCache`, and ``PostgresMemoryStore``
(long-term layer: ``save_conversation``, ``delete_today``, ``delete_all``) over
:class:`~unimem.stores.postgres.PostgresStore`. Neither rewrites a whole
session: entries are added one by one, by ``seq``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from ..errors import SessionNotFoundError
from ..models import MemoryEntry
from .contracts import DeleteScope
from .postgres import PostgresStore
from .redis import keys as k
from .redis.cache import SessionCache
from .redis.driver import RedisClient

__all__ = ["PostgresMemoryStore", "RedisMemoryStore"]


class RedisMemoryStore:
    """The spec's Redis session store, as a thin face over :class:`SessionCache`.

    ``save_session`` adds entries to the session's sorted set by ``seq`` (one
    round trip, nothing rewritten); ``load_session`` reads the hot window.
    """

    def __init__(self, redis_client: RedisClient, *, prefix: str = k.DEFAULT_PREFIX) -> None:
        self.redis = redis_client
        self.cache = SessionCache(redis_client, prefix=prefix)
        self.ttl = self.cache.session_ttl

    async def save_session(self, session_id: str, memory: Sequence[MemoryEntry]) -> None:
        """Add stored entries (``seq`` set) to the session's hot window; idempotent."""
        await self.cache.save_window(session_id, memory)

    async def load_session(self, session_id: str) -> list[MemoryEntry]:
        """The session's cached entries, oldest first."""
        return await self.cache.load_window(session_id)

    async def extend_ttl(self, session_id: str) -> bool:
        """Keep the session's keys for another idle period; whether any existed."""
        return await self.cache.touch(session_id)

    async def delete_session(self, session_id: str) -> None:
        """Delete the session's keys."""
        await self.cache.drop(session_ids=[session_id])

    async def delete_all(self, user_id: str) -> None:
        """Delete the user's short-term layer and every session of theirs it saw."""
        await self.cache.drop(
            session_ids=await self.cache.user_sessions(user_id), user_ids=[user_id]
        )


class PostgresMemoryStore:
    """The spec's long-term store, as a thin face over :class:`PostgresStore`.

    Entries are appended one transaction each (idempotent by id), never
    rewritten as a whole list.
    """

    def __init__(self, store: PostgresStore) -> None:
        self.store = store

    async def save_conversation(
        self, user_id: str, session_id: str, entries: Sequence[MemoryEntry]
    ) -> list[MemoryEntry]:
        """Store ``entries`` (already validated, ids set) in ``session_id``; a retry is a no-op.

        Raises:
            SessionNotFoundError: the session belongs to another user.
            StoreUnavailableError: PostgreSQL is down; entries before it stay stored.
        """
        stored: list[MemoryEntry] = []
        for entry in entries:
            if entry.session_id and entry.session_id != session_id:
                raise SessionNotFoundError(f"entry belongs to another session than {session_id!r}")
            ready = entry.model_copy(
                update={
                    "session_id": session_id,
                    "user_id": user_id,
                    "timestamp": entry.timestamp or datetime.now(UTC),
                    "seq": None,
                }
            )
            stored.append((await self.store.append_entry(ready)).entry)
        return stored

    async def delete_today(self, user_id: str, *, now: datetime | None = None) -> dict[str, int]:
        """Delete the user's entries and events since midnight UTC; counts per kind."""
        now = now or datetime.now(UTC)
        midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
        return await self.store.delete_user_data(user_id, scope="day", since=midnight)

    async def delete_all(self, user_id: str) -> dict[str, int]:
        """Delete everything of the user but settings and the audit log; counts per kind."""
        scope: DeleteScope = "all"
        return await self.store.delete_user_data(user_id, scope=scope)
