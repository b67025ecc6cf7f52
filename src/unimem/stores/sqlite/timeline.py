"""Reads and edits of a session's timeline in the SQLite store: state, entries,
events, the context, a user's sessions, entry edits and cross-session recall."""

from __future__ import annotations

import sqlite3
from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ...models import MemoryEntry, MemoryEvent, MemorySettings, SessionInfo
from ..contracts import RECENT_SCAN, ContextSnapshot
from ..rows import entry_from_json, event_from_json, session_from_json
from ..timeline import apply_entry_changes
from .session_rows import recount, session_state
from .times import us

__all__ = ["SQLiteTimeline"]


class SQLiteTimeline:
    """Mixin of :class:`~unimem.stores.sqlite.SQLiteStore`: a session's timeline,
    read and edited."""

    if TYPE_CHECKING:  # provided by SQLiteStore

        def _conn(self) -> sqlite3.Connection: ...

        def _tx(self) -> AbstractContextManager[sqlite3.Cursor]: ...

        def _scrub(self) -> None: ...

        async def get_settings(self, user_id: str) -> MemorySettings | None: ...

    async def get_session(self, session_id: str) -> SessionInfo | None:
        return session_state(self._conn().cursor(), session_id)

    def _entries(self, session_id: str, limit: int, before_seq: int | None) -> list[MemoryEntry]:
        if limit <= 0:
            return []
        rows = (
            self._conn()
            .execute(
                "SELECT data FROM entries WHERE session_id = ? AND seq < ? "
                "ORDER BY seq DESC LIMIT ?",
                (session_id, before_seq if before_seq is not None else 2**62, limit),
            )
            .fetchall()
        )
        return [entry_from_json(r[0]) for r in reversed(rows)]

    async def get_entries(
        self, session_id: str, *, limit: int, before_seq: int | None = None
    ) -> list[MemoryEntry]:
        return self._entries(session_id, limit, before_seq)

    async def load_history(
        self, session_id: str, *, limit: int, before_seq: int | None = None
    ) -> tuple[SessionInfo | None, list[MemoryEntry]]:
        state = await self.get_session(session_id)
        return state, self._entries(session_id, limit, before_seq) if state is not None else []

    async def get_entry(self, session_id: str, entry_id: str) -> MemoryEntry | None:
        row = (
            self._conn()
            .execute(
                "SELECT data FROM entries WHERE session_id = ? AND id = ?", (session_id, entry_id)
            )
            .fetchone()
        )
        return entry_from_json(row[0]) if row else None

    def _events(self, session_id: str, event_type: str | None, limit: int) -> list[MemoryEvent]:
        if limit <= 0:
            return []
        if event_type is None:
            rows = (
                self._conn()
                .execute(
                    "SELECT data FROM events WHERE session_id = ? ORDER BY seq DESC LIMIT ?",
                    (session_id, limit),
                )
                .fetchall()
            )
        else:
            rows = (
                self._conn()
                .execute(
                    "SELECT data FROM events WHERE session_id = ? AND event_type = ? "
                    "ORDER BY seq DESC LIMIT ?",
                    (session_id, event_type, limit),
                )
                .fetchall()
            )
        return [event_from_json(r[0]) for r in reversed(rows)]

    async def get_events(
        self, session_id: str, *, event_type: str | None = None, limit: int
    ) -> list[MemoryEvent]:
        return self._events(session_id, event_type, limit)

    async def load_context(
        self, session_id: str, *, max_messages: int, event_limit: int
    ) -> ContextSnapshot:
        state = session_state(self._conn().cursor(), session_id)
        if state is None:
            return ContextSnapshot(None, [], [], [], None)
        return ContextSnapshot(
            session=state,
            entries=self._entries(session_id, max_messages, None),
            language_events=self._events(session_id, "language_switch", event_limit),
            mode_events=self._events(session_id, "mode_switch", event_limit),
            settings=await self.get_settings(state.user_id),
        )

    async def list_sessions(
        self, user_id: str, *, limit: int, offset: int = 0
    ) -> list[SessionInfo]:
        rows = (
            self._conn()
            .execute(
                "SELECT data FROM sessions WHERE user_id = ? "
                "ORDER BY last_active_us DESC, session_id DESC LIMIT ? OFFSET ?",
                (user_id, limit, offset),
            )
            .fetchall()
        )
        return [session_from_json(r[0]) for r in rows]

    async def update_entry(
        self, session_id: str, entry_id: str, changes: dict[str, Any]
    ) -> MemoryEntry | None:
        with self._tx() as cur:
            row = cur.execute(
                "SELECT data FROM entries WHERE session_id = ? AND id = ?", (session_id, entry_id)
            ).fetchone()
            if row is None:
                return None
            new = apply_entry_changes(entry_from_json(row[0]), changes)
            cur.execute(
                "UPDATE entries SET data = ?, ts_us = ? WHERE session_id = ? AND id = ?",
                (new.model_dump_json(), us(new.timestamp), session_id, entry_id),
            )
        return new

    async def delete_entry(self, session_id: str, entry_id: str) -> bool:
        with self._tx() as cur:
            cur.execute(
                "DELETE FROM entries WHERE session_id = ? AND id = ?", (session_id, entry_id)
            )
            if cur.rowcount == 0:
                return False
            cur.execute("DELETE FROM summaries WHERE session_id = ?", (session_id,))
            recount(cur, [session_id])
        self._scrub()
        return True

    async def recent_user_entries(
        self, user_id: str, *, since: datetime, exclude_session: str | None, limit: int
    ) -> list[MemoryEntry]:
        if limit <= 0:
            return []
        rows = (
            self._conn()
            .execute(
                # the newest RECENT_SCAN from the (user_id, ts_us) index alone (it
                # holds the key, session_id and seq), the kept ones ordered with
                # ties broken as PostgreSQL breaks them, then only their data
                "SELECT e.data FROM (SELECT session_id, seq, ts_us FROM "
                "(SELECT session_id, seq, ts_us FROM entries WHERE user_id = ? AND ts_us >= ? "
                "ORDER BY ts_us DESC LIMIT ?) WHERE session_id IS NOT ? "
                "ORDER BY ts_us DESC, session_id, seq DESC LIMIT ?) AS n "
                "JOIN entries e ON e.session_id = n.session_id AND e.seq = n.seq "
                "ORDER BY n.ts_us DESC, n.session_id, n.seq DESC",
                (user_id, us(since), RECENT_SCAN, exclude_session, limit),
            )
            .fetchall()
        )
        return [entry_from_json(r[0]) for r in reversed(rows)]
