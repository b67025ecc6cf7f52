"""The PHI vault of the SQLite store (schema version 5): one row per token.

``vault`` holds each token's sealed value (``unimem.privacy.vault`` seals it;
the store never sees a value) by ``(user_id, session_id, token)``. An entry's
values are inserted in the entry's own transaction (:func:`insert_values`),
and every deletion of the store removes them with the data they belong to
(see :class:`~unimem.stores.contracts.VaultStore`); ``secure_delete`` zeroes
the freed pages.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

from ..contracts import VaultValue
from .times import time_of, us

__all__ = [
    "VAULT_MIGRATION",
    "SQLiteVault",
    "delete_vault",
    "insert_values",
    "sweep_vault",
]

#: Schema version 5: the vault.
VAULT_MIGRATION: tuple[str, ...] = (
    "CREATE TABLE vault (user_id TEXT NOT NULL, session_id TEXT NOT NULL, "
    "token TEXT NOT NULL, created_us INTEGER NOT NULL, sealed TEXT NOT NULL, "
    "PRIMARY KEY (user_id, session_id, token)) WITHOUT ROWID",
    "CREATE INDEX vault_by_time ON vault (created_us)",
)


def insert_values(cur: sqlite3.Cursor, values: Sequence[VaultValue]) -> None:
    """Insert sealed values in the caller's transaction (first value wins)."""
    if values:
        cur.executemany(
            "INSERT INTO vault (user_id, session_id, token, created_us, sealed) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            [(v.user_id, v.session_id, v.token, us(v.created_at), v.sealed) for v in values],
        )


def delete_vault(
    cur: sqlite3.Cursor,
    user_id: str,
    *,
    session_ids: Sequence[str] | None = None,
    since_us: int | None = None,
) -> None:
    """Delete the user's values: of ``session_ids``, created since ``since_us``,
    or (neither given) all of them."""
    if session_ids is not None:
        cur.executemany(
            "DELETE FROM vault WHERE user_id = ? AND session_id = ?",
            [(user_id, sid) for sid in session_ids],
        )
    elif since_us is not None:
        cur.execute("DELETE FROM vault WHERE user_id = ? AND created_us >= ?", (user_id, since_us))
    else:
        cur.execute("DELETE FROM vault WHERE user_id = ?", (user_id,))


def sweep_vault(cur: sqlite3.Cursor, cutoff: str, args: tuple[int, int, int]) -> int:
    """Delete values created before their owner's cutoff (``cutoff`` is the
    sweep's SQL expression, ``{t}`` the table); how many were deleted."""
    cur.execute(f"DELETE FROM vault WHERE created_us < {cutoff.format(t='vault')}", args)
    return cur.rowcount


class SQLiteVault:
    """Mixin of :class:`~unimem.stores.sqlite.SQLiteStore`: the vault's own calls."""

    if TYPE_CHECKING:  # provided by SQLiteStore

        def _conn(self) -> sqlite3.Connection: ...

        def _tx(self) -> AbstractContextManager[sqlite3.Cursor]: ...

    async def put_vault_values(self, values: Sequence[VaultValue]) -> None:
        if values:
            with self._tx() as cur:
                insert_values(cur, values)

    async def reseal_vault_values(self, values: Sequence[VaultValue]) -> int:
        if not values:
            return 0
        with self._tx() as cur:
            replaced = 0
            for v in values:
                cur.execute(
                    "UPDATE vault SET sealed = ? "
                    "WHERE user_id = ? AND session_id = ? AND token = ?",
                    (v.sealed, v.user_id, v.session_id, v.token),
                )
                replaced += cur.rowcount
        return replaced

    async def get_vault_values(self, user_id: str, session_ids: Sequence[str]) -> list[VaultValue]:
        wanted = sorted(set(session_ids))
        if not wanted:
            return []
        db = self._conn()
        found: list[VaultValue] = []
        # in chunks: SQLite bounds the parameters of one statement
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = db.execute(
                "SELECT session_id, token, created_us, sealed FROM vault "
                f"WHERE user_id = ? AND session_id IN ({marks}) ORDER BY session_id, token",
                (user_id, *chunk),
            ).fetchall()
            found.extend(
                VaultValue(
                    user_id=user_id,
                    session_id=sid,
                    token=token,
                    sealed=sealed,
                    created_at=time_of(created),
                )
                for sid, token, created, sealed in rows
            )
        return found
