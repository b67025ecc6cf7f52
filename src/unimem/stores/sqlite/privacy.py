"""Privacy operations of the SQLite store: deletion, the retention sweep, export
and the audit log (schema version 2)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from contextlib import AbstractContextManager, suppress
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ...errors import InvalidInputError
from ...models import AuditRecord, Fact, MemorySettings, Summary
from ..contracts import DeleteScope
from ..rows import entry_from_json, event_from_json, session_from_json
from .search import purge_deleted_terms
from .session_rows import recount
from .times import us
from .vault import delete_vault, sweep_vault
from .vectors import forget_vector_removals

__all__ = ["SQLitePrivacy"]

_DAY_US = 86_400_000_000
_DELETE_KINDS = ("entries", "events", "sessions", "summaries", "facts")


class SQLitePrivacy:
    """Mixin of :class:`~unimem.stores.sqlite.SQLiteStore`: what deletes, sweeps,
    exports and audits a user's memory; each in one transaction (``_tx``) or
    one read on the store's connection (``_conn``)."""

    if TYPE_CHECKING:  # provided by SQLiteStore

        def _conn(self) -> sqlite3.Connection: ...

        def _tx(self) -> AbstractContextManager[sqlite3.Cursor]: ...

        def _export_vectors(self, user_id: str) -> list[dict[str, Any]]: ...

        async def get_settings(self, user_id: str) -> MemorySettings | None: ...

        async def list_facts(self, user_id: str) -> list[Fact]: ...

    @staticmethod
    def _delete_sessions(cur: sqlite3.Cursor, user_id: str, ids: Sequence[str]) -> dict[str, int]:
        counts = dict.fromkeys(_DELETE_KINDS, 0)
        for sid in ids:
            for kind in ("entries", "events", "summaries", "sessions"):
                cur.execute(
                    f"DELETE FROM {kind} WHERE session_id = ? AND user_id = ?", (sid, user_id)
                )
                counts[kind] += cur.rowcount
            # facts found in the session's turns go with it; pinned ones stay
            cur.execute(
                "DELETE FROM facts WHERE user_id = ? AND json_extract(data, '$.session_id') = ? "
                "AND json_array_length(data, '$.source_entry_ids') > 0",
                (user_id, sid),
            )
            counts["facts"] += cur.rowcount
        delete_vault(cur, user_id, session_ids=ids)
        return counts

    async def delete_user_data(
        self,
        user_id: str,
        *,
        scope: DeleteScope,
        since: datetime | None = None,
        session_ids: Sequence[str] = (),
    ) -> dict[str, int]:
        if scope not in ("session", "day", "all"):
            raise InvalidInputError(
                f"scope must be session, day or all, got {scope!r}", field="scope"
            )
        if scope == "day" and since is None:
            raise InvalidInputError("scope 'day' needs `since`", field="since")
        with self._tx() as cur:
            if scope == "session":
                counts = self._delete_sessions(cur, user_id, list(dict.fromkeys(session_ids)))
            elif scope == "all":
                counts = dict.fromkeys(_DELETE_KINDS, 0)
                for kind in _DELETE_KINDS:
                    cur.execute(f"DELETE FROM {kind} WHERE user_id = ?", (user_id,))
                    counts[kind] = cur.rowcount
                delete_vault(cur, user_id)
                forget_vector_removals(cur, user_id)
            else:
                counts = self._delete_since(cur, user_id, us(since))
        self._scrub()
        return counts

    @staticmethod
    def _delete_since(cur: sqlite3.Cursor, user_id: str, cutoff: int) -> dict[str, int]:
        counts = dict.fromkeys(_DELETE_KINDS, 0)
        touched: set[str] = set()
        for kind in ("entries", "events"):
            rows = cur.execute(
                f"DELETE FROM {kind} WHERE user_id = ? AND ts_us >= ? RETURNING session_id",
                (user_id, cutoff),
            ).fetchall()
            counts[kind] = len(rows)
            touched.update(r[0] for r in rows)
        for sid in sorted(touched):
            cur.execute("DELETE FROM summaries WHERE session_id = ?", (sid,))
            counts["summaries"] += cur.rowcount
            # a session left with nothing in it goes too (its state names languages)
            cur.execute(
                "DELETE FROM sessions WHERE session_id = ? "
                "AND NOT EXISTS (SELECT 1 FROM entries WHERE session_id = ?) "
                "AND NOT EXISTS (SELECT 1 FROM events WHERE session_id = ?)",
                (sid, sid, sid),
            )
            counts["sessions"] += cur.rowcount
        recount(cur, sorted(touched))
        cur.execute("DELETE FROM facts WHERE user_id = ? AND created_us >= ?", (user_id, cutoff))
        counts["facts"] = cur.rowcount
        delete_vault(cur, user_id, since_us=cutoff)
        return counts

    def _scrub(self) -> None:
        """Push deleted pages out of the write-ahead log: with ``secure_delete`` on, the
        file then holds zeros where the deleted rows were. Best effort: a checkpoint
        blocked by a reader completes at a later one."""
        with suppress(sqlite3.Error):
            purge_deleted_terms(self._conn())  # deleted entries' terms leave the index
            self._conn().execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()

    async def sweep_expired(self, *, now: datetime, default_retention_days: int) -> int:
        # the cutoff of each row is its owner's: settings.retention_days, else the default
        cutoff = (
            "? - COALESCE((SELECT retention_days FROM settings s WHERE s.user_id = {t}.user_id), "
            "?) * ?"
        )
        args = (us(now), default_retention_days, _DAY_US)
        deleted = 0
        touched: set[str] = set()
        with self._tx() as cur:
            # a summary goes with the entries it summarized, however recently written
            cur.execute(
                "DELETE FROM summaries WHERE session_id IN (SELECT DISTINCT session_id "
                f"FROM entries WHERE ts_us < {cutoff.format(t='entries')})",
                args,
            )
            deleted += cur.rowcount
            # facts found in turns expire like the turns; pinned facts stay
            cur.execute(
                f"DELETE FROM facts WHERE created_us < {cutoff.format(t='facts')} "
                "AND json_array_length(data, '$.source_entry_ids') > 0",
                args,
            )
            deleted += cur.rowcount
            for table, column in (
                ("entries", "ts_us"),
                ("events", "ts_us"),
                ("summaries", "created_us"),
            ):
                rows = cur.execute(
                    f"DELETE FROM {table} WHERE {column} < {cutoff.format(t=table)} "
                    "RETURNING session_id",
                    args,
                ).fetchall()
                deleted += len(rows)
                if table != "summaries":
                    touched.update(r[0] for r in rows)
            recount(cur, sorted(touched))
            # a token's value expires with the phi_detected event that numbered it
            vault_gone = sweep_vault(cur, cutoff, args)
            cur.execute(
                f"DELETE FROM sessions WHERE last_active_us < {cutoff.format(t='sessions')} "
                "AND NOT EXISTS (SELECT 1 FROM entries e WHERE e.session_id = sessions.session_id) "
                "AND NOT EXISTS (SELECT 1 FROM events v WHERE v.session_id = sessions.session_id)",
                args,
            )
            deleted += cur.rowcount
            cur.execute(
                "DELETE FROM summaries WHERE session_id NOT IN (SELECT session_id FROM sessions)"
            )
            deleted += cur.rowcount
        if deleted or vault_gone:
            self._scrub()
        return deleted

    async def export_user(self, user_id: str) -> dict[str, Any]:
        db = self._conn()
        settings = await self.get_settings(user_id)
        sessions = db.execute("SELECT data FROM sessions WHERE user_id = ?", (user_id,)).fetchall()
        states = sorted(
            (session_from_json(r[0]) for r in sessions),
            key=lambda s: (s.started_at, s.session_id),
        )
        order = {s.session_id: i for i, s in enumerate(states)}

        def rows(table: str) -> list[tuple[str, str]]:
            found = db.execute(
                f"SELECT session_id, data FROM {table} WHERE user_id = ? ORDER BY session_id, seq",
                (user_id,),
            ).fetchall()
            found.sort(key=lambda r: order.get(r[0], len(order)))
            return found

        summaries = db.execute(
            "SELECT session_id, data FROM summaries WHERE user_id = ?", (user_id,)
        ).fetchall()
        summaries.sort(key=lambda r: order.get(r[0], len(order)))
        return {
            "settings": settings.model_dump(mode="json") if settings else None,
            "sessions": [s.model_dump(mode="json") for s in states],
            "entries": [entry_from_json(r[1]).to_dict() for r in rows("entries")],
            "events": [event_from_json(r[1]).to_dict() for r in rows("events")],
            "facts": [f.model_dump(mode="json") for f in await self.list_facts(user_id)],
            "summaries": [
                Summary.model_validate_json(r[1]).model_dump(mode="json") for r in summaries
            ],
            "vectors": self._export_vectors(user_id),
        }

    async def append_audit(self, record: AuditRecord) -> None:
        with self._tx() as cur:
            cur.execute(
                "INSERT INTO audit (id, user_id, ts_us, data) VALUES (?, ?, ?, ?)",
                (record.id, record.user_id, us(record.timestamp), record.model_dump_json()),
            )

    async def list_audit(self, user_id: str, *, limit: int) -> list[AuditRecord]:
        if limit <= 0:
            return []
        rows = (
            self._conn()
            .execute(
                "SELECT data FROM audit WHERE user_id = ? ORDER BY pos DESC LIMIT ?",
                (user_id, limit),
            )
            .fetchall()
        )
        return [AuditRecord.model_validate_json(r[0]) for r in reversed(rows)]
