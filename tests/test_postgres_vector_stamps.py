"""PostgreSQL's vector stamps: a deleting statement writes each user's removal
number once, however many vectors it deletes, and the upgrades from version 7
keep every stamp moving forward; one writer of a user's vectors at a time, so
their row numbers commit in order."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import asyncpg
import pytest

from backends import PG_URL, drop_schema, fresh_name, pg_store
from unimem import MemoryEntry
from unimem.ids import new_id
from unimem.stores.postgres.migrations import apply_migrations
from unimem.stores.postgres.store import PostgresStore
from unimem.stores.postgres.vectors import _VECTOR_WRITER_LOCK as VECTOR_WRITER_LOCK
from unimem.stores.vectors import PendingEntry

pytestmark = pytest.mark.postgres

MODEL = "test-model"


@pytest.fixture
async def v7(request: pytest.FixtureRequest) -> AsyncIterator[tuple[asyncpg.Connection, str]]:
    """A connection to a fresh schema migrated to version 7 (the store before 8)."""
    await (await pg_store(request.node.nodeid)).aclose()  # fails or skips when unreachable
    schema = fresh_name(request.node.nodeid, "v")
    conn = await asyncpg.connect(PG_URL)
    await conn.execute(f'CREATE SCHEMA "{schema}"')
    await conn.execute(f'SET search_path = "{schema}"')
    assert await apply_migrations(conn, target=7) == list(range(1, 8))
    try:
        yield conn, schema
    finally:
        await conn.close()
        await drop_schema(PG_URL, schema)


async def _vectors(conn: asyncpg.Connection, user_id: str, n: int) -> None:
    """``n`` entries of ``user_id`` in one session, and a vector for each of its entries."""
    now = datetime.now(UTC)
    await conn.executemany(
        "INSERT INTO entries (session_id, seq, id, user_id, ts, data) "
        "VALUES ($1, $2, $3, $4, $5, $6::json)",
        [
            (f"{user_id}-s", i, f"{user_id}-e{i}", user_id, now, json.dumps({"content": f"t{i}"}))
            for i in range(1, n + 1)
        ],
    )
    await conn.execute(
        "INSERT INTO entry_vectors (session_id, seq, user_id, model, vector) "
        "SELECT session_id, seq, user_id, $2, '\\x00000000'::bytea FROM entries "
        "WHERE user_id = $1 ON CONFLICT DO NOTHING",
        user_id,
        MODEL,
    )


async def _writes(conn: asyncpg.Connection, schema: str) -> int:
    """Rows written to ``vector_removals`` by this backend, not yet reported."""
    return int(
        await conn.fetchval(
            "SELECT n_tup_ins + n_tup_upd FROM pg_stat_xact_user_tables "
            "WHERE schemaname = $1 AND relname = 'vector_removals'",
            schema,
        )
    )


async def _removals(conn: asyncpg.Connection) -> dict[str, int]:
    return dict(await conn.fetch("SELECT user_id, removals FROM vector_removals"))


async def test_a_bulk_deletion_writes_each_users_removals_once_after_the_upgrade(v7):
    conn, schema = v7
    for user_id, n in (("u1", 400), ("u2", 30), ("u3", 5)):
        await _vectors(conn, user_id, n)
    # version 7 counted each deleted vector: u1 at 3
    await conn.execute("DELETE FROM entries WHERE user_id = 'u1' AND seq <= 3")
    assert await _removals(conn) == {"u1": 3}
    assert await apply_migrations(conn, target=8) == [8]

    async with conn.transaction():  # counts not yet reported: read before and after
        before = await _writes(conn, schema)
        deleted = await conn.execute(
            "DELETE FROM entries WHERE (user_id = 'u1' AND seq < 400) "
            "OR (user_id = 'u2' AND seq < 30)"
        )
        assert deleted == "DELETE 425"
        writes = await _writes(conn, schema) - before
    assert writes == 2  # one a user, not one a deleted vector
    after = await _removals(conn)
    assert set(after) == {"u1", "u2"}
    assert after["u1"] > 3 and after["u2"] > 3 and after["u1"] != after["u2"]

    store = PostgresStore(PG_URL, schema=schema, min_size=1, max_size=1)
    await store.setup()
    try:
        assert (await store.vector_stamp("u3", MODEL)).removals == 0
        assert (await store.vector_stamp("u1", MODEL)).removals == after["u1"]
        # the next deletion of one of the user's vectors moves the stamp on again
        await _vectors(conn, "u1", 2)
        await conn.execute("DELETE FROM entries WHERE user_id = 'u1' AND seq = 1")
        assert (await store.vector_stamp("u1", MODEL)).removals > after["u1"]
        assert (await store.vector_stamp("u3", MODEL)).removals == 0
    finally:
        await store.aclose()


async def test_a_statement_deleting_no_vector_writes_no_removals(v7):
    conn, _ = v7
    await apply_migrations(conn)
    await _vectors(conn, "u1", 3)
    await conn.execute("DELETE FROM entries WHERE user_id = 'nobody'")
    await conn.execute("DELETE FROM entry_vectors WHERE user_id = 'u1' AND model = 'other'")
    assert await _removals(conn) == {}


async def test_the_upgrade_drops_the_rows_of_users_with_no_vectors_left(v7):
    conn, schema = v7
    await apply_migrations(conn, target=8)
    for user_id in ("gone", "kept"):
        await _vectors(conn, user_id, 3)
    # version 8 kept the removals of a user erased: 'gone' has no vectors, its row stays
    await conn.execute("DELETE FROM entries WHERE user_id = 'gone'")
    await conn.execute("DELETE FROM entries WHERE user_id = 'kept' AND seq = 1")
    before = await _removals(conn)
    assert set(before) == {"gone", "kept"}
    assert await apply_migrations(conn) == [9]
    assert await _removals(conn) == {"kept": before["kept"]}
    store = PostgresStore(PG_URL, schema=schema, min_size=1, max_size=1)
    await store.setup()
    try:
        assert (await store.vector_stamp("gone", MODEL)).removals > max(before.values())
        assert (await store.vector_stamp("kept", MODEL)).removals == before["kept"]
    finally:
        await store.aclose()


# ------------------------------------------------ one writer of a user's vectors


async def _queued(store: PostgresStore, user_id: str, n: int) -> list[PendingEntry]:
    for i in range(n):
        entry = MemoryEntry(
            id=new_id(), role="user", content=f"turn {i}", timestamp=datetime.now(UTC)
        )
        await store.append_entry(
            entry.model_copy(update={"session_id": f"{user_id}-s", "user_id": user_id})
        )
    return [p for p in await store.pending_vectors(1000) if p.user_id == user_id]


async def _waiting(conn: asyncpg.Connection, user_id: str) -> bool:
    """Whether a backend waits for the vector writer lock of ``user_id``."""
    return bool(
        await conn.fetchval(
            "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' "
            "AND NOT granted AND classid::bigint = $1 "
            "AND objid::bigint = (hashtext($2)::bigint & 4294967295))",
            VECTOR_WRITER_LOCK,
            user_id,
        )
    )


async def test_a_users_vector_writes_wait_for_another_writer_of_that_user_until_commit(
    request: pytest.FixtureRequest,
):
    store = await pg_store(request.node.nodeid)
    await store.setup()
    user, other = f"u-{new_id()}", f"w-{new_id()}"  # the lock is the database's, not the schema's
    holder = await asyncpg.connect(PG_URL, server_settings={"search_path": store.schema})
    watcher = await asyncpg.connect(PG_URL)
    try:
        first, *rest = await _queued(store, user, 3)
        theirs = await _queued(store, other, 2)
        blob = b"\x00" * 8
        tx = holder.transaction()
        await tx.start()
        # another indexer's transaction: the user's lock, then its row
        await holder.execute(
            "SELECT pg_advisory_xact_lock($1, hashtext($2))", VECTOR_WRITER_LOCK, user
        )
        held_id = await holder.fetchval(
            "INSERT INTO entry_vectors (session_id, seq, user_id, model, vector) "
            "VALUES ($1, $2, $3, $4, $5) RETURNING id",
            first.session_id,
            first.seq,
            user,
            MODEL,
            blob,
        )
        # another user's vectors do not wait
        assert (
            await asyncio.wait_for(store.put_vectors(MODEL, [(p, blob) for p in theirs]), 10) == 2
        )
        writer = asyncio.create_task(store.put_vectors(MODEL, [(p, blob) for p in rest]))
        for _ in range(500):
            if await _waiting(watcher, user):
                break
            await asyncio.sleep(0.01)
        assert await _waiting(watcher, user)
        assert not writer.done()
        await tx.commit()
        assert await asyncio.wait_for(writer, 10) == 2
        ids = await holder.fetch(
            "SELECT id FROM entry_vectors WHERE user_id = $1 AND id <> $2", user, held_id
        )
        # numbered after the row committed first: a reader of rows after the
        # highest number it saw misses none
        assert len(ids) == 2 and all(r[0] > held_id for r in ids)
    finally:
        await holder.close()
        await watcher.close()
        await store.aclose()
