"""SQLite store: the embedded durable default (``sqlite:///path/unimem.db``).

Runs the sqlite3 module directly on the event loop thread: each call is a few
tens of microseconds in WAL mode, which costs less than handing it to a thread.
Several processes may share one file; ``BEGIN IMMEDIATE`` serializes their
appends so ``seq`` stays gap-free. With WAL and ``synchronous=NORMAL`` a commit
survives the process being killed (not a power cut; set ``synchronous=FULL``
through ``durable_fsync=True`` for that).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from ...errors import SchemaError, StoreUnavailableError
from ...models import MemoryEntry, MemoryEvent, MemorySettings, SessionInfo
from ..contracts import AppendResult, ContextSnapshot, PhiGuard, SettingsGuard, VaultValue
from ..rows import entry_from_json, event_from_json, session_from_json
from ..timeline import check_write_guards, plan_close, plan_entry, plan_event
from .items import ITEMS_MIGRATION, SQLiteItems
from .search import SEARCH_MIGRATION, SHARD_MIGRATION, SQLiteSearch, register
from .user_data import SQLiteLayers
from .vault import VAULT_MIGRATION, SQLiteVault, insert_values
from .vectors import VECTOR_MIGRATION, VECTOR_STAMP_MIGRATION, SQLiteVectors

__all__ = ["SQLiteStore"]

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
]

SCHEMA_VERSION = MIGRATIONS[-1][0]


def _us(value: datetime | None) -> int:
    assert value is not None
    return int(value.timestamp() * 1_000_000)


def path_from_url(url: str) -> str:
    """The file path of a ``sqlite:///relative`` or ``sqlite:////absolute`` URL."""
    rest = url.split("://", 1)[1] if "://" in url else url
    if rest.startswith("/"):
        rest = rest[1:]
    return rest or ":memory:"


