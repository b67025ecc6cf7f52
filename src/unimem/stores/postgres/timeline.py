"""Reads and edits of a session's timeline in the PostgreSQL store: state,
entries, events, the context in one query, a user's sessions, entry edits and
cross-session recall."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any

import asyncpg

from ...models import MemoryEntry, MemoryEvent, MemorySettings, SessionInfo
from ..contracts import RECENT_SCAN, ContextSnapshot
from ..rows import entry_from_json, event_from_json, session_from_json
from ..timeline import apply_entry_changes
from .sql import CONTEXT, RECOUNT, rows_affected

__all__ = ["PostgresTimeline"]


class PostgresTimeline:
    """Mixin of :class:`~unimem.stores.postgres.PostgresStore`: a session's
    timeline, read and edited."""

    if TYPE_CHECKING:  # provided by PostgresStore

        def _conn(self) -> AbstractAsyncContextManager[asyncpg.Connection]: ...

        def forget(self, session_ids: Sequence[str] = (), *, everything: bool = False) -> None: ...

    async def get_session(self, session_id: str) -> SessionInfo | None:
        async with self._conn() as conn:
            raw = await conn.fetchval("SELECT data FROM sessions WHERE session_id = $1", session_id)
        return session_from_json(raw) if raw is not None else None

    async def get_entries(
        self, session_id: str, *, limit: int, before_seq: int | None = None
    ) -> list[MemoryEntry]:
        if limit <= 0:
            return []
        async with self._conn() as conn:
            rows = await conn.fetch(
                "SELECT data FROM entries WHERE session_id = $1 AND seq < $2 "
                "ORDER BY seq DESC LIMIT $3",
                session_id,
                before_seq if before_seq is not None else 2**62,
                limit,
            )
        return [entry_from_json(r[0]) for r in reversed(rows)]

    async def load_history(
        self, session_id: str, *, limit: int, before_seq: int | None = None
    ) -> tuple[SessionInfo | None, list[MemoryEntry]]:
        async with self._conn() as conn:
            row = await conn.fetchrow(
                "SELECT s.data, ARRAY(SELECT e.data::text FROM entries e "
                "WHERE e.session_id = $1 AND e.seq < $2 ORDER BY e.seq DESC LIMIT $3) "
                "FROM sessions s WHERE s.session_id = $1",
                session_id,
                before_seq if before_seq is not None else 2**62,
                max(limit, 0),
            )
        if row is None:
            return None, []
        return session_from_json(row[0]), [entry_from_json(r) for r in reversed(row[1])]

    async def get_entry(self, session_id: str, entry_id: str) -> MemoryEntry | None:
        async with self._conn() as conn:
            raw = await conn.fetchval(
                "SELECT data FROM entries WHERE session_id = $1 AND id = $2", session_id, entry_id
            )
        return entry_from_json(raw) if raw is not None else None

    async def get_events(
        self, session_id: str, *, event_type: str | None = None, limit: int
    ) -> list[MemoryEvent]:
        if limit <= 0:
            return []
        async with self._conn() as conn:
            rows = await conn.fetch(
                "SELECT data FROM events WHERE session_id = $1 "
                "AND ($2::text IS NULL OR event_type = $2) ORDER BY seq DESC LIMIT $3",
                session_id,
                event_type,
                limit,
            )
        return [event_from_json(r[0]) for r in reversed(rows)]

    async def load_context(
        self, session_id: str, *, max_messages: int, event_limit: int
    ) -> ContextSnapshot:
        """Session, last messages, last switch events and settings in one query."""
        async with self._conn() as conn:
            row = await conn.fetchrow(CONTEXT, session_id, max_messages, event_limit)
        if row is None or row[0] is None:
            return ContextSnapshot(None, [], [], [], None)
        return ContextSnapshot(
            session=session_from_json(row[0]),
            entries=[entry_from_json(r) for r in reversed(row[1] or [])],
            language_events=[event_from_json(r) for r in reversed(row[2] or [])],
            mode_events=[event_from_json(r) for r in reversed(row[3] or [])],
            settings=MemorySettings.model_validate_json(row[4]) if row[4] else None,
        )

    async def list_sessions(
        self, user_id: str, *, limit: int, offset: int = 0
    ) -> list[SessionInfo]:
        async with self._conn() as conn:
            rows = await conn.fetch(
                "SELECT data FROM sessions WHERE user_id = $1 "
                "ORDER BY last_active_at DESC, session_id DESC LIMIT $2 OFFSET $3",
                user_id,
                limit,
                offset,
            )
        return [session_from_json(r[0]) for r in rows]

    async def update_entry(
        self, session_id: str, entry_id: str, changes: dict[str, Any]
    ) -> MemoryEntry | None:
        """Replace editable fields of a stored entry; ``None`` if unknown.

        Raises:
            InvalidInputError: a field that cannot change, or an invalid value.
        """
        async with self._conn() as conn, conn.transaction():
            raw = await conn.fetchval(
                "SELECT data FROM entries WHERE session_id = $1 AND id = $2 FOR UPDATE",
                session_id,
                entry_id,
            )
            if raw is None:
                return None
            updated = apply_entry_changes(entry_from_json(raw), changes)
            await conn.execute(
                "UPDATE entries SET data = $3::json, ts = $4 WHERE session_id = $1 AND id = $2",
                session_id,
                entry_id,
                updated.model_dump_json(),
                updated.timestamp,
            )
        return updated

    async def delete_entry(self, session_id: str, entry_id: str) -> bool:
        """Delete one entry and the session's summary; whether the entry existed."""
        async with self._conn() as conn, conn.transaction():
            status = await conn.execute(
                "DELETE FROM entries WHERE session_id = $1 AND id = $2", session_id, entry_id
            )
            if rows_affected(status) == 0:
                return False
            await conn.execute("DELETE FROM summaries WHERE session_id = $1", session_id)
            await conn.execute(RECOUNT, [session_id])
        self.forget([session_id])
        return True

    async def recent_user_entries(
        self, user_id: str, *, since: datetime, exclude_session: str | None, limit: int
    ) -> list[MemoryEntry]:
        """The user's last ``limit`` entries since ``since`` from other sessions,
        oldest first, among their last ``RECENT_SCAN`` (see the Protocol)."""
        if limit <= 0:
            return []
        async with self._conn() as conn:
            rows = await conn.fetch(
                "SELECT data FROM (SELECT data, session_id, seq, ts FROM entries "
                "WHERE user_id = $1 AND ts >= $2 ORDER BY ts DESC, session_id, seq DESC "
                "LIMIT $5) AS newest WHERE ($3::text IS NULL OR session_id <> $3) "
                "ORDER BY ts DESC, session_id, seq DESC LIMIT $4",
                user_id,
                since,
                exclude_session,
                limit,
                RECENT_SCAN,
            )
        return [entry_from_json(r[0]) for r in reversed(rows)]
