"""Privacy operations of the PostgreSQL store: deletion, the retention sweep,
export and the audit log.

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
from ...models import AuditRecord, Fact, MemorySettings
from ..contracts import DeleteScope
from ..rows import session_from_json
from .sql import RECOUNT, rows_affected
from .vault import delete_vault, sweep_vault
from .vectors import FORGET_VECTOR_REMOVALS

__all__ = ["PostgresPrivacy"]

_KINDS = ("entries", "events", "sessions", "summaries", "facts")


def _delete_all_sql(kinds: Sequence[str], *, by_session: bool) -> str:
    """One statement deleting the user's rows of ``kinds`` (of sessions ``$2``),
    returning the count per kind."""
    where = "user_id = $1" + (" AND session_id = ANY($2::text[])" if by_session else "")
    ctes = ", ".join(f"d_{k} AS (DELETE FROM {k} WHERE {where} RETURNING 1)" for k in kinds)
    counts = ", ".join(f"(SELECT count(*) FROM d_{k})" for k in kinds)
    return f"WITH {ctes} SELECT {counts}"


class PostgresPrivacy:
    """Mixin of :class:`~unimem.stores.postgres.PostgresStore`: what deletes,
    sweeps, exports and audits a user's memory."""

    if TYPE_CHECKING:  # provided by PostgresStore

        def _conn(self) -> AbstractAsyncContextManager[asyncpg.Connection]: ...

        def forget(self, session_ids: Sequence[str] = (), *, everything: bool = False) -> None: ...

        async def _export_vectors(self, user_id: str) -> list[dict[str, Any]]: ...

        async def list_facts(self, user_id: str) -> list[Fact]: ...

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
                await conn.execute(FORGET_VECTOR_REMOVALS, user_id)
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
                await conn.execute(RECOUNT, ids)
                counts["summaries"] = rows_affected(
                    await conn.execute(
                        "DELETE FROM summaries WHERE user_id = $1 AND session_id = ANY($2)",
                        user_id,
                        ids,
                    )
                )
                # a session left with nothing in it goes too (its state names languages)
                counts["sessions"] = rows_affected(
                    await conn.execute(
                        "DELETE FROM sessions s WHERE s.user_id = $1 AND s.session_id = ANY($2) "
                        "AND NOT EXISTS (SELECT 1 FROM entries e WHERE e.session_id = s.session_id)"
                        " AND NOT EXISTS "
                        "(SELECT 1 FROM events v WHERE v.session_id = s.session_id)",
                        user_id,
                        ids,
                    )
                )
                counts["facts"] = rows_affected(
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
                counts["facts"] = rows_affected(
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
            await conn.execute(RECOUNT, sorted(touched))
            # facts found in turns expire like the turns; pinned facts stay
            total += rows_affected(
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
            total += rows_affected(
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
