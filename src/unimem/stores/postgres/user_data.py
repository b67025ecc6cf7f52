"""User data of the PostgreSQL store: settings, pinned facts and session summaries."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from datetime import datetime
from typing import TYPE_CHECKING

import asyncpg

from ...models import Fact, MemorySettings, Summary
from ..contracts import FactsChanged
from ..rows import fact_from_json
from .sql import rows_affected

__all__ = ["PostgresUserData"]


class PostgresUserData:
    """Mixin of :class:`~unimem.stores.postgres.PostgresStore`: a user's settings,
    facts and summaries."""

    if TYPE_CHECKING:  # provided by PostgresStore

        def _conn(self) -> AbstractAsyncContextManager[asyncpg.Connection]: ...

    async def get_settings(self, user_id: str) -> MemorySettings | None:
        async with self._conn() as conn:
            raw = await conn.fetchval("SELECT data FROM settings WHERE user_id = $1", user_id)
        return MemorySettings.model_validate_json(raw) if raw is not None else None

    async def put_settings(self, user_id: str, settings: MemorySettings) -> None:
        async with self._conn() as conn:
            await conn.execute(
                "INSERT INTO settings (user_id, data) VALUES ($1, $2::json) "
                "ON CONFLICT (user_id) DO UPDATE SET data = EXCLUDED.data",
                user_id,
                settings.model_dump_json(),
            )

    # ------------------------------------------------------------------ episodic

    async def put_fact(self, fact: Fact) -> Fact:
        """Store (or replace, by id) a pinned fact of the user."""
        async with self._conn() as conn:
            await conn.execute(
                "INSERT INTO facts (user_id, id, created_at, data) VALUES ($1, $2, $3, $4::json) "
                "ON CONFLICT (user_id, id) DO UPDATE SET created_at = EXCLUDED.created_at, "
                "data = EXCLUDED.data",
                fact.user_id,
                fact.id,
                fact.created_at,
                fact.model_dump_json(),
            )
        return fact

    async def list_facts(self, user_id: str) -> list[Fact]:
        """The user's facts, oldest first."""
        async with self._conn() as conn:
            rows = await conn.fetch(
                "SELECT data FROM facts WHERE user_id = $1 ORDER BY created_at, id", user_id
            )
        return [fact_from_json(r[0]) for r in rows]

    async def delete_fact(self, user_id: str, fact_id: str) -> bool:
        """Delete one fact of the user; whether it existed."""
        async with self._conn() as conn:
            status = await conn.execute(
                "DELETE FROM facts WHERE user_id = $1 AND id = $2", user_id, fact_id
            )
        return rows_affected(status) > 0

    async def apply_fact_changes(
        self,
        user_id: str,
        *,
        close: Sequence[tuple[str, datetime]] = (),
        add: Sequence[Fact] = (),
    ) -> list[Fact]:
        """Close and add the user's facts in one transaction (the rows to close
        locked first); :class:`FactsChanged` when one is no longer current."""
        async with self._conn() as conn, conn.transaction():
            for fact_id, valid_to in close:
                row = await conn.fetchrow(
                    "SELECT data FROM facts WHERE user_id = $1 AND id = $2 FOR UPDATE",
                    user_id,
                    fact_id,
                )
                held = Fact.model_validate_json(row[0]) if row else None
                if held is None or not held.current:
                    raise FactsChanged(fact_id)  # the transaction rolls back
                closed = held.model_copy(update={"valid_to": valid_to})
                await conn.execute(
                    "UPDATE facts SET data = $3::json WHERE user_id = $1 AND id = $2",
                    user_id,
                    fact_id,
                    closed.model_dump_json(),
                )
            if add:
                await conn.executemany(
                    "INSERT INTO facts (user_id, id, created_at, data) "
                    "VALUES ($1, $2, $3, $4::json)",
                    [(user_id, f.id, f.created_at, f.model_dump_json()) for f in add],
                )
        return list(add)

    async def put_summary(self, summary: Summary) -> None:
        """Store (replace) the session's running summary."""
        async with self._conn() as conn:
            await conn.execute(
                "INSERT INTO summaries (session_id, user_id, created_at, data) "
                "VALUES ($1, $2, $3, $4::json) ON CONFLICT (session_id) DO UPDATE SET "
                "user_id = EXCLUDED.user_id, created_at = EXCLUDED.created_at, "
                "data = EXCLUDED.data",
                summary.session_id,
                summary.user_id,
                summary.created_at,
                summary.model_dump_json(),
            )

    async def get_summary(self, session_id: str) -> Summary | None:
        """The session's running summary, or ``None``."""
        async with self._conn() as conn:
            raw = await conn.fetchval(
                "SELECT data FROM summaries WHERE session_id = $1", session_id
            )
        return Summary.model_validate_json(raw) if raw is not None else None
