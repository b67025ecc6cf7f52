"""SQLite store: the embedded durable default (``sqlite:///path/unimem.db``).

Runs the sqlite3 module directly on the event loop thread: each call is a few
tens of microseconds in WAL mode, which costs less than handing it to a thread.
Several processes may share one file; ``BEGIN IMMEDIATE`` serializes their
appends so ``seq`` stays gap-free. With WAL and ``synchronous=NORMAL`` a commit
survives the process being killed (not a power cut; set ``synchronous=FULL``
through ``durable_fsync=True`` for that).

:class:`SQLiteStore` opens the file and applies the migrations
(:mod:`.migrations`); each concern is a mixin beside it: appends
(:mod:`.writes`), reads and edits of a session's timeline (:mod:`.timeline`),
settings, facts and summaries (:mod:`.user_data`), deletion, sweep, export and
audit (:mod:`.privacy`), keyword search, items, the PHI vault and vectors.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ...errors import SchemaError, StoreUnavailableError
from .items import SQLiteItems
from .migrations import MIGRATIONS, SCHEMA_VERSION
from .privacy import SQLitePrivacy
from .search import SQLiteSearch, register
from .timeline import SQLiteTimeline
from .user_data import SQLiteUserData
from .vault import SQLiteVault
from .vectors import SQLiteVectors
from .writes import SQLiteWrites

__all__ = ["SQLiteStore"]


def path_from_url(url: str) -> str:
    """The file path of a ``sqlite:///relative`` or ``sqlite:////absolute`` URL."""
    rest = url.split("://", 1)[1] if "://" in url else url
    if rest.startswith("/"):
        rest = rest[1:]
    return rest or ":memory:"


class SQLiteStore(
    SQLiteWrites,
    SQLiteTimeline,
    SQLiteUserData,
    SQLitePrivacy,
    SQLiteSearch,
    SQLiteItems,
    SQLiteVault,
    SQLiteVectors,
):
    """Durable embedded store in one SQLite file.

    Appends live in :class:`~unimem.stores.sqlite.writes.SQLiteWrites`, reads
    and edits of the timeline in :class:`~unimem.stores.sqlite.timeline.SQLiteTimeline`,
    settings, facts and summaries in :class:`~unimem.stores.sqlite.user_data.SQLiteUserData`,
    deletion, sweep, export and audit in
    :class:`~unimem.stores.sqlite.privacy.SQLitePrivacy`, keyword search in
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
