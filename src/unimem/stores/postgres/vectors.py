"""Dense vectors of the PostgreSQL store: a queue filled by a trigger, vectors as ``bytea``.

Schema version 6 adds ``vector_queue`` (the entries waiting for a vector,
each with a ``ticket``) and ``entry_vectors`` (one ``float32`` vector per
entry as ``bytea``, and the model that made it), both referencing their
entry with ``ON DELETE CASCADE``: a deletion or sweep of the entry takes
them with it, and a vector can never be stored for an entry already gone.
A trigger queues each new entry in the append's own transaction, and again
(dropping its vector) when the entry's text changes. Entries written before
this version are queued by the migration (the backfill).

Search is an exact scan of one user's vectors (``entry_vectors_by_user``):
``docs/scaling.md`` says how pgvector's HNSW index takes over where the
extension is installed.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ...recall.hits import SearchFilters
from ...recall.vectors import top_k
from ..rows import entry_from_json
from ..search import KeywordHit
from ..vectors import PendingEntry, VectorBacklog, export_vectors
from .filters import Params, filter_clauses

if TYPE_CHECKING:
    import asyncpg

__all__ = ["VECTOR_MIGRATION", "PostgresVectors"]

#: Schema version 6: the entry vectors and their queue.
VECTOR_MIGRATION = """
CREATE TABLE vector_queue (
    ticket bigserial PRIMARY KEY,
    session_id text NOT NULL,
    seq bigint NOT NULL,
    user_id text NOT NULL,
    queued_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    UNIQUE (session_id, seq),
    FOREIGN KEY (session_id, seq) REFERENCES entries (session_id, seq) ON DELETE CASCADE
);
CREATE TABLE entry_vectors (
    session_id text NOT NULL,
    seq bigint NOT NULL,
    user_id text NOT NULL,
    model text NOT NULL,
    vector bytea NOT NULL,
    PRIMARY KEY (session_id, seq),
    FOREIGN KEY (session_id, seq) REFERENCES entries (session_id, seq) ON DELETE CASCADE
);
CREATE INDEX entry_vectors_by_user ON entry_vectors (user_id, model);
CREATE FUNCTION unimem_entry_vector() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        IF (OLD.data->>'content') IS NOT DISTINCT FROM (NEW.data->>'content') THEN
            RETURN NEW;
        END IF;
        DELETE FROM entry_vectors WHERE session_id = NEW.session_id AND seq = NEW.seq;
        DELETE FROM vector_queue WHERE session_id = NEW.session_id AND seq = NEW.seq;
    END IF;
    INSERT INTO vector_queue (session_id, seq, user_id)
    VALUES (NEW.session_id, NEW.seq, NEW.user_id);
    RETURN NEW;
END
$$;
CREATE TRIGGER entries_vector AFTER INSERT OR UPDATE OF data ON entries
    FOR EACH ROW EXECUTE FUNCTION unimem_entry_vector();
INSERT INTO vector_queue (session_id, seq, user_id)
    SELECT session_id, seq, user_id FROM entries ORDER BY ts;
"""


class PostgresVectors:
    """Mixin of :class:`~unimem.stores.postgres.PostgresStore`: entry vectors."""

    if TYPE_CHECKING:  # provided by PostgresStore

        def _conn(self) -> AbstractAsyncContextManager[asyncpg.Connection]: ...

    async def pending_vectors(self, limit: int) -> list[PendingEntry]:
        async with self._conn() as conn:
            rows = await conn.fetch(
                "SELECT q.ticket, q.session_id, q.seq, q.user_id, q.queued_at, "
                "e.data->>'content' FROM vector_queue q "
                "JOIN entries e ON e.session_id = q.session_id AND e.seq = q.seq "
                "ORDER BY q.ticket LIMIT $1",
                max(0, limit),
            )
        return [
            PendingEntry(sid, seq, uid, text or "", ticket, queued)
            for ticket, sid, seq, uid, queued, text in rows
        ]

    async def put_vectors(self, model: str, vectors: Sequence[tuple[PendingEntry, bytes]]) -> int:
        if not vectors:
            return 0
        tickets = [p.ticket for p, _ in vectors]
        blobs = [blob for _, blob in vectors]
        async with self._conn() as conn, conn.transaction():
            # only the entries still queued under these tickets (not deleted or changed)
            stored = await conn.fetchval(
                "WITH ins AS (INSERT INTO entry_vectors (session_id, seq, user_id, model, vector) "
                "SELECT q.session_id, q.seq, q.user_id, $1, b.vector "
                "FROM unnest($2::bigint[], $3::bytea[]) AS b(ticket, vector) "
                "JOIN vector_queue q ON q.ticket = b.ticket "
                "ON CONFLICT (session_id, seq) DO UPDATE SET model = EXCLUDED.model, "
                "vector = EXCLUDED.vector RETURNING 1) SELECT count(*) FROM ins",
                model,
                tickets,
                blobs,
            )
            await conn.execute("DELETE FROM vector_queue WHERE ticket = ANY($1::bigint[])", tickets)
        return int(stored or 0)

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
        arg = Params(user_id, model)
        on_row, on_entry = filter_clauses(filters, arg, row="v", time="e")
        where = ["v.user_id = $1", "v.model = $2", *on_row, *on_entry]
        async with self._conn() as conn:
            rows = await conn.fetch(
                "SELECT v.session_id, v.seq, v.vector FROM entry_vectors v "
                "JOIN entries e ON e.session_id = v.session_id AND e.seq = v.seq "
                f"WHERE {' AND '.join(where)}",
                *arg.values,
            )
            best = top_k(vector, [bytes(r[2]) for r in rows], limit)
            if not best:
                return []
            found = await conn.fetch(
                "SELECT e.session_id, e.seq, e.data::text FROM entries e "
                "JOIN unnest($2::text[], $3::bigint[]) AS k(session_id, seq) "
                "ON e.session_id = k.session_id AND e.seq = k.seq WHERE e.user_id = $1",
                user_id,
                [rows[i][0] for i, _ in best],
                [rows[i][1] for i, _ in best],
            )
        data = {(sid, seq): text for sid, seq, text in found}
        hits = []
        for i, score in best:
            text = data.get((rows[i][0], rows[i][1]))
            if text is not None:
                hits.append(KeywordHit(entry_from_json(text), score))
        return hits

    async def vector_backlog(self) -> VectorBacklog:
        async with self._conn() as conn:
            row = await conn.fetchrow("SELECT count(*), min(queued_at) FROM vector_queue")
        assert row is not None
        return VectorBacklog(int(row[0]), row[1])

    async def _export_vectors(self, user_id: str) -> list[dict[str, Any]]:
        async with self._conn() as conn:
            rows = await conn.fetch(
                "SELECT session_id, seq, model, vector FROM entry_vectors WHERE user_id = $1 "
                "ORDER BY session_id, seq",
                user_id,
            )
        return export_vectors(
            {"session_id": sid, "seq": seq, "model": model, "vector": bytes(blob)}
            for sid, seq, model, blob in rows
        )
