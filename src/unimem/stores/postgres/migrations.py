"""Versioned PostgreSQL schema of :class:`~unimem.stores.postgres.PostgresStore`.

Each migration runs once, in one transaction, under an advisory lock (so two
processes starting together do not race), and is recorded in
``unimem_migrations``. Never edit a released migration: append a new one.

Every per-user table carries ``user_id`` so that it can be distributed by user
(Citus ``create_distributed_table(..., 'user_id')``) and swept by time; see
``docs/scaling.md``. Entry and event payloads are stored as ``json`` (not
``jsonb``): ``json`` keeps the text unimem wrote byte for byte, key order
included, which is what the fast decoder in :mod:`unimem.models` relies on.
"""

from __future__ import annotations

import asyncpg

from ...errors import SchemaError
from .items import ITEMS_MIGRATION
from .search import SEARCH_MIGRATION
from .vault import VAULT_MIGRATION
from .vectors import (
    VECTOR_ERASURES_MIGRATION,
    VECTOR_MIGRATION,
    VECTOR_REMOVALS_BY_STATEMENT_MIGRATION,
    VECTOR_STAMP_MIGRATION,
)

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "apply_migrations", "schema_version"]

#: Ordered (version, SQL) pairs.
MIGRATIONS: list[tuple[int, str]] = [
    (
        1,
        """
        CREATE TABLE sessions (
            session_id text PRIMARY KEY,
            user_id text NOT NULL,
            version bigint NOT NULL,
            last_active_at timestamptz NOT NULL,
            data json NOT NULL
        );
        CREATE INDEX sessions_by_user ON sessions (user_id, last_active_at DESC, session_id DESC);
        CREATE TABLE entries (
            session_id text NOT NULL,
            seq bigint NOT NULL,
            id text NOT NULL,
            user_id text NOT NULL,
            ts timestamptz NOT NULL,
            data json NOT NULL,
            PRIMARY KEY (session_id, seq)
        );
        CREATE UNIQUE INDEX entries_by_id ON entries (session_id, id);
        CREATE INDEX entries_by_user_time ON entries (user_id, ts);
        CREATE TABLE events (
            session_id text NOT NULL,
            seq bigint NOT NULL,
            id text NOT NULL,
            user_id text NOT NULL,
            event_type text NOT NULL,
            ts timestamptz NOT NULL,
            data json NOT NULL,
            PRIMARY KEY (session_id, seq)
        );
        CREATE INDEX events_by_type ON events (session_id, event_type, seq);
        CREATE INDEX events_by_user_time ON events (user_id, ts);
        CREATE TABLE settings (
            user_id text PRIMARY KEY,
            data json NOT NULL
        );
        """,
    ),
    (
        2,
        """
        CREATE TABLE facts (
            user_id text NOT NULL,
            id text NOT NULL,
            created_at timestamptz NOT NULL,
            data json NOT NULL,
            PRIMARY KEY (user_id, id)
        );
        CREATE TABLE summaries (
            session_id text PRIMARY KEY,
            user_id text NOT NULL,
            created_at timestamptz NOT NULL,
            data json NOT NULL
        );
        CREATE INDEX summaries_by_user ON summaries (user_id);
        CREATE TABLE audit (
            pos bigserial PRIMARY KEY,
            user_id text NOT NULL,
            ts timestamptz NOT NULL,
            data json NOT NULL
        );
        CREATE INDEX audit_by_user ON audit (user_id, pos);
        -- the retention sweep walks old rows by time; BRIN stays tiny because
        -- rows arrive in time order
        CREATE INDEX entries_by_time ON entries USING brin (ts);
        CREATE INDEX events_by_time ON events USING brin (ts);
        """,
    ),
    (3, SEARCH_MIGRATION),  # the keyword index (unimem.stores.postgres.search)
    (4, ITEMS_MIGRATION),  # namespaced items (unimem.stores.postgres.items)
    (5, VAULT_MIGRATION),  # the PHI vault (unimem.stores.postgres.vault)
    (6, VECTOR_MIGRATION),  # entry vectors and their queue (unimem.stores.postgres.vectors)
    (7, VECTOR_STAMP_MIGRATION),  # vector row numbers, deletions per user (same module)
    (8, VECTOR_REMOVALS_BY_STATEMENT_MIGRATION),  # one removals write a statement
    (9, VECTOR_ERASURES_MIGRATION),  # an erased user's removals row goes
]

SCHEMA_VERSION = MIGRATIONS[-1][0]

_CREATE_TABLE = (
    "CREATE TABLE IF NOT EXISTS unimem_migrations "
    "(version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
)
#: Arbitrary constant: the advisory lock key that serializes migrations.
_LOCK_KEY = 0x756E696D656D


async def schema_version(conn: asyncpg.Connection) -> int:
    """The highest migration applied in the connection's schema (0 when none)."""
    exists = await conn.fetchval("SELECT to_regclass('unimem_migrations') IS NOT NULL")
    if not exists:
        return 0
    return int(await conn.fetchval("SELECT COALESCE(MAX(version), 0) FROM unimem_migrations"))


async def apply_migrations(conn: asyncpg.Connection, *, target: int | None = None) -> list[int]:
    """Apply pending migrations up to ``target`` (default: all); returns those applied.

    Raises:
        SchemaError: the database is at a newer version than this unimem knows.
    """
    goal = SCHEMA_VERSION if target is None else target
    applied: list[int] = []
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock($1)", _LOCK_KEY)
        await conn.execute(_CREATE_TABLE)
        current = await schema_version(conn)
        if current > SCHEMA_VERSION:
            raise SchemaError(
                f"the database has unimem schema version {current}, newer than this "
                f"unimem ({SCHEMA_VERSION}); upgrade unimem"
            )
        for version, sql in MIGRATIONS:
            if current < version <= goal:
                await conn.execute(sql)
                await conn.execute("INSERT INTO unimem_migrations (version) VALUES ($1)", version)
                applied.append(version)
    return applied