class SQLiteStore(SQLiteLayers, SQLiteSearch, SQLiteItems, SQLiteVault, SQLiteVectors):
    """Durable embedded store in one SQLite file.

    The later layers (facts, summaries, deletion, sweep, export, audit) live in
    :class:`~unimem.stores.sqlite.user_data.SQLiteLayers`, keyword search in
    :class:`~unimem.stores.sqlite.search.SQLiteSearch`, namespaced items in
    :class:`~unimem.stores.sqlite.items.SQLiteItems`, the PHI vault in
    :class:`~unimem.stores.sqlite.vault.SQLiteVault`, entry vectors in
    :class:`~unimem.stores.sqlite.vectors.SQLiteVectors`.
    """

    def __init__(self, path: str | Path, *, migrate: bool = True, durable_fsync: bool = False):
        self.path = str(path)
        self._migrate = migrate
        self._fsync = durable_fsync
        self._db: sqlite3.Connection | None = None
        #: The migration versions the last :meth:`setup` applied.
        self.applied_migrations: list[int] = []

    @classmethod
    def from_url(cls, url: str, **kwargs: bool) -> SQLiteStore:
        """Open ``sqlite:///path.db`` (relative) or ``sqlite:////abs/path.db``."""
        return cls(path_from_url(url), **kwargs)

    # ------------------------------------------------------------------ life cycle

    async def setup(self) -> None:
        if self._db is not None:
            return
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA busy_timeout = 10000")
            db.execute("PRAGMA journal_mode = WAL")
            db.execute(f"PRAGMA synchronous = {'FULL' if self._fsync else 'NORMAL'}")
            # deleted rows are overwritten, not left in free pages (right to erasure)
            db.execute("PRAGMA secure_delete = ON")
            register(db)  # the functions the keyword index's triggers call
        except sqlite3.Error as exc:
            raise StoreUnavailableError(
                f"cannot open SQLite database {self.path!r}: {exc}"
            ) from exc
        self._db = db
        if self._migrate:
            self.applied_migrations = self.migrate()
        else:
            self._check_schema()

    async def aclose(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def schema_version(self) -> int:
        """The highest migration applied to the file (0 for an empty file)."""
        db = self._conn()
        db.execute(
            "CREATE TABLE IF NOT EXISTS unimem_migrations "
            "(version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP)"
        )
        row = db.execute("SELECT COALESCE(MAX(version), 0) FROM unimem_migrations").fetchone()
        return int(row[0])

    def migrate(self) -> list[int]:
        """Apply pending migrations; returns the versions applied."""
        applied: list[int] = []
        with self._tx() as cur:
            current = self.schema_version()
            if current > SCHEMA_VERSION:
                raise SchemaError(
                    f"{self.path!r} has schema version {current}, newer than this unimem "
                    f"({SCHEMA_VERSION}); upgrade unimem"
                )
            for version, sql in MIGRATIONS:
                if version <= current:
                    continue
                statements = sql.split(";") if isinstance(sql, str) else sql
                for statement in filter(str.strip, statements):
                    cur.execute(statement)
                cur.execute("INSERT INTO unimem_migrations (version) VALUES (?)", (version,))
                applied.append(version)
        return applied

    def _check_schema(self) -> None:
        version = self.schema_version()
        if version != SCHEMA_VERSION:
            raise SchemaError(
                f"{self.path!r} has schema version {version}, this unimem needs "
                f"{SCHEMA_VERSION}; run `unimem migrate`"
            )

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            raise StoreUnavailableError("the SQLite store is not open; call setup() first")
        return self._db

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Cursor]:
        db = self._conn()
        try:
            cur = db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise StoreUnavailableError(f"SQLite database is busy or unavailable: {exc}") from exc
        try:
            yield cur
        except BaseException:
            db.execute("ROLLBACK")
            raise
        else:
            try:
                db.execute("COMMIT")
            except sqlite3.Error as exc:
                db.execute("ROLLBACK")
                raise StoreUnavailableError(f"SQLite commit failed: {exc}") from exc

    # ------------------------------------------------------------------ writes

    @staticmethod
    def _state(cur: sqlite3.Cursor, session_id: str) -> SessionInfo | None:
        row = cur.execute(
            "SELECT data FROM sessions WHERE session_id = ?", (session_id,)
        ).fetchone()
        return session_from_json(row[0]) if row else None

    @staticmethod
    def _save_state(cur: sqlite3.Cursor, state: SessionInfo) -> None:
        cur.execute(
            "INSERT INTO sessions (session_id, user_id, last_active_us, data) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (session_id) DO UPDATE SET last_active_us = excluded.last_active_us, "
            "data = excluded.data",
            (state.session_id, state.user_id, _us(state.last_active_at), state.model_dump_json()),
        )

    @staticmethod
    def _insert_events(cur: sqlite3.Cursor, events: list[MemoryEvent]) -> None:
        if events:
            cur.executemany(
                "INSERT INTO events (session_id, seq, id, user_id, event_type, ts_us, data) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        e.session_id,
                        e.seq,
                        e.id,
                        e.user_id,
                        e.event_type,
                        _us(e.timestamp),
                        e.model_dump_json(),
                    )
                    for e in events
                ],
            )

    async def append_entry(
        self,
        entry: MemoryEntry,
        *,
        trigger: str | None = None,
        settings_guard: SettingsGuard | None = None,
        events_after: Sequence[MemoryEvent] = (),
        phi_guard: PhiGuard | None = None,
        vault: Sequence[VaultValue] = (),
    ) -> AppendResult:
        with self._tx() as cur:
            if settings_guard is not None or phi_guard is not None:
                current, last_phi = cur.execute(
                    "SELECT (SELECT data FROM settings WHERE user_id = ?), (SELECT max(seq) "
                    "FROM events WHERE session_id = ? AND event_type = 'phi_detected')",
                    (entry.user_id, entry.session_id),
                ).fetchone()
                check_write_guards(settings_guard, current, phi_guard, last_phi)
            state = self._state(cur, entry.session_id)
            if state is not None:
                row = cur.execute(
                    "SELECT data, user_id FROM entries WHERE session_id = ? AND id = ?",
                    (entry.session_id, entry.id),
                ).fetchone()
                if row is not None and row[1] == entry.user_id:
                    existing = entry_from_json(row[0])
                    return AppendResult(existing, [], created=False, session=state)
            state, stored, events = plan_entry(
                state, entry, trigger=trigger, events_after=events_after
            )
            cur.execute(
                "INSERT INTO entries (session_id, seq, id, user_id, ts_us, data) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (
                    stored.session_id,
                    stored.seq,
                    stored.id,
                    stored.user_id,
                    _us(stored.timestamp),
                    stored.model_dump_json(),
                ),
            )
            self._insert_events(cur, events)
            self._save_state(cur, state)
            insert_values(cur, vault)
        return AppendResult(stored, events, created=True, session=state)

    async def append_event(self, event: MemoryEvent) -> MemoryEvent:
        with self._tx() as cur:
            state, stored = plan_event(self._state(cur, event.session_id), event)
            self._insert_events(cur, [stored])
            self._save_state(cur, state)
        return stored

    async def close_session(self, session_id: str, *, now: datetime) -> SessionInfo:
        with self._tx() as cur:
            state = plan_close(self._state(cur, session_id), session_id, None, now)
            self._save_state(cur, state)
        return state

    async def put_settings(self, user_id: str, settings: MemorySettings) -> None:
        with self._tx() as cur:
            cur.execute(
                "INSERT INTO settings (user_id, data, retention_days) VALUES (?, ?, ?) "
                "ON CONFLICT (user_id) DO UPDATE SET data = excluded.data, "
                "retention_days = excluded.retention_days",
                (user_id, settings.model_dump_json(), settings.retention_days),
            )

    # ------------------------------------------------------------------ reads

    async def get_session(self, session_id: str) -> SessionInfo | None:
        return self._state(self._conn().cursor(), session_id)

    def _entries(self, session_id: str, limit: int, before_seq: int | None) -> list[MemoryEntry]:
        if limit <= 0:
            return []
        rows = (
            self._conn()
            .execute(
                "SELECT data FROM entries WHERE session_id = ? AND seq < ? "
                "ORDER BY seq DESC LIMIT ?",
                (session_id, before_seq if before_seq is not None else 2**62, limit),
            )
            .fetchall()
        )
        return [entry_from_json(r[0]) for r in reversed(rows)]

    async def get_entries(
        self, session_id: str, *, limit: int, before_seq: int | None = None
    ) -> list[MemoryEntry]:
        return self._entries(session_id, limit, before_seq)

    async def load_history(
        self, session_id: str, *, limit: int, before_seq: int | None = None
    ) -> tuple[SessionInfo | None, list[MemoryEntry]]:
        state = await self.get_session(session_id)
        return state, self._entries(session_id, limit, before_seq) if state is not None else []

    async def get_entry(self, session_id: str, entry_id: str) -> MemoryEntry | None:
        row = (
            self._conn()
            .execute(
                "SELECT data FROM entries WHERE session_id = ? AND id = ?", (session_id, entry_id)
            )
            .fetchone()
        )
        return entry_from_json(row[0]) if row else None

    def _events(self, session_id: str, event_type: str | None, limit: int) -> list[MemoryEvent]:
        if limit <= 0:
            return []
        if event_type is None:
            rows = (
                self._conn()
                .execute(
                    "SELECT data FROM events WHERE session_id = ? ORDER BY seq DESC LIMIT ?",
                    (session_id, limit),
                )
                .fetchall()
            )
        else:
            rows = (
                self._conn()
                .execute(
                    "SELECT data FROM events WHERE session_id = ? AND event_type = ? "
                    "ORDER BY seq DESC LIMIT ?",
                    (session_id, event_type, limit),
                )
                .fetchall()
            )
        return [event_from_json(r[0]) for r in reversed(rows)]

    async def get_events(
        self, session_id: str, *, event_type: str | None = None, limit: int
    ) -> list[MemoryEvent]:
        return self._events(session_id, event_type, limit)

    async def load_context(
        self, session_id: str, *, max_messages: int, event_limit: int
    ) -> ContextSnapshot:
        state = self._state(self._conn().cursor(), session_id)
        if state is None:
            return ContextSnapshot(None, [], [], [], None)
        return ContextSnapshot(
            session=state,
            entries=self._entries(session_id, max_messages, None),
            language_events=self._events(session_id, "language_switch", event_limit),
            mode_events=self._events(session_id, "mode_switch", event_limit),
            settings=await self.get_settings(state.user_id),
        )

    async def get_settings(self, user_id: str) -> MemorySettings | None:
        row = (
            self._conn()
            .execute("SELECT data FROM settings WHERE user_id = ?", (user_id,))
            .fetchone()
        )
        return MemorySettings.model_validate_json(row[0]) if row else None

    async def list_sessions(
        self, user_id: str, *, limit: int, offset: int = 0
    ) -> list[SessionInfo]:
        rows = (
            self._conn()
            .execute(
                "SELECT data FROM sessions WHERE user_id = ? "
                "ORDER BY last_active_us DESC, session_id DESC LIMIT ? OFFSET ?",
                (user_id, limit, offset),
            )
            .fetchall()
        )
        return [session_from_json(r[0]) for r in rows]
