"""Namespaced items of the PostgreSQL store (:class:`~unimem.stores.contracts.ItemStore`).

Schema version 4 adds ``items``: one row per (user, namespace, key), the
value as ``json`` (kept as written). ``namespace`` is compared byte-wise
(``COLLATE "C"``), so a prefix is an index range (see
:mod:`unimem.stores.item_rows`) whatever the database's collation.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from datetime import datetime
from typing import TYPE_CHECKING

import orjson

from ...models import StoredItem
from ..items import item_row, namespace_labels, namespace_text, prefix_range

if TYPE_CHECKING:
    import asyncpg

__all__ = ["ITEMS_MIGRATION", "PostgresItems"]

#: Schema version 4: namespaced items.
ITEMS_MIGRATION = """
CREATE TABLE items (
    user_id text NOT NULL,
    namespace text COLLATE "C" NOT NULL,
    key text NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    value json NOT NULL,
    PRIMARY KEY (user_id, namespace, key)
);
CREATE INDEX items_by_time ON items (updated_at);
"""

_COLUMNS = "namespace, key, value::text, created_at, updated_at"


def _row(row: asyncpg.Record) -> StoredItem:
    return item_row(row[0], row[1], row[2], row[3], row[4])


def _count(status: str) -> int:
    """Rows affected, from a command tag such as ``DELETE 3``."""
    return int(status.rsplit(" ", 1)[-1])


class PostgresItems:
    """Mixin of :class:`~unimem.stores.postgres.PostgresStore`: namespaced items."""

    if TYPE_CHECKING:  # provided by PostgresStore

        def _conn(self) -> AbstractAsyncContextManager[asyncpg.Connection]: ...

    async def put_item(self, user_id: str, item: StoredItem) -> StoredItem:
        async with self._conn() as conn:
            created = await conn.fetchval(
                "INSERT INTO items (user_id, namespace, key, created_at, updated_at, value) "
                "VALUES ($1, $2, $3, $4, $5, $6::json) ON CONFLICT (user_id, namespace, key) "
                "DO UPDATE SET updated_at = EXCLUDED.updated_at, value = EXCLUDED.value "
                "RETURNING created_at",
                user_id,
                namespace_text(item.namespace),
                item.key,
                item.created_at,
                item.updated_at,
                orjson.dumps(item.value).decode(),
            )
        return item.model_copy(update={"created_at": created})

    async def get_item(self, user_id: str, namespace: Sequence[str], key: str) -> StoredItem | None:
        async with self._conn() as conn:
            row = await conn.fetchrow(
                f"SELECT {_COLUMNS} FROM items WHERE user_id = $1 AND namespace = $2 AND key = $3",
                user_id,
                namespace_text(namespace),
                key,
            )
        return _row(row) if row else None

    async def delete_item(self, user_id: str, namespace: Sequence[str], key: str) -> bool:
        async with self._conn() as conn:
            status = await conn.execute(
                "DELETE FROM items WHERE user_id = $1 AND namespace = $2 AND key = $3",
                user_id,
                namespace_text(namespace),
                key,
            )
        return _count(status) > 0

    async def list_items(
        self, user_id: str, namespace_prefix: Sequence[str], *, limit: int
    ) -> list[StoredItem]:
        exact, low, high = prefix_range(namespace_prefix)
        async with self._conn() as conn:
            if namespace_prefix:
                rows = await conn.fetch(
                    f"SELECT {_COLUMNS} FROM items WHERE user_id = $1 AND (namespace = $2 "
                    "OR (namespace >= $3 AND namespace < $4)) ORDER BY updated_at DESC LIMIT $5",
                    user_id,
                    exact,
                    low,
                    high,
                    max(limit, 0),
                )
            else:
                rows = await conn.fetch(
                    f"SELECT {_COLUMNS} FROM items WHERE user_id = $1 "
                    "ORDER BY updated_at DESC LIMIT $2",
                    user_id,
                    max(limit, 0),
                )
        return [_row(r) for r in rows]

    async def item_namespaces(self, user_id: str) -> list[list[str]]:
        async with self._conn() as conn:
            rows = await conn.fetch(
                "SELECT DISTINCT namespace FROM items WHERE user_id = $1 ORDER BY namespace",
                user_id,
            )
        return [namespace_labels(r[0]) for r in rows]

    async def delete_user_items(self, user_id: str, *, since: datetime | None = None) -> int:
        async with self._conn() as conn:
            if since is None:
                status = await conn.execute("DELETE FROM items WHERE user_id = $1", user_id)
            else:
                status = await conn.execute(
                    "DELETE FROM items WHERE user_id = $1 AND updated_at >= $2", user_id, since
                )
        return _count(status)

    async def sweep_items(self, *, now: datetime, default_retention_days: int) -> int:
        async with self._conn() as conn:
            status = await conn.execute(
                "DELETE FROM items WHERE updated_at < $1::timestamptz - make_interval(days => "
                "COALESCE((SELECT (s.data->>'retention_days')::int FROM settings s "
                "WHERE s.user_id = items.user_id), $2))",
                now,
                default_retention_days,
            )
        return _count(status)

    async def export_items(self, user_id: str) -> list[StoredItem]:
        async with self._conn() as conn:
            rows = await conn.fetch(
                f"SELECT {_COLUMNS} FROM items WHERE user_id = $1 "
                "ORDER BY created_at, namespace, key",
                user_id,
            )
        return [_row(r) for r in rows]
