"""PostgreSQL-specific behaviour: migrations and the upgrade path, several
writers on one session, idempotent retries, error translation, the spec's face."""

from __future__ import annotations

import asyncio
import sys
import textwrap
from datetime import UTC, datetime, timedelta

import asyncpg
import pytest

from backends import PG_URL, drop_schema, fresh_name, pg_store
from unimem import MemoryEntry, SchemaError, StoreUnavailableError, UnifiedMemoryService
from unimem.ids import new_id
from unimem.models import Fact
from unimem.stores.postgres.migrations import MIGRATIONS, SCHEMA_VERSION, apply_migrations
from unimem.stores.postgres.store import PostgresStore
from unimem.stores.spec_stores import PostgresMemoryStore

pytestmark = pytest.mark.postgres


def entry(content: str, session_id: str = "s1", user_id: str = "u1", **kw: object) -> MemoryEntry:
    return MemoryEntry(
        id=new_id(),
        role="user",
        content=content,
        session_id=session_id,
        user_id=user_id,
        timestamp=datetime.now(UTC),
        **kw,
    )


async def test_setup_records_every_migration_once(request: pytest.FixtureRequest):
    store = await pg_store(request.node.nodeid)
    await store.setup()
    try:
        assert await store.schema_version() == SCHEMA_VERSION
        assert await store.migrate() == []
        async with store._conn() as conn:
            rows = await conn.fetch("SELECT version FROM unimem_migrations ORDER BY version")
        assert [r[0] for r in rows] == [v for v, _ in MIGRATIONS]
    finally:
        await store.aclose()


@pytest.mark.parametrize("start", [v for v, _ in MIGRATIONS[:-1]])
async def test_upgrade_from_each_earlier_version_keeps_data(
    request: pytest.FixtureRequest, start: int
):
    schema = fresh_name(request.node.nodeid, "t")
    conn = await asyncpg.connect(PG_URL)
    try:
        await conn.execute(f'CREATE SCHEMA "{schema}"')
        await conn.execute(f'SET search_path = "{schema}"')
        assert await apply_migrations(conn, target=start) == list(range(1, start + 1))
        # a session written by that version (the core tables exist since version 1)
        first = entry("before the upgrade").model_copy(update={"seq": 1})
        async with UnifiedMemoryService() as scratch:  # plan the state with the same rules
            state = await scratch.store.append_entry(first.model_copy(update={"seq": None}))
        await conn.execute(
            "INSERT INTO sessions (session_id, user_id, version, last_active_at, data) "
            "VALUES ($1, $2, 1, $3, $4::json)",
            "s1",
            "u1",
            first.timestamp,
            state.session.model_dump_json() if state.session else "",
        )
        await conn.execute(
            "INSERT INTO entries (session_id, seq, id, user_id, ts, data) "
            "VALUES ('s1', 1, $1, 'u1', $2, $3::json)",
            first.id,
            first.timestamp,
            state.entry.model_dump_json(),
        )
    finally:
        await conn.close()
    try:
        with pytest.raises(SchemaError, match="unimem migrate"):
            await PostgresStore(PG_URL, schema=schema, migrate=False).setup()
        upgraded = PostgresStore(PG_URL, schema=schema)  # migrate=True applies the rest
        await upgraded.setup()
        try:
            assert await upgraded.schema_version() == SCHEMA_VERSION
            [read] = await upgraded.get_entries("s1", limit=10)
            assert read.content == "before the upgrade"
            nxt = await upgraded.append_entry(entry("after"))
            assert nxt.entry.seq == 2
            fact = Fact(id=new_id(), user_id="u1", text="latex", created_at=first.timestamp)
            await upgraded.put_fact(fact)
            assert [f.text for f in await upgraded.list_facts("u1")] == ["latex"]
        finally:
            await upgraded.aclose()
    finally:
        await drop_schema(PG_URL, schema)


