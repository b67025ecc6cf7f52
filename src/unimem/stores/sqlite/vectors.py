"""Dense vectors of the SQLite store: a queue filled by triggers, vectors as BLOBs.

Schema version 7 adds ``vector_queue`` (the entries waiting for a vector,
each with a ``ticket``) and ``entry_vectors`` (one ``float32`` BLOB per entry
and the model that made it), and triggers on ``entries``: an append queues
the entry in its own transaction; a change of the entry's text drops its
vector and queues it again under a new ticket; a deletion or sweep deletes
both rows with the entry. Entries written before this version are queued by
the migration (the backfill). With ``secure_delete`` on, a deleted vector's
bytes are overwritten in the file.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ...models import MemoryEntry
from ...recall.hits import SearchFilters
from ...recall.vectors import top_k
from ..rows import entry_from_json
from ..search import KeywordHit
from ..vectors import PendingEntry, VectorBacklog, VectorRow, VectorStamp, export_vectors
from .filters import filter_clauses
from .times import time_of

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

__all__ = [
    "VECTOR_ERASURES_MIGRATION",
    "VECTOR_MIGRATION",
    "VECTOR_STAMP_MIGRATION",
    "SQLiteVectors",
    "forget_vector_removals",
]

_NOW_US = "CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER)"
_KEY = "session_id = {row}.session_id AND seq = {row}.seq"
_QUEUE = (
    "INSERT OR REPLACE INTO vector_queue (session_id, seq, user_id, queued_us) "
    f"VALUES (new.session_id, new.seq, new.user_id, {_NOW_US})"
)

#: Schema version 7: the entry vectors and their queue (single statements).
VECTOR_MIGRATION: tuple[str, ...] = (
    "CREATE TABLE vector_queue (ticket INTEGER PRIMARY KEY AUTOINCREMENT, "
    "session_id TEXT NOT NULL, seq INTEGER NOT NULL, user_id TEXT NOT NULL, "
    "queued_us INTEGER NOT NULL, UNIQUE (session_id, seq))",
    # a rowid table: a WITHOUT ROWID row this long would spill to overflow pages
    "CREATE TABLE entry_vectors (session_id TEXT NOT NULL, seq INTEGER NOT NULL, "
    "user_id TEXT NOT NULL, model TEXT NOT NULL, vector BLOB NOT NULL, "
    "PRIMARY KEY (session_id, seq))",
    "CREATE INDEX entry_vectors_by_user ON entry_vectors (user_id, model)",
    f"CREATE TRIGGER entries_vector_insert AFTER INSERT ON entries BEGIN {_QUEUE}; END",
    f"""CREATE TRIGGER entries_vector_update AFTER UPDATE OF data ON entries
        WHEN json_extract(old.data, '$.content') IS NOT json_extract(new.data, '$.content')
    BEGIN
        DELETE FROM entry_vectors WHERE {_KEY.format(row="new")};
        {_QUEUE};
    END""",
    f"""CREATE TRIGGER entries_vector_delete AFTER DELETE ON entries BEGIN
        DELETE FROM entry_vectors WHERE {_KEY.format(row="old")};
        DELETE FROM vector_queue WHERE {_KEY.format(row="old")};
    END""",
    # entries written before this version wait for their vectors too
    "INSERT INTO vector_queue (session_id, seq, user_id, queued_us) "
    f"SELECT session_id, seq, user_id, {_NOW_US} FROM entries ORDER BY ts_us",
)


#: Schema version 8: the count of each user's deleted vectors, so a process
#: that keeps a user's vectors in memory sees a deletion with one read (rows
#: are numbered by ``rowid``, which a vector stored again gets anew).
VECTOR_STAMP_MIGRATION: tuple[str, ...] = (
    "CREATE TABLE vector_removals (user_id TEXT PRIMARY KEY, removals INTEGER NOT NULL) "
    "WITHOUT ROWID",
    """CREATE TRIGGER entry_vectors_removed AFTER DELETE ON entry_vectors BEGIN
        INSERT INTO vector_removals (user_id, removals) VALUES (old.user_id, 1)
        ON CONFLICT (user_id) DO UPDATE SET removals = removals + 1;
    END""",
)


#: Schema version 9: a user's erasure leaves no ``vector_removals`` row naming
#: them. ``vector_erasures.erased`` is what a user without a row reads: it
#: rises past the count of each row an erasure removes, and a user's first
#: deletion counts on from it, so a user's stamp never comes back to an
#: earlier one. Rows of users with no vectors left (erased before this
#: version) go the same way.
VECTOR_ERASURES_MIGRATION: tuple[str, ...] = (
    "CREATE TABLE vector_erasures (one INTEGER PRIMARY KEY CHECK (one = 1), "
    "erased INTEGER NOT NULL)",
    "INSERT INTO vector_erasures (one, erased) SELECT 1, COALESCE(MAX(removals) + 1, 0) "
    "FROM vector_removals WHERE user_id NOT IN (SELECT user_id FROM entry_vectors)",
    "DELETE FROM vector_removals WHERE user_id NOT IN (SELECT user_id FROM entry_vectors)",
    "DROP TRIGGER entry_vectors_removed",
    """CREATE TRIGGER entry_vectors_removed AFTER DELETE ON entry_vectors BEGIN
        INSERT INTO vector_removals (user_id, removals)
        VALUES (old.user_id, (SELECT erased FROM vector_erasures) + 1)
        ON CONFLICT (user_id) DO UPDATE SET removals = removals + 1;
    END""",
)


def forget_vector_removals(cur: sqlite3.Cursor, user_id: str) -> None:
    """A user's erasure: their removals row goes, and ``erased`` rises past it."""
    cur.execute(
        "UPDATE vector_erasures SET erased = MAX(erased, removals) + 1 "
        "FROM vector_removals WHERE user_id = ?",
        (user_id,),
    )
    cur.execute("DELETE FROM vector_removals WHERE user_id = ?", (user_id,))


