"""Appends of the SQLite store: each one a ``BEGIN IMMEDIATE`` transaction, so
appends of several processes sharing the file serialize and ``seq`` stays gap-free."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING

from ...models import MemoryEntry, MemoryEvent, SessionInfo
from ..contracts import AppendResult, PhiGuard, SettingsGuard, VaultValue
from ..rows import entry_from_json
from ..timeline import check_write_guards, plan_close, plan_entry, plan_event
from .session_rows import save_state, session_state
from .times import us
from .vault import insert_values

__all__ = ["SQLiteWrites", "insert_events"]


def insert_events(cur: sqlite3.Cursor, events: list[MemoryEvent]) -> None:
    """Insert the session's new events."""
    if events:
        cur.executemany(
            "INSERT INTO events (session_id, seq, id, user_id, event_type, ts_us, data) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    e.session_id,
                    e.seq,
                    e.id,
                    e.user_id,
                    e.event_type,
                    us(e.timestamp),
                    e.model_dump_json(),
                )
                for e in events
            ],
        )


class SQLiteWrites:
    """Mixin of :class:`~unimem.stores.sqlite.SQLiteStore`: appends of entries and
    events, and closing a session."""

    if TYPE_CHECKING:  # provided by SQLiteStore

        def _tx(self) -> AbstractContextManager[sqlite3.Cursor]: ...

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
        with self._tx() as cur:
            if settings_guard is not None or phi_guard is not None:
                current, last_phi = cur.execute(
                    "SELECT (SELECT data FROM settings WHERE user_id = ?), (SELECT max(seq) "
                    "FROM events WHERE session_id = ? AND event_type = 'phi_detected')",
                    (entry.user_id, entry.session_id),
                ).fetchone()
                check_write_guards(settings_guard, current, phi_guard, last_phi)
            state = session_state(cur, entry.session_id)
            if state is not None:
                row = cur.execute(
                    "SELECT data, user_id FROM entries WHERE session_id = ? AND id = ?",
                    (entry.session_id, entry.id),
                ).fetchone()
                if row is not None and row[1] == entry.user_id:
                    existing = entry_from_json(row[0])
                    return AppendResult(existing, [], created=False, session=state)
            state, stored, events = plan_entry(
                state,
                entry,
                trigger=trigger,
                events_after=events_after,
                language_detected=language_detected,
            )
            cur.execute(
                "INSERT INTO entries (session_id, seq, id, user_id, ts_us, data) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (
                    stored.session_id,
                    stored.seq,
                    stored.id,
                    stored.user_id,
                    us(stored.timestamp),
                    stored.model_dump_json(),
                ),
            )
            insert_events(cur, events)
            save_state(cur, state)
            insert_values(cur, vault)
        return AppendResult(stored, events, created=True, session=state)

    async def append_event(self, event: MemoryEvent) -> MemoryEvent:
        with self._tx() as cur:
            state, stored = plan_event(session_state(cur, event.session_id), event)
            insert_events(cur, [stored])
            save_state(cur, state)
        return stored

    async def close_session(self, session_id: str, *, now: datetime) -> SessionInfo:
        with self._tx() as cur:
            state = plan_close(session_state(cur, session_id), session_id, None, now)
            save_state(cur, state)
        return state
