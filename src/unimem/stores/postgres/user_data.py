"""PostgreSQL side of the later layers: entry edits, cross-session recall,
episodic facts and summaries, privacy deletion, retention sweep, export, audit.

Mixed into :class:`~unimem.stores.postgres.PostgresStore`; every query filters
by ``user_id`` first (or by a session, which belongs to one user), so each one
stays on one shard when the tables are distributed by user.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any

import asyncpg
import orjson

from ...errors import InvalidInputError
from ...models import (
    AuditRecord,
    Fact,
    MemoryEntry,
    MemorySettings,
    Summary,
)
from ..contracts import RECENT_SCAN, DeleteScope, FactsChanged
from ..rows import entry_from_json, fact_from_json, session_from_json
from ..timeline import apply_entry_changes
from .vault import delete_vault, sweep_vault

__all__ = ["LaterLayersMixin"]

_KINDS = ("entries", "events", "sessions", "summaries", "facts")
# a session's counts made what is left after a deletion; its last seqs stay
# (taken from the counts of a state stored before they were kept). The version
# moves, so a writer holding the state from before writes nothing and reads it again.
_RECOUNT = """
UPDATE sessions s SET version = s.version + 1, data = (s.data::jsonb || jsonb_build_object(
    'last_entry_seq',
    COALESCE((s.data->>'last_entry_seq')::bigint, (s.data->>'message_count')::bigint),
    'last_event_seq',
    COALESCE((s.data->>'last_event_seq')::bigint, (s.data->>'event_count')::bigint),
    'message_count', (SELECT count(*) FROM entries e WHERE e.session_id = s.session_id),
    'event_count', (SELECT count(*) FROM events v WHERE v.session_id = s.session_id)
))::json
WHERE s.session_id = ANY($1::text[])
"""


def _delete_all_sql(kinds: Sequence[str], *, by_session: bool) -> str:
    """One statement deleting the user's rows of ``kinds`` (of sessions ``$2``),
    returning the count per kind."""
    where = "user_id = $1" + (" AND session_id = ANY($2::text[])" if by_session else "")
    ctes = ", ".join(f"d_{k} AS (DELETE FROM {k} WHERE {where} RETURNING 1)" for k in kinds)
    counts = ", ".join(f"(SELECT count(*) FROM d_{k})" for k in kinds)
    return f"WITH {ctes} SELECT {counts}"


def _count(status: str) -> int:
    """Rows affected, from a command tag such as ``DELETE 3``."""
    return int(status.rsplit(" ", 1)[-1])


class LaterLayersMixin:
    """The ``DurableStore`` methods of the later layers, on asyncpg."""

    if TYPE_CHECKING:

        def _conn(self) -> AbstractAsyncContextManager[asyncpg.Connection]: ...

        def forget(self, session_ids: Sequence[str] = (), *, everything: bool = False) -> None: ...

        async def _export_vectors(self, user_id: str) -> list[dict[str, Any]]: ...

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
            if _count(status) == 0:
                return False
            await conn.execute("DELETE FROM summaries WHERE session_id = $1", session_id)
            await conn.execute(_RECOUNT, [session_id])
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
        return _count(status) > 0

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

    # ------------------------------------------------------------------ privacy

    async def delete_user_data(
        self,
        user_id: str,
        *,
        scope: DeleteScope,
        since: datetime | None = None,
        session_ids: Sequence[str] = (),
    ) -> dict[str, int]:
        """Delete a user's memory in one transaction; counts per kind.

        Raises:
            InvalidInputError: unknown scope, or ``day`` without ``since``.
        """
        counts = dict.fromkeys(_KINDS, 0)
        async with self._conn() as conn, conn.transaction():
            # Lock the sessions first: an append holding a session row commits
            # before the deletes below read (so its entry is deleted too), and
            # one arriving later waits and re-plans from what is left. Without
            # this an append could commit between the deletes, leaving an entry
            # of a deleted session whose seq a re-created session reuses.
            await conn.execute(
                "SELECT 1 FROM sessions WHERE user_id = $1 "
                "AND ($2::text[] IS NULL OR session_id = ANY($2)) "
                "ORDER BY session_id FOR UPDATE",
                user_id,
                list(session_ids) if scope == "session" else None,
            )
            if scope == "all":
                # one statement, one snapshot: a session created meanwhile is
                # deleted with all its rows or kept with all of them
                row = await conn.fetchrow(_delete_all_sql(_KINDS, by_session=False), user_id)
                assert row is not None
                counts.update(zip(_KINDS, row, strict=True))
                await delete_vault(conn, user_id)
                self.forget(everything=True)
            elif scope == "day":
                if since is None:
                    raise InvalidInputError("scope 'day' needs `since`", field="since")
                touched: set[str] = set()
                for kind in ("entries", "events"):
                    rows = await conn.fetch(
                        f"DELETE FROM {kind} WHERE user_id = $1 AND ts >= $2 RETURNING session_id",
                        user_id,
                        since,
                    )
                    counts[kind] = len(rows)
                    touched.update(r[0] for r in rows)
                ids = sorted(touched)
                await conn.execute(_RECOUNT, ids)
                counts["summaries"] = _count(
                    await conn.execute(
                        "DELETE FROM summaries WHERE user_id = $1 AND session_id = ANY($2)",
                        user_id,
                        ids,
                    )
                )
                # a session left with nothing in it goes too (its state names languages)
                counts["sessions"] = _count(
                    await conn.execute(
                        "DELETE FROM sessions s WHERE s.user_id = $1 AND s.session_id = ANY($2) "
                        "AND NOT EXISTS (SELECT 1 FROM entries e WHERE e.session_id = s.session_id)"
                        " AND NOT EXISTS "
                        "(SELECT 1 FROM events v WHERE v.session_id = s.session_id)",
                        user_id,
                        ids,
                    )
                )
                counts["facts"] = _count(
                    await conn.execute(
                        "DELETE FROM facts WHERE user_id = $1 AND created_at >= $2", user_id, since
                    )
                )
                await delete_vault(conn, user_id, since=since)
                self.forget(ids)
            elif scope == "session":
                ids = list(session_ids)
                kinds = ("entries", "events", "summaries", "sessions")
                row = await conn.fetchrow(_delete_all_sql(kinds, by_session=True), user_id, ids)
                assert row is not None
                counts.update(zip(kinds, row, strict=True))
                # facts found in those sessions' turns go with them; pinned ones stay
                counts["facts"] = _count(
                    await conn.execute(
                        "DELETE FROM facts WHERE user_id = $1 AND data->>'session_id' = ANY($2) "
                        "AND json_array_length(data->'source_entry_ids') > 0",
                        user_id,
                        ids,
                    )
                )
                await delete_vault(conn, user_id, session_ids=ids)
                self.forget(ids)
            else:
                raise InvalidInputError(
                    f"scope must be session, day or all, got {scope!r}", field="scope"
                )
        return counts

    async def sweep_expired(self, *, now: datetime, default_retention_days: int) -> int:
        """Delete entries, events and summaries past their user's retention, and
        sessions left empty and idle since, facts found in turns created before
        the cutoff (pinned facts stay). Returns how many rows."""
        return (await self.sweep(now=now, default_retention_days=default_retention_days))[0]

    async def sweep(self, *, now: datetime, default_retention_days: int) -> tuple[int, list[str]]:
        """:meth:`sweep_expired`, also returning the sessions it touched (to drop caches)."""
        # each row's cutoff is its owner's retention_days, else the default
        cutoff = (
            "$1::timestamptz - make_interval(days => COALESCE(("
            "SELECT (s.data->>'retention_days')::int "
            "FROM settings s WHERE s.user_id = {t}.user_id), $2))"
        )
        total = 0
        touched: set[str] = set()
        async with self._conn() as conn, conn.transaction():
            # a summary goes with the entries it summarized, however recently written
            row = await conn.fetchrow(
                "WITH d AS (DELETE FROM summaries WHERE session_id IN (SELECT DISTINCT "
                f"session_id FROM entries WHERE ts < {cutoff.format(t='entries')}) "
                "RETURNING session_id) SELECT count(*), array_agg(session_id) FROM d",
                now,
                default_retention_days,
            )
            assert row is not None
            total += row[0]
            touched.update(row[1] or ())
            for table, column in (
                ("entries", "ts"),
                ("events", "ts"),
                ("summaries", "created_at"),
            ):
                row = await conn.fetchrow(
                    f"WITH d AS (DELETE FROM {table} WHERE {column} < "
                    f"{cutoff.format(t=table)} RETURNING session_id) "
                    "SELECT count(*), array_agg(DISTINCT session_id) FROM d",
                    now,
                    default_retention_days,
                )
                assert row is not None
                total += row[0]
                touched.update(row[1] or ())
            await conn.execute(_RECOUNT, sorted(touched))
            # facts found in turns expire like the turns; pinned facts stay
            total += _count(
                await conn.execute(
                    f"DELETE FROM facts WHERE created_at < {cutoff.format(t='facts')} "
                    "AND json_array_length(data->'source_entry_ids') > 0",
                    now,
                    default_retention_days,
                )
            )
            # a token's value expires with the phi_detected event that numbered it
            await sweep_vault(conn, cutoff, now, default_retention_days)
            rows = await conn.fetch(
                f"DELETE FROM sessions WHERE last_active_at < {cutoff.format(t='sessions')} "
                "AND NOT EXISTS (SELECT 1 FROM entries e WHERE e.session_id = sessions.session_id)"
                " AND NOT EXISTS "
                "(SELECT 1 FROM events v WHERE v.session_id = sessions.session_id) "
                "RETURNING session_id",
                now,
                default_retention_days,
            )
            total += len(rows)
            total += _count(
                await conn.execute(
                    "DELETE FROM summaries WHERE session_id = ANY($1)", [r[0] for r in rows]
                )
            )
        touched.update(r[0] for r in rows)
        self.forget(sorted(touched))
        return total, sorted(touched)

    async def export_user(self, user_id: str) -> dict[str, Any]:
        """Everything stored about the user, JSON-ready, sessions oldest first."""
        async with self._conn() as conn:
            settings = await conn.fetchval("SELECT data FROM settings WHERE user_id = $1", user_id)
            found: dict[str, list[Any]] = {}
            for kind in ("sessions", "entries", "events", "summaries"):
                found[kind] = await conn.fetch(
                    f"SELECT session_id, data FROM {kind} WHERE user_id = $1", user_id
                )
        states = sorted(
            (session_from_json(r[1]) for r in found["sessions"]),
            key=lambda s: (s.started_at, s.session_id),
        )
        order = {s.session_id: i for i, s in enumerate(states)}

        def rows(kind: str) -> list[Any]:
            items = [orjson.loads(r[1]) for r in found[kind]]
            items.sort(key=lambda d: (order.get(d["session_id"], len(order)), d.get("seq") or 0))
            return items

        return {
            "settings": (
                MemorySettings.model_validate_json(settings).model_dump(mode="json")
                if settings
                else None
            ),
            "sessions": [s.model_dump(mode="json") for s in states],
            "entries": rows("entries"),
            "events": rows("events"),
            "facts": [f.model_dump(mode="json") for f in await self.list_facts(user_id)],
            "summaries": rows("summaries"),
            "vectors": await self._export_vectors(user_id),
        }

    async def append_audit(self, record: AuditRecord) -> None:
        """Append to the audit log."""
        async with self._conn() as conn:
            await conn.execute(
                "INSERT INTO audit (user_id, ts, data) VALUES ($1, $2, $3::json)",
                record.user_id,
                record.timestamp,
                record.model_dump_json(),
            )

    async def list_audit(self, user_id: str, *, limit: int) -> list[AuditRecord]:
        """The last ``limit`` audit records about the user, oldest first."""
        async with self._conn() as conn:
            rows = await conn.fetch(
                "SELECT data FROM audit WHERE user_id = $1 ORDER BY pos DESC LIMIT $2",
                user_id,
                limit,
            )
        return [AuditRecord.model_validate_json(r[0]) for r in reversed(rows)]