async def test_newer_schema_is_refused(request: pytest.FixtureRequest):
    store = await pg_store(request.node.nodeid)
    await store.setup()
    try:
        async with store._conn() as conn:
            await conn.execute("INSERT INTO unimem_migrations (version) VALUES (999)")
        with pytest.raises(SchemaError, match="newer"):
            await PostgresStore(PG_URL, schema=store.schema).setup()
    finally:
        await store.aclose()


async def test_unreachable_server_raises_store_unavailable():
    store = PostgresStore("postgresql://postgres:secret@127.0.0.1:1/test", timeout=2)
    with pytest.raises(StoreUnavailableError) as info:
        await store.setup()
    assert info.value.__cause__ is not None
    # what failed and what to do, in words: no exception class, no password
    assert str(info.value).startswith("PostgreSQL at 127.0.0.1:1 does not answer (")
    assert "start it, or fix the host and port" in str(info.value)
    assert "Error" not in str(info.value) and "secret" not in str(info.value)


async def test_retry_through_another_process_cache_is_idempotent(
    request: pytest.FixtureRequest,
):
    """Two stores (two processes' worth of caches) on one schema: the stale one falls
    back to the row lock, keeps seq gap-free and returns the stored entry on a retry."""
    a = await pg_store(request.node.nodeid)
    await a.setup()
    b = PostgresStore(PG_URL, schema=a.schema)
    await b.setup()
    try:
        first = entry("one")
        assert (await a.append_entry(first)).entry.seq == 1
        assert (await b.append_entry(entry("two"))).entry.seq == 2
        assert (await a.append_entry(entry("three"))).entry.seq == 3  # a's cache was stale
        again = await b.append_entry(first)  # b never saw it: a retry after a timeout
        assert (again.created, again.entry.seq, again.entry.content) == (False, 1, "one")
        history = await a.get_entries("s1", limit=10)
        assert [e.seq for e in history] == [1, 2, 3]
    finally:
        await b.aclose()
        await a.aclose()


WRITER = textwrap.dedent(
    """
    import asyncio, sys
    from unimem import MemoryEntry, UnifiedMemoryService
    from unimem.stores.postgres.store import PostgresStore

    async def main(dsn, schema, tag):
        async with UnifiedMemoryService(PostgresStore(dsn, schema=schema)) as memory:
            for i in range(40):
                await memory.add_entry(
                    session_id="shared",
                    entry=MemoryEntry(role="user", content=f"{tag}-{i}"),
                    user_id="u1",
                )

    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))
    """
)


@pytest.mark.slow
async def test_several_processes_share_one_session_gap_free(request: pytest.FixtureRequest):
    store = await pg_store(request.node.nodeid)
    await store.setup()  # the schema exists before the writers race
    try:
        procs = [
            await asyncio.create_subprocess_exec(
                sys.executable, "-c", WRITER, PG_URL, str(store.schema), f"p{n}"
            )
            for n in range(3)
        ]
        assert [await p.wait() for p in procs] == [0, 0, 0]
        history = await store.get_entries("shared", limit=1000)
        assert [e.seq for e in history] == list(range(1, 121))
        assert len({e.content for e in history}) == 120
        state = await store.get_session("shared")
        assert state is not None and state.message_count == 120
    finally:
        await store.aclose()


async def test_postgres_memory_store_face(request: pytest.FixtureRequest):
    store = await pg_store(request.node.nodeid)
    await store.setup()
    face = PostgresMemoryStore(store)
    try:
        yesterday = datetime.now(UTC) - timedelta(days=1)
        old = MemoryEntry(id=new_id(), role="user", content="old", timestamp=yesterday)
        new = MemoryEntry(id=new_id(), role="assistant", content="new")
        saved = await face.save_conversation("u1", "s1", [old, new])
        assert [e.seq for e in saved] == [1, 2]
        assert [e.seq for e in await face.save_conversation("u1", "s1", [old, new])] == [1, 2]
        counts = await face.delete_today("u1")
        assert counts["entries"] == 1
        assert [e.content for e in await store.get_entries("s1", limit=10)] == ["old"]
        assert (await face.delete_all("u1"))["entries"] == 1
        assert await store.get_session("s1") is None
    finally:
        await store.aclose()
