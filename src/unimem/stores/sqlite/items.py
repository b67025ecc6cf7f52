"""Namespaced items of the SQLite store (:class:`~unimem.stores.contracts.ItemStore`).

Schema version 4 adds ``items``: one row per (user, namespace, key), the
value as JSON text, times in microseconds. The primary key serves both the
point reads and a prefix's range (see :mod:`unimem.stores.item_rows`); the
retention sweep reads ``items_by_time``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING

import orjson

from ...models import StoredItem
from ..items import item_row, namespace_labels, namespace_text, prefix_range
from .times import time_of, us

__all__ = ["ITEMS_MIGRATION", "SQLiteItems"]

#: Schema version 4: namespaced items.
ITEMS_MIGRATION: tuple[str, ...] = (
    """CREATE TABLE items (
        user_id TEXT NOT NULL,
        namespace TEXT NOT NULL,
        key TEXT NOT NULL,
        created_us INTEGER NOT NULL,
        updated_us INTEGER NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (user_id, namespace, key)
    ) WITHOUT ROWID""",
    "CREATE INDEX items_by_time ON items (updated_us)",
)

_DAY_US = 86_400_000_000
_COLUMNS = "namespace, key, value, created_us, updated_us"


def _row(row: tuple[str, str, str, int, int]) -> StoredItem:
    ns, key, value, created, updated = row
    return item_row(ns, key, value, time_of(created), time_of(updated))


class SQLiteItems:
    """Mixin of :class:`~unimem.stores.sqlite.SQLiteStore`: namespaced items."""

    if TYPE_CHECKING:  # provided by SQLiteStore

        def _conn(self) -> sqlite3.Connection: ...

        def _tx(self) -> AbstractContextManager[sqlite3.Cursor]: ...

        def _scrub(self) -> None: ...

    async def put_item(self, user_id: str, item: StoredItem) -> StoredItem:
        ns = namespace_text(item.namespace)
        with self._tx() as cur:
            row = cur.execute(
                "INSERT INTO items (user_id, namespace, key, created_us, updated_us, value) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (user_id, namespace, key) DO UPDATE "
                "SET updated_us = excluded.updated_us, value = excluded.value "
                "RETURNING created_us",
                (
                    user_id,
                    ns,
                    item.key,
                    us(item.created_at),
                    us(item.updated_at),
                    orjson.dumps(item.value).decode(),
                ),
            ).fetchone()
        return item.model_copy(update={"created_at": time_of(row[0])})

    async def get_item(self, user_id: str, namespace: Sequence[str], key: str) -> StoredItem | None:
        row = (
            self._conn()
            .execute(
                f"SELECT {_COLUMNS} FROM items WHERE user_id = ? AND namespace = ? AND key = ?",
                (user_id, namespace_text(namespace), key),
            )
            .fetchone()
        )
        return _row(row) if row else None

    async def delete_item(self, user_id: str, namespace: Sequence[str], key: str) -> bool:
        with self._tx() as cur:
            cur.execute(
                "DELETE FROM items WHERE user_id = ? AND namespace = ? AND key = ?",
                (user_id, namespace_text(namespace), key),
            )
            found = cur.rowcount > 0
        if found:
            self._scrub()
        return found

    async def list_items(
        self, user_id: str, namespace_prefix: Sequence[str], *, limit: int
    ) -> list[StoredItem]:
        exact, low, high = prefix_range(namespace_prefix)
        where = "user_id = ?"
        args: list[object] = [user_id]
        if namespace_prefix:
            where += " AND (namespace = ? OR (namespace >= ? AND namespace < ?))"
            args += [exact, low, high]
        rows = (
            self._conn()
            .execute(
                f"SELECT {_COLUMNS} FROM items WHERE {where} ORDER BY updated_us DESC LIMIT ?",
                (*args, max(limit, 0)),
            )
            .fetchall()
        )
        return [_row(r) for r in rows]

    async def item_namespaces(self, user_id: str) -> list[list[str]]:
        rows = (
            self._conn()
            .execute(
                "SELECT DISTINCT namespace FROM items WHERE user_id = ? ORDER BY namespace",
                (user_id,),
            )
            .fetchall()
        )
        return [namespace_labels(r[0]) for r in rows]

    async def delete_user_items(self, user_id: str, *, since: datetime | None = None) -> int:
        with self._tx() as cur:
            if since is None:
                cur.execute("DELETE FROM items WHERE user_id = ?", (user_id,))
            else:
                cur.execute(
                    "DELETE FROM items WHERE user_id = ? AND updated_us >= ?",
                    (user_id, us(since)),
                )
            deleted = cur.rowcount
        if deleted:
            self._scrub()
        return deleted

    async def sweep_items(self, *, now: datetime, default_retention_days: int) -> int:
        with self._tx() as cur:
            cur.execute(
                "DELETE FROM items WHERE updated_us < ? - COALESCE((SELECT retention_days "
                "FROM settings s WHERE s.user_id = items.user_id), ?) * ?",
                (us(now), default_retention_days, _DAY_US),
            )
            deleted = cur.rowcount
        if deleted:
            self._scrub()
        return deleted

    async def export_items(self, user_id: str) -> list[StoredItem]:
        rows = (
            self._conn()
            .execute(
                f"SELECT {_COLUMNS} FROM items WHERE user_id = ? "
                "ORDER BY created_us, namespace, key",
                (user_id,),
            )
            .fetchall()
        )
        return [_row(r) for r in rows]
