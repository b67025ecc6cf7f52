"""User data of the SQLite store: settings, pinned facts and session summaries
(schema versions 1 and 2)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING

from ...models import Fact, MemorySettings, Summary
from ..contracts import FactsChanged
from ..rows import fact_from_json
from .times import us

__all__ = ["SQLiteUserData"]


class SQLiteUserData:
    """Mixin of :class:`~unimem.stores.sqlite.SQLiteStore`: a user's settings,
    facts and summaries."""

    if TYPE_CHECKING:  # provided by SQLiteStore

        def _conn(self) -> sqlite3.Connection: ...

        def _tx(self) -> AbstractContextManager[sqlite3.Cursor]: ...

    async def put_settings(self, user_id: str, settings: MemorySettings) -> None:
        with self._tx() as cur:
            cur.execute(
                "INSERT INTO settings (user_id, data, retention_days) VALUES (?, ?, ?) "
                "ON CONFLICT (user_id) DO UPDATE SET data = excluded.data, "
                "retention_days = excluded.retention_days",
                (user_id, settings.model_dump_json(), settings.retention_days),
            )

    async def get_settings(self, user_id: str) -> MemorySettings | None:
        row = (
            self._conn()
            .execute("SELECT data FROM settings WHERE user_id = ?", (user_id,))
            .fetchone()
        )
        return MemorySettings.model_validate_json(row[0]) if row else None

    async def put_fact(self, fact: Fact) -> Fact:
        with self._tx() as cur:
            cur.execute(
                "INSERT INTO facts (id, user_id, created_us, data) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (id) DO UPDATE SET data = excluded.data, "
                "created_us = excluded.created_us WHERE facts.user_id = excluded.user_id",
                (fact.id, fact.user_id, us(fact.created_at), fact.model_dump_json()),
            )
        return fact

    async def list_facts(self, user_id: str) -> list[Fact]:
        rows = (
            self._conn()
            .execute("SELECT data FROM facts WHERE user_id = ? ORDER BY created_us, id", (user_id,))
            .fetchall()
        )
        return [fact_from_json(r[0]) for r in rows]

    async def delete_fact(self, user_id: str, fact_id: str) -> bool:
        with self._tx() as cur:
            cur.execute("DELETE FROM facts WHERE user_id = ? AND id = ?", (user_id, fact_id))
            return cur.rowcount > 0

    async def apply_fact_changes(
        self,
        user_id: str,
        *,
        close: Sequence[tuple[str, datetime]] = (),
        add: Sequence[Fact] = (),
    ) -> list[Fact]:
        with self._tx() as cur:  # BEGIN IMMEDIATE: read, check and write as one
            for fact_id, valid_to in close:
                row = cur.execute(
                    "SELECT data FROM facts WHERE user_id = ? AND id = ?", (user_id, fact_id)
                ).fetchone()
                held = Fact.model_validate_json(row[0]) if row else None
                if held is None or not held.current:
                    raise FactsChanged(fact_id)  # rolls back what was closed before
                closed = held.model_copy(update={"valid_to": valid_to})
                cur.execute(
                    "UPDATE facts SET data = ? WHERE user_id = ? AND id = ?",
                    (closed.model_dump_json(), user_id, fact_id),
                )
            for fact in add:
                cur.execute(
                    "INSERT INTO facts (id, user_id, created_us, data) VALUES (?, ?, ?, ?)",
                    (fact.id, user_id, us(fact.created_at), fact.model_dump_json()),
                )
        return list(add)

    async def put_summary(self, summary: Summary) -> None:
        with self._tx() as cur:
            cur.execute(
                "INSERT INTO summaries (session_id, user_id, created_us, data) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET "
                "user_id = excluded.user_id, created_us = excluded.created_us, "
                "data = excluded.data",
                (
                    summary.session_id,
                    summary.user_id,
                    us(summary.created_at),
                    summary.model_dump_json(),
                ),
            )

    async def get_summary(self, session_id: str) -> Summary | None:
        row = (
            self._conn()
            .execute("SELECT data FROM summaries WHERE session_id = ?", (session_id,))
            .fetchone()
        )
        return Summary.model_validate_json(row[0]) if row else None
