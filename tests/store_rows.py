"""What a store still holds naming a user: the tables (SQLite, PostgreSQL) with a
row whose ``user_id`` is the user, or the in-process store's dicts keyed by them.
A deletion test compares it with what is documented to stay."""

from __future__ import annotations

import sqlite3
from typing import Any

import asyncpg

from unimem.privacy.encrypted_store import EncryptedStore
from unimem.stores import InMemoryStore, SQLiteStore
from unimem.stores.layered import LayeredStore
from unimem.stores.postgres import PostgresStore


def _names(key: object, user_id: str) -> bool:
    return key == user_id or (isinstance(key, tuple) and user_id in key)


async def holding(store: Any, user_id: str) -> set[str]:
    """The tables (or in-process dicts) with something keyed by ``user_id``."""
    while isinstance(store, EncryptedStore | LayeredStore):
        store = store.inner if isinstance(store, EncryptedStore) else store.durable
    if isinstance(store, InMemoryStore):  # its dicts, and those of the objects it holds
        found: set[str] = set()
        for owner in [store, *(v for v in vars(store).values() if hasattr(v, "__dict__"))]:
            for name, value in vars(owner).items():
                if isinstance(value, dict) and any(_names(k, user_id) for k in value):
                    found.add(name.lstrip("_"))
        return found
    if isinstance(store, SQLiteStore):
        conn = sqlite3.connect(store.path)
        try:
            tables = [
                t
                for (t,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
                if any(c[1] == "user_id" for c in conn.execute(f'PRAGMA table_info("{t}")'))
            ]
            return {
                t
                for t in tables
                if conn.execute(f'SELECT 1 FROM "{t}" WHERE user_id = ?', (user_id,)).fetchone()
            }
        finally:
            conn.close()
    assert isinstance(store, PostgresStore), type(store)
    pg = await asyncpg.connect(store.dsn, server_settings={"search_path": store.schema})
    try:
        tables = await pg.fetch(
            "SELECT table_name FROM information_schema.columns "
            "WHERE table_schema = $1 AND column_name = 'user_id'",
            store.schema,
        )
        return {
            t
            for (t,) in tables
            if await pg.fetchval(f'SELECT EXISTS (SELECT 1 FROM "{t}" WHERE user_id = $1)', user_id)
        }
    finally:
        await pg.close()