class SQLiteVectors:
    """Mixin of :class:`~unimem.stores.sqlite.SQLiteStore`: entry vectors."""

    if TYPE_CHECKING:  # provided by SQLiteStore

        def _conn(self) -> sqlite3.Connection: ...

        def _tx(self) -> AbstractContextManager[sqlite3.Cursor]: ...

    async def pending_vectors(self, limit: int) -> list[PendingEntry]:
        rows = (
            self._conn()
            .execute(
                "SELECT q.ticket, q.session_id, q.seq, q.user_id, q.queued_us, "
                "json_extract(e.data, '$.content') FROM vector_queue q "
                "JOIN entries e ON e.session_id = q.session_id AND e.seq = q.seq "
                "ORDER BY q.ticket LIMIT ?",
                (max(0, limit),),
            )
            .fetchall()
        )
        return [
            PendingEntry(sid, seq, uid, text or "", ticket, time_of(queued))
            for ticket, sid, seq, uid, queued, text in rows
        ]

    async def put_vectors(self, model: str, vectors: Sequence[tuple[PendingEntry, bytes]]) -> int:
        stored = 0
        with self._tx() as cur:
            for pending, blob in vectors:
                # only while the entry is queued under this ticket (not deleted or changed)
                cur.execute(
                    "INSERT OR REPLACE INTO entry_vectors (session_id, seq, user_id, model, "
                    "vector) SELECT session_id, seq, user_id, ?, ? FROM vector_queue "
                    "WHERE ticket = ?",
                    (model, blob, pending.ticket),
                )
                stored += cur.rowcount
                cur.execute("DELETE FROM vector_queue WHERE ticket = ?", (pending.ticket,))
        return stored

    async def vector_search(
        self,
        user_id: str,
        vector: npt.NDArray[np.float32],
        *,
        model: str,
        filters: SearchFilters,
        limit: int,
    ) -> list[KeywordHit]:
        if limit <= 0:
            return []
        where, args = filter_clauses(filters)
        db = self._conn()
        rows = db.execute(
            "SELECT v.session_id, v.seq, v.vector FROM entry_vectors v "
            "JOIN entries e ON e.session_id = v.session_id AND e.seq = v.seq "
            f"WHERE {' AND '.join(['v.user_id = ?', 'v.model = ?', *where])}",
            (user_id, model, *args),
        ).fetchall()
        best = top_k(vector, [r[2] for r in rows], limit)
        hits = []
        for i, score in best:
            found = db.execute(
                "SELECT data FROM entries WHERE session_id = ? AND seq = ? AND user_id = ?",
                (rows[i][0], rows[i][1], user_id),
            ).fetchone()
            if found is not None:
                hits.append(KeywordHit(entry_from_json(found[0]), score))
        return hits

    async def vector_stamp(self, user_id: str, model: str) -> VectorStamp:
        last, removals = (
            self._conn()
            .execute(
                "SELECT (SELECT MAX(rowid) FROM entry_vectors WHERE user_id = ? AND model = ?), "
                "COALESCE((SELECT removals FROM vector_removals WHERE user_id = ?), "
                "(SELECT erased FROM vector_erasures))",
                (user_id, model, user_id),
            )
            .fetchone()
        )
        return VectorStamp(last or 0, removals or 0)

    async def vector_rows(self, user_id: str, model: str, *, after: int) -> list[VectorRow]:
        rows = (
            self._conn()
            .execute(
                "SELECT v.rowid, v.session_id, v.seq, json_extract(e.data, '$.role'), v.vector "
                "FROM entry_vectors v "
                "JOIN entries e ON e.session_id = v.session_id AND e.seq = v.seq "
                "WHERE v.user_id = ? AND v.model = ? AND v.rowid > ? ORDER BY v.rowid",
                (user_id, model, after),
            )
            .fetchall()
        )
        return [VectorRow(row, sid, seq, role, blob) for row, sid, seq, role, blob in rows]

    async def vector_entries(
        self, user_id: str, model: str, keys: Sequence[tuple[str, int]], filters: SearchFilters
    ) -> list[tuple[MemoryEntry, bytes]]:
        if not keys:
            return []
        where, args = filter_clauses(filters)
        pairs = ", ".join("(?, ?)" for _ in keys)
        rows = (
            self._conn()
            .execute(
                f"WITH k (session_id, seq) AS (VALUES {pairs}) "
                "SELECT e.data, v.vector FROM k "
                "JOIN entry_vectors v ON v.session_id = k.session_id AND v.seq = k.seq "
                "JOIN entries e ON e.session_id = v.session_id AND e.seq = v.seq "
                f"WHERE {' AND '.join(['v.user_id = ?', 'v.model = ?', 'e.user_id = ?', *where])}",
                (*(part for key in keys for part in key), user_id, model, user_id, *args),
            )
            .fetchall()
        )
        return [(entry_from_json(data), blob) for data, blob in rows]

    async def vector_backlog(self) -> VectorBacklog:
        count, oldest = (
            self._conn().execute("SELECT COUNT(*), MIN(queued_us) FROM vector_queue").fetchone()
        )
        return VectorBacklog(count, time_of(oldest) if oldest is not None else None)

    def _export_vectors(self, user_id: str) -> list[dict[str, Any]]:
        rows = (
            self._conn()
            .execute(
                "SELECT session_id, seq, model, vector FROM entry_vectors WHERE user_id = ? "
                "ORDER BY session_id, seq",
                (user_id,),
            )
            .fetchall()
        )
        return export_vectors(
            {"session_id": sid, "seq": seq, "model": model, "vector": blob}
            for sid, seq, model, blob in rows
        )
