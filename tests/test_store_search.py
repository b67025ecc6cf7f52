"""Backend specifics of the keyword index: migrations index what was stored
before them, the owner token, the tokenizer's terms in each index."""

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import asyncpg

from backends import PG_URL, drop_schema, fresh_name, pg_store
from unimem import MemoryEntry, UnifiedMemoryService
from unimem.recall import SearchFilters
from unimem.stores import SQLiteStore
from unimem.stores.postgres import PostgresStore
from unimem.stores.postgres.migrations import apply_migrations
from unimem.stores.sqlite.migrations import MIGRATIONS
from unimem.stores.sqlite.search import owner_token, register, shard_of


def _entry(content: str, **kw: str) -> MemoryEntry:
    """An entry as an earlier version stored it."""
    return MemoryEntry(
        id="e1", session_id="s1", user_id="u1", role="user", content=content,
        timestamp=datetime.now(UTC), seq=1, **kw,
    )  # fmt: skip


async def test_sqlite_migration_indexes_entries_stored_before_it(tmp_path: Path):
    path = tmp_path / "v2.db"
    stored = _entry("my lisinopril dose")
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE unimem_migrations (version INTEGER PRIMARY KEY, applied_at TEXT)")
    for version, sql in MIGRATIONS[:2]:
        statements = sql.split(";") if isinstance(sql, str) else sql
        for statement in filter(str.strip, statements):
            db.execute(statement)
        db.execute("INSERT INTO unimem_migrations (version) VALUES (?)", (version,))
    db.execute(
        "INSERT INTO entries (session_id, seq, id, user_id, ts_us, data) VALUES (?, ?, ?, ?, ?, ?)",
        ("s1", 1, "e1", "u1", 1, stored.model_dump_json()),
    )
    db.commit()
    db.close()
    store = SQLiteStore(path)
    await store.setup()
    try:
        [hit] = await store.keyword_search("u1", ["lisinopril"], filters=SearchFilters(), limit=5)
        assert hit.entry.content == "my lisinopril dose"
        assert (
            await store.keyword_search("u2", ["lisinopril"], filters=SearchFilters(), limit=5) == []
        )
    finally:
        await store.aclose()


def test_the_owner_token_is_one_fts_token_for_any_id():
    for uid in ("alice", "a-b@c.d", "x:y_z", "ü"):
        token = owner_token(uid)
        assert token.isalnum() and token.isascii() and len(token) == 25
    assert owner_token("a") != owner_token("b")


async def test_postgres_migration_indexes_entries_stored_before_it(tmp_path: Path):
    schema = fresh_name("pg-search-upgrade", "m")
    conn = await asyncpg.connect(PG_URL)
    try:
        await conn.execute(f'CREATE SCHEMA "{schema}"')
        await conn.execute(f'SET search_path TO "{schema}"')
        await apply_migrations(conn, target=2)
        stored = _entry("昨天头痛得厉害", language="zh")
        await conn.execute(
            "INSERT INTO entries (session_id, seq, id, user_id, ts, data) "
            "VALUES ('s1', 1, 'e1', 'u1', $1, $2::json)",
            stored.timestamp,
            stored.model_dump_json(),
        )
    finally:
        await conn.close()
    store = PostgresStore(PG_URL, schema=schema)
    await store.setup()
    try:
        [hit] = await store.keyword_search("u1", ["头痛"], filters=SearchFilters(), limit=5)
        assert hit.entry.id == "e1"
    finally:
        await store.aclose()
        await drop_schema(PG_URL, schema)


async def test_postgres_index_rows_follow_the_entries(tmp_path: Path):
    store = await pg_store("pg-search-rows")
    async with UnifiedMemoryService(store) as svc:
        await svc.add_entry("s1", {"role": "user", "content": "warfarin three mg"}, user_id="u1")
        await svc.add_entry("s2", {"role": "user", "content": "warfarin five mg"}, user_id="u1")
        async with store._conn() as conn:
            assert await conn.fetchval("SELECT count(*) FROM entry_search") == 2
        await svc.delete_user_memory("session", user_id="u1", session_id="s1")
        async with store._conn() as conn:
            assert await conn.fetchval("SELECT count(*) FROM entry_search") == 1
        await svc.delete_user_memory("all", user_id="u1")
        async with store._conn() as conn:
            assert await conn.fetchval("SELECT count(*) FROM entry_search") == 0


