"""A user's vector stamp after a full erasure: no removals row names them, and
the stamp never comes back to one it had, so a process's matrix of that user
is read again whatever is stored after (every backend; SQLite's upgrade)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from backends import pg_store
from store_rows import holding
from unimem import MemoryEntry
from unimem.ids import new_id
from unimem.recall.hits import SearchFilters
from unimem.recall.vectors import to_bytes
from unimem.service.vector_cache import VectorCache
from unimem.stores import InMemoryStore, SQLiteStore
from unimem.stores.contracts import DurableStore
from unimem.stores.sqlite.migrations import MIGRATIONS
from unimem.stores.sqlite.search import register
from unimem.stores.vectors import VectorStamp, vector_snapshots_of, vector_store_of

MODEL = "test-model"


async def _fill(store: DurableStore, user: str, n: int, sessions: int = 4) -> None:
    rng = np.random.default_rng(len(user) + n)
    for i in range(n):
        entry = MemoryEntry(
            id=new_id(), role="user", content=f"turn {i}", timestamp=datetime.now(UTC)
        )
        await store.append_entry(
            entry.model_copy(update={"session_id": f"{user}-s{i % sessions}", "user_id": user})
        )
    vectors = vector_store_of(store)
    assert vectors is not None
    pending = await vectors.pending_vectors(10_000)
    await vectors.put_vectors(MODEL, [(p, to_bytes(rng.standard_normal(8))) for p in pending])


async def _stamp(store: DurableStore, user: str) -> VectorStamp:
    snapshots = vector_snapshots_of(store)
    assert snapshots is not None
    return await snapshots.vector_stamp(user, MODEL)


@pytest.fixture(params=["memory", "sqlite", "postgres"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[DurableStore]:
    made: DurableStore
    if request.param == "memory":
        made = InMemoryStore()
    elif request.param == "sqlite":
        made = SQLiteStore(tmp_path / "v.db")
    else:
        made = await pg_store(request.node.nodeid)
    await made.setup()
    yield made
    await made.aclose()


async def test_an_erased_users_matrix_is_read_again_whatever_is_stored_after(store):
    await _fill(store, "u", 12)
    await _fill(store, "w", 3)
    cache = VectorCache()
    query = np.ones(8, np.float32) / np.sqrt(8)
    await cache.search(store, "u", query, model=MODEL, filters=SearchFilters(), limit=3)
    await store.delete_user_data("u", scope="all")
    assert not await holding(store, "u")
    # the user comes back before this process searches again: fewer turns, same keys
    await _fill(store, "u", 2)
    await cache.search(store, "u", query, model=MODEL, filters=SearchFilters(), limit=3)
    [matrix] = [m for (user, _), m in cache._users.items() if user == "u"]
    assert sorted(matrix.keys) == [("u-s0", 1), ("u-s1", 1)]


async def test_a_users_stamp_never_comes_back_to_one_it_had(store):
    seen = [await _stamp(store, "u")]
    await _fill(store, "u", 6)
    seen.append(await _stamp(store, "u"))
    await store.delete_user_data("u", scope="session", session_ids=["u-s0"])
    seen.append(await _stamp(store, "u"))
    await store.delete_user_data("u", scope="all")
    seen.append(await _stamp(store, "u"))
    await _fill(store, "w", 2)
    await store.delete_user_data("w", scope="all")
    seen.append(await _stamp(store, "u"))  # another user's erasure may move it on
    for _ in range(2):
        await _fill(store, "u", 3, sessions=1)
        seen.append(await _stamp(store, "u"))
        await store.delete_user_data("u", scope="all")
        seen.append(await _stamp(store, "u"))
    assert len(set(seen)) == len(seen), seen
    assert not await holding(store, "u") and not await holding(store, "w")


async def test_sqlite_upgrade_drops_the_rows_of_users_with_no_vectors_left(tmp_path: Path):
    path = tmp_path / "v8.db"
    db = sqlite3.connect(path)
    register(db)
    db.execute("CREATE TABLE unimem_migrations (version INTEGER PRIMARY KEY, applied_at TEXT)")
    for version, sql in MIGRATIONS[:8]:
        statements = sql.split(";") if isinstance(sql, str) else sql
        for statement in filter(str.strip, statements):
            db.execute(statement)
        db.execute("INSERT INTO unimem_migrations (version) VALUES (?)", (version,))
    for seq, uid in enumerate(["gone", "gone", "gone", "kept", "kept"], 1):
        db.execute(
            "INSERT INTO entries (session_id, seq, id, user_id, ts_us, data) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (f"{uid}-s", seq, f"e{seq}", uid, seq, json.dumps({"content": f"t{seq}"})),
        )
        db.execute(
            "INSERT INTO entry_vectors (session_id, seq, user_id, model, vector) "
            "VALUES (?, ?, ?, ?, x'00000000')",
            (f"{uid}-s", seq, uid, MODEL),
        )
    # version 8 kept the count of a user erased: 'gone' has no vectors, its row stays
    db.execute("DELETE FROM entries WHERE user_id = 'gone'")
    db.execute("DELETE FROM entries WHERE user_id = 'kept' AND seq = 4")
    assert dict(db.execute("SELECT * FROM vector_removals")) == {"gone": 3, "kept": 1}
    db.commit()
    db.close()
    store = SQLiteStore(path)
    await store.setup()
    try:
        assert store.applied_migrations == [9]
        assert not await holding(store, "gone")
        assert await _stamp(store, "kept") == VectorStamp(5, 1)
        assert (await _stamp(store, "gone")).removals > 3
        assert (await _stamp(store, "never")).removals > 3
    finally:
        await store.aclose()
