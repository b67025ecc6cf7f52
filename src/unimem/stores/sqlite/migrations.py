"""The SQLite store's schema: its versions in order, each applied once and recorded."""

from __future__ import annotations

from .items import ITEMS_MIGRATION
from .search import SEARCH_MIGRATION, SHARD_MIGRATION
from .vault import VAULT_MIGRATION
from .vectors import VECTOR_ERASURES_MIGRATION, VECTOR_MIGRATION, VECTOR_STAMP_MIGRATION

__all__ = ["MIGRATIONS", "SCHEMA_VERSION"]

#: Ordered schema versions; each is applied once, in a transaction, and recorded.
#: A version is one SQL string split on ``;``, or a tuple of single statements
#: (for statements that contain ``;`` themselves, such as triggers).
MIGRATIONS: list[tuple[int, str | tuple[str, ...]]] = [
    (
        1,
        """
        CREATE TABLE sessions (
            session_id TEXT PRIMARY KEY,
            user_id TEXT NOT NULL,
            last_active_us INTEGER NOT NULL,
            data TEXT NOT NULL
        );
        CREATE INDEX sessions_by_user ON sessions (user_id, last_active_us);
        CREATE TABLE entries (
            session_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            id TEXT NOT NULL,
            user_id TEXT NOT NULL,
            ts_us INTEGER NOT NULL,
            data TEXT NOT NULL,
            PRIMARY KEY (session_id, seq)
        ) WITHOUT ROWID;
        CREATE UNIQUE INDEX entries_by_id ON entries (session_id, id);
        CREATE INDEX entries_by_user_time ON entries (user_id, ts_us);
        CREATE TABLE events (
            session_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            id TEXT NOT NULL,
            user_id TEXT NOT NULL,
            event_type TEXT NOT NULL,
            ts_us INTEGER NOT NULL,
            data TEXT NOT NULL,
            PRIMARY KEY (session_id, seq)
        ) WITHOUT ROWID;
        CREATE INDEX events_by_type ON events (session_id, event_type, seq);
        CREATE INDEX events_by_user_time ON events (user_id, ts_us);
        CREATE TABLE settings (
            user_id TEXT PRIMARY KEY,
            data TEXT NOT NULL
        );
        """,
    ),
    (
        2,
        (
            # queryable retention for the sweep; backfilled from the JSON settings
            "ALTER TABLE settings ADD COLUMN retention_days INTEGER",
            "UPDATE settings SET retention_days = json_extract(data, '$.retention_days')",
            "CREATE INDEX sessions_by_time ON sessions (last_active_us)",
            "CREATE INDEX entries_by_time ON entries (ts_us)",
            "CREATE INDEX events_by_time ON events (ts_us)",
            """CREATE TABLE facts (
                id TEXT PRIMARY KEY,
                user_id TEXT NOT NULL,
                created_us INTEGER NOT NULL,
                data TEXT NOT NULL
            )""",
            "CREATE INDEX facts_by_user ON facts (user_id, created_us)",
            """CREATE TABLE summaries (
                session_id TEXT PRIMARY KEY,
                user_id TEXT NOT NULL,
                created_us INTEGER NOT NULL,
                data TEXT NOT NULL
            )""",
            "CREATE INDEX summaries_by_user ON summaries (user_id)",
            """CREATE TABLE audit (
                pos INTEGER PRIMARY KEY AUTOINCREMENT,
                id TEXT NOT NULL UNIQUE,
                user_id TEXT NOT NULL,
                ts_us INTEGER NOT NULL,
                data TEXT NOT NULL
            )""",
            "CREATE INDEX audit_by_user ON audit (user_id, pos)",
            # append-only: unimem never changes or removes an audit record
            """CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit
            BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END""",
            """CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit
            BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END""",
        ),
    ),
    (3, SEARCH_MIGRATION),  # the keyword index (unimem.stores.sqlite.search)
    (4, ITEMS_MIGRATION),  # namespaced items (unimem.stores.sqlite.items)
    (5, VAULT_MIGRATION),  # the PHI vault (unimem.stores.sqlite.vault)
    (6, SHARD_MIGRATION),  # the keyword index split by owner (unimem.stores.sqlite.search)
    (7, VECTOR_MIGRATION),  # entry vectors and their queue (unimem.stores.sqlite.vectors)
    (8, VECTOR_STAMP_MIGRATION),  # deleted vectors per user (unimem.stores.sqlite.vectors)
    (9, VECTOR_ERASURES_MIGRATION),  # an erased user's removals row goes (same module)
]

SCHEMA_VERSION = MIGRATIONS[-1][0]