async def test_content_encrypted_at_rest_is_not_searched_and_never_recalled_sealed(
    tmp_path: Path,
):
    from unimem.privacy.crypto import generate_key, load_keyring

    service = UnifiedMemoryService(SQLiteStore(tmp_path / "e.db"))
    service.use_encryption(load_keyring({"UNIMEM_ENCRYPTION_KEYS": generate_key("k1")}))
    async with service:
        await service.add_entry("s1", {"role": "user", "content": "my insulin dose"}, user_id="u1")
        # the index holds the sealed text ("enc:v1:..."): even its own words find nothing
        for query in ("insulin", "enc v1"):
            assert await service.search_memory(query, user_id="u1") == []
        context = await service.build_llm_context("s2", "insulin enc v1", user_id="u1")
        assert "enc:" not in str(context)


def _users_in_two_shards() -> tuple[str, str]:
    """Two user ids whose terms live in different FTS5 tables."""
    first = "alice"
    other = next(f"bob{i}" for i in range(100) if shard_of(f"bob{i}") != shard_of(first))
    return first, other


async def test_sqlite_v6_moves_the_index_into_tables_by_owner(tmp_path: Path):
    """A file indexed by version 3 keeps every entry findable after version 6
    splits the index, each user's terms in their own table."""
    path = tmp_path / "v5.db"
    alice, bob = _users_in_two_shards()
    db = sqlite3.connect(path)
    register(db)
    db.execute("CREATE TABLE unimem_migrations (version INTEGER PRIMARY KEY, applied_at TEXT)")
    for version, sql in MIGRATIONS[:5]:
        statements = sql.split(";") if isinstance(sql, str) else sql
        for statement in filter(str.strip, statements):
            db.execute(statement)
        db.execute("INSERT INTO unimem_migrations (version) VALUES (?)", (version,))
    for seq, (uid, text) in enumerate([(alice, "my lisinopril dose"), (bob, "lisinopril too")], 1):
        entry = _entry(text).model_copy(update={"user_id": uid, "seq": seq, "id": f"e{seq}"})
        db.execute(
            "INSERT INTO entries (session_id, seq, id, user_id, ts_us, data) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            ("s1", seq, entry.id, uid, seq, entry.model_dump_json()),
        )
    db.commit()
    db.close()
    store = SQLiteStore(path)
    await store.setup()
    try:
        assert 6 in store.applied_migrations
        for uid, text in ((alice, "my lisinopril dose"), (bob, "lisinopril too")):
            [hit] = await store.keyword_search(
                uid, ["lisinopril"], filters=SearchFilters(), limit=5
            )
            assert hit.entry.content == text
            table = f"entry_terms_{shard_of(uid)}"
            [(n,)] = store._conn().execute(f"SELECT COUNT(*) FROM {table}").fetchall()
            assert n == 1, table
        tables = (
            store._conn()
            .execute("SELECT name FROM sqlite_master WHERE name = 'entry_terms'")
            .fetchall()
        )
        assert tables == []
    finally:
        await store.aclose()


async def test_sqlite_deletion_merges_only_the_deleting_users_index_table(tmp_path: Path):
    """Deleting a turn rewrites the index table of its owner, not the others',
    and leaves none of its terms in the file."""
    alice, bob = _users_in_two_shards()
    path = tmp_path / "shards.db"
    async with UnifiedMemoryService(SQLiteStore(path)) as service:
        await service.update_settings({"anonymize_phi": False}, user_id=alice)
        for i in range(40):
            await service.add_entry("a1", {"role": "user", "content": f"walk {i}"}, user_id=alice)
            await service.add_entry("b1", {"role": "user", "content": f"swim {i}"}, user_id=bob)
        secret = await service.add_entry(
            "a1", {"role": "user", "content": "quetzalcoatl"}, user_id=alice
        )
        store = service.store
        assert isinstance(store, SQLiteStore)
        bobs = f"entry_terms_{shard_of(bob)}_data"
        before = store._conn().execute(f"SELECT id, block FROM {bobs} ORDER BY id").fetchall()
        assert await service.delete_entry("a1", secret.id, user_id=alice)
        after = store._conn().execute(f"SELECT id, block FROM {bobs} ORDER BY id").fetchall()
        assert after == before  # bob's table was not merged
        assert store._conn().execute("SELECT * FROM entry_terms_dirty").fetchall() == []
        assert await service.search_memory("quetzalcoatl", user_id=alice) == []
        assert len(await service.search_memory("walk", user_id=alice, k=50)) == 40
    assert _files_holding(tmp_path, "shards.db", b"quetzalcoatl") == []


def _files_holding(folder: Path, prefix: str, needle: bytes) -> list[str]:
    """Names of the database files (db, WAL, shm) whose bytes contain ``needle``."""
    files = [p for p in folder.iterdir() if p.name.startswith(prefix)]
    return [p.name for p in files if needle in p.read_bytes()]
