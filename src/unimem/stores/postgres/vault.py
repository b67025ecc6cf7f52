"""The PHI vault of the PostgreSQL store (schema version 5): one row per token.

``vault`` holds each token's sealed value (``unimem.privacy.vault`` seals it;
the store never sees a value) by ``(user_id, session_id, token)``. An entry's
values are inserted by the entry's own write statement (:data:`VAULT_CTE`, a
part of the one statement of ``unimem.stores.postgres.sql``), so the entry and
its values commit together or not at all; every deletion of the store removes
them with the data they belong to (see
:class:`~unimem.stores.contracts.VaultStore`).
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any

import asyncpg

from ..contracts import VaultValue

__all__ = [
    "VAULT_CTE",
    "VAULT_MIGRATION",
    "PostgresVault",
    "delete_vault",
    "sweep_vault",
    "vault_params",
]

#: Schema version 5: the vault.
VAULT_MIGRATION = """
CREATE TABLE vault (
    user_id text NOT NULL,
    session_id text NOT NULL,
    token text NOT NULL,
    created_at timestamptz NOT NULL,
    sealed text NOT NULL,
    PRIMARY KEY (user_id, session_id, token)
);
CREATE INDEX vault_by_time ON vault USING brin (created_at);
"""

#: The write statement's part storing the entry's values ($20 tokens, $21
#: times, $22 sealed values; user $2, session $1), only when the session row
#: was written (``s``).
VAULT_CTE = """
, vt AS (
    INSERT INTO vault (user_id, session_id, token, created_at, sealed)
    SELECT $2, $1, u.token, u.ts, u.sealed
    FROM s, unnest($20::text[], $21::timestamptz[], $22::text[]) AS u(token, ts, sealed)
    ON CONFLICT DO NOTHING RETURNING 1
)"""

_INSERT = (
    "INSERT INTO vault (user_id, session_id, token, created_at, sealed) "
    "SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::text[]) "
    "ON CONFLICT DO NOTHING"
)


def vault_params(values: Sequence[VaultValue]) -> tuple[list[str], list[datetime], list[str]]:
    """The write statement's ``$20``-``$22`` for ``values``."""
    return (
        [v.token for v in values],
        [v.created_at for v in values],
        [v.sealed for v in values],
    )


async def delete_vault(
    conn: asyncpg.Connection,
    user_id: str,
    *,
    session_ids: Sequence[str] | None = None,
    since: datetime | None = None,
) -> None:
    """Delete the user's values: of ``session_ids``, created since ``since``, or
    (neither given) all of them, in the caller's transaction."""
    if session_ids is not None:
        await conn.execute(
            "DELETE FROM vault WHERE user_id = $1 AND session_id = ANY($2::text[])",
            user_id,
            list(session_ids),
        )
    elif since is not None:
        await conn.execute(
            "DELETE FROM vault WHERE user_id = $1 AND created_at >= $2", user_id, since
        )
    else:
        await conn.execute("DELETE FROM vault WHERE user_id = $1", user_id)


async def sweep_vault(conn: asyncpg.Connection, cutoff: str, *args: Any) -> None:
    """Delete values created before their owner's cutoff (``cutoff`` is the
    sweep's SQL expression, ``{t}`` the table)."""
    await conn.execute(f"DELETE FROM vault WHERE created_at < {cutoff.format(t='vault')}", *args)


class PostgresVault:
    """Mixin of :class:`~unimem.stores.postgres.PostgresStore`: the vault's own calls."""

    if TYPE_CHECKING:  # provided by PostgresStore

        def _conn(self) -> AbstractAsyncContextManager[asyncpg.Connection]: ...

    async def put_vault_values(self, values: Sequence[VaultValue]) -> None:
        if not values:
            return
        async with self._conn() as conn:
            await conn.execute(
                _INSERT,
                [v.user_id for v in values],
                [v.session_id for v in values],
                [v.token for v in values],
                [v.created_at for v in values],
                [v.sealed for v in values],
            )

    async def reseal_vault_values(self, values: Sequence[VaultValue]) -> int:
        if not values:
            return 0
        async with self._conn() as conn:
            rows = await conn.fetch(
                "UPDATE vault AS v SET sealed = n.sealed "
                "FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) "
                "AS n(user_id, session_id, token, sealed) "
                "WHERE v.user_id = n.user_id AND v.session_id = n.session_id "
                "AND v.token = n.token RETURNING v.token",
                [v.user_id for v in values],
                [v.session_id for v in values],
                [v.token for v in values],
                [v.sealed for v in values],
            )
        return len(rows)

    async def get_vault_values(self, user_id: str, session_ids: Sequence[str]) -> list[VaultValue]:
        wanted = sorted(set(session_ids))
        if not wanted:
            return []
        async with self._conn() as conn:
            rows = await conn.fetch(
                "SELECT session_id, token, created_at, sealed FROM vault "
                "WHERE user_id = $1 AND session_id = ANY($2::text[]) ORDER BY session_id, token",
                user_id,
                wanted,
            )
        return [
            VaultValue(
                user_id=user_id,
                session_id=r[0],
                token=r[1],
                sealed=r[3],
                created_at=r[2],
            )
            for r in rows
        ]
