"""PostgreSQL store: the long-term and episodic layers (``postgresql://...``).

One append is one transaction. The session row carries a ``version`` that
every state change increments; the entry, its events and the new session
state are written by one statement that only applies when the version is
still the one the plan was made from (compare-and-set). So:

* a process that wrote the session last plans from its cached state and
  commits in **one round trip** (autocommit: one statement, one transaction);
* a process whose cache is stale (another process wrote) sees the CAS miss and
  falls back to ``SELECT ... FOR UPDATE`` inside an explicit transaction,
  which waits for the other writer and plans from the committed state.

Either way ``seq`` is gap-free and ``(session_id, seq)`` is the primary key,
so two writers can never both claim a number. ``(session_id, id)`` is unique:
a retry with the same entry id returns the stored entry (``created=False``).
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections import OrderedDict
from collections.abc import Sequence
from datetime import datetime
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import asyncpg

from ...errors import ConfigurationError, StoreUnavailableError
from ...models import MemoryEntry, MemoryEvent, MemorySettings, SessionInfo
from ..contracts import AppendResult, ContextSnapshot, PhiGuard, SettingsGuard, VaultValue
from ..rows import entry_from_json, event_from_json, session_from_json
from ..timeline import check_write_guards, plan_close, plan_entry, plan_event
from .connection import (
    UNAVAILABLE,
    Lease,
    Turn,
    keep_session,
    not_answering,
    refused,
)
from .items import PostgresItems
from .migrations import SCHEMA_VERSION, apply_migrations, schema_version
from .search import PostgresSearch
from .sql import CONTEXT, STATE, WRITE_EXISTING, WRITE_NEW
from .user_data import LaterLayersMixin
from .vault import PostgresVault, vault_params
from .vectors import PostgresVectors

__all__ = ["PostgresStore"]

log = logging.getLogger("unimem.stores.postgres")

#: Seconds :meth:`PostgresStore.aclose` waits for connections in use.
CLOSE_TIMEOUT = 10.0

_SCHEMA_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")


class _CachedState:
    __slots__ = ("state", "version")

    def __init__(self, state: SessionInfo, version: int) -> None:
        self.state = state
        self.version = version


class PostgresStore(
    LaterLayersMixin, PostgresSearch, PostgresItems, PostgresVault, PostgresVectors
):
    """Durable store on PostgreSQL through an asyncpg pool.

    Args:
        dsn: ``postgresql://user@host:port/db``.
        schema: schema to create and use (``search_path``); default ``public``.
        migrate: apply pending migrations in :meth:`setup` (otherwise refuse an
            out-of-date schema with ``SchemaError``; run ``unimem migrate``).
        min_size, max_size: pool bounds.
        timeout: seconds to connect and per statement.
    """

    def __init__(
        self,
        dsn: str,
        *,
        schema: str | None = None,
        migrate: bool = True,
        min_size: int = 1,
        max_size: int = 10,
        timeout: float = 10.0,
        state_cache_size: int = 10_000,
    ) -> None:
        if schema is not None and not _SCHEMA_RE.fullmatch(schema):
            raise ConfigurationError(
                f"schema must be a plain identifier (letters, digits, _), got {schema!r}"
            )
        self.dsn = dsn
        self.schema = schema
        self._migrate = migrate
        self._min, self._max, self._timeout = min_size, max_size, timeout
        self._pool: asyncpg.Pool | None = None
        self._states: OrderedDict[str, _CachedState] = OrderedDict()
        self._state_cache_size = state_cache_size
        self._locks: dict[str, list[Any]] = {}
        #: The migration versions the last :meth:`setup` applied.
        self.applied_migrations: list[int] = []

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> PostgresStore:
        """A store on ``postgresql://...`` (or ``postgres://...``); a ``schema`` query
        parameter (``...?schema=unimem``) selects the schema to create and use."""
        parts = urlsplit(url)
        query = parse_qsl(parts.query, keep_blank_values=True)
        schema = [v for k, v in query if k == "schema"]
        if schema:
            kwargs.setdefault("schema", schema[-1])
            rest = urlencode([(k, v) for k, v in query if k != "schema"])
            url = urlunsplit(parts._replace(query=rest))
        return cls(url, **kwargs)

    # ------------------------------------------------------------------ life cycle

    async def setup(self) -> None:
        """Open the pool, create the schema and apply migrations. Idempotent.

        Raises:
            StoreUnavailableError: PostgreSQL cannot be reached.
            SchemaError: the schema is too old (``migrate=False``) or too new.
        """
        if self._pool is not None:
            return
        settings = {"search_path": self.schema} if self.schema else {}
        try:
            if self.schema:
                conn = await asyncpg.connect(self.dsn, timeout=self._timeout)
                try:
                    await conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{self.schema}"')
                finally:
                    await conn.close()
            pool = await asyncpg.create_pool(
                self.dsn,
                min_size=self._min,
                max_size=self._max,
                timeout=self._timeout,
                command_timeout=self._timeout,
                server_settings=settings,
                reset=keep_session,
            )
        except UNAVAILABLE as exc:
            raise not_answering(exc, self.dsn) from exc
        except asyncpg.PostgresError as exc:
            error = refused(exc)
            if error is None:
                raise
            raise error from exc
        self._pool = pool
        try:
            if self._migrate:
                self.applied_migrations = await self.migrate()
            else:
                await self._check_schema()
        except asyncpg.PostgresError as exc:
            await self.aclose()
            error = refused(exc)
            if error is None:
                raise
            raise error from exc
        except BaseException:
            await self.aclose()
            raise

    async def aclose(self) -> None:
        """Close the pool. Idempotent.

        Waits up to ``CLOSE_TIMEOUT`` seconds for connections in use to come
        back, then closes the rest abruptly (a shutdown never hangs on a stuck
        query; anything uncommitted on them rolls back).
        """
        pool, self._pool = self._pool, None
        self._states.clear()
        if pool is None:
            return
        try:
            await asyncio.wait_for(pool.close(), CLOSE_TIMEOUT)
        except TimeoutError:
            log.warning("PostgreSQL pool did not close in %.0f s; terminated", CLOSE_TIMEOUT)
            pool.terminate()

    async def migrate(self, *, target: int | None = None) -> list[int]:
        """Apply pending migrations (up to ``target``); returns the versions applied."""
        async with self._conn() as conn:
            return await apply_migrations(conn, target=target)

    async def schema_version(self) -> int:
        """The schema version of the database (0 when never migrated)."""
        async with self._conn() as conn:
            return await schema_version(conn)

    async def _check_schema(self) -> None:
        from ...errors import SchemaError

        version = await self.schema_version()
        if version != SCHEMA_VERSION:
            raise SchemaError(
                f"the database has unimem schema version {version}, this unimem needs "
                f"{SCHEMA_VERSION}; run `unimem migrate`"
            )

    def _conn(self) -> Lease:
        """``async with``: a connection from the pool, driver errors translated.

        Raises:
            StoreUnavailableError: the store is not open, or PostgreSQL cannot
                be reached (also for such errors raised inside the block).
        """
        if self._pool is None:
            raise StoreUnavailableError("the PostgreSQL store is not open; call setup() first")
        return Lease(self._pool)

    # ------------------------------------------------------------------ writes

    def _serial(self, session_id: str) -> Turn:
        """Appends of one session in this process run one at a time, so the
        cached state stays current and the CAS fast path nearly always hits."""
        return Turn(self._locks, session_id)

    def _remember(self, state: SessionInfo, version: int) -> None:
        self._states[state.session_id] = _CachedState(state, version)
        self._states.move_to_end(state.session_id)
        while len(self._states) > self._state_cache_size:
            self._states.popitem(last=False)

    def forget(self, session_ids: Sequence[str] = (), *, everything: bool = False) -> None:
        """Drop cached session states (after deletions)."""
        if everything:
            self._states.clear()
        for sid in session_ids:
            self._states.pop(sid, None)

    async def _write(
        self,
        conn: asyncpg.Connection,
        state: SessionInfo,
        expected: int,
        entry: MemoryEntry | None,
        events: list[MemoryEvent],
        guard: SettingsGuard | None = None,
        entry_json: str | None = None,
        phi_guard: PhiGuard | None = None,
        vault: Sequence[VaultValue] = (),
    ) -> bool:
        """One statement; whether it wrote (``False``: the session's version moved).

        Raises :class:`SettingsChanged` or :class:`TokensChanged` when a guard no
        longer matches (see :func:`check_write_guards`).
        """
        sql = WRITE_NEW if expected == 0 else WRITE_EXISTING
        if entry is not None and entry_json is None:
            entry_json = entry.model_dump_json()
        row = await conn.fetchrow(
            sql,
            state.session_id,
            state.user_id,
            expected + 1,
            state.last_active_at,
            state.model_dump_json(),
            expected,
            entry.seq if entry else None,
            entry.id if entry else None,
            entry.timestamp if entry else None,
            entry_json,
            [e.seq for e in events],
            [e.id for e in events],
            [e.event_type for e in events],
            [e.timestamp for e in events],
            [e.model_dump_json() for e in events],
            guard.text if guard is not None else None,
            guard is not None,
            phi_guard is not None,
            phi_guard.last_seq if phi_guard is not None else None,
            *vault_params(vault),
        )
        assert row is not None
        if row[0]:
            return True
        check_write_guards(guard, row[1], phi_guard, row[2])
        return False  # the session's version moved

    async def _write_planned(
        self,
        conn: asyncpg.Connection,
        cached: _CachedState,
        state: SessionInfo,
        entry: MemoryEntry | None,
        events: list[MemoryEvent],
        guard: SettingsGuard | None = None,
        entry_json: str | None = None,
        phi_guard: PhiGuard | None = None,
        vault: Sequence[VaultValue] = (),
    ) -> bool:
        """The write planned from the cached state (compare-and-set on its version).

        ``False`` when another writer got there first (the version moved, or a
        stale cache or a retried id collided on a unique key): the caller settles
        it on the locked path. Raises what :meth:`_write` raises for guards.
        """
        try:
            written = await self._write(
                conn, state, cached.version, entry, events, guard, entry_json, phi_guard, vault
            )
        except asyncpg.UniqueViolationError:
            return False
        if written:
            self._remember(state, cached.version + 1)
        return written

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
        async with self._serial(entry.session_id), self._conn() as conn:
            cached = self._states.get(entry.session_id)
            if cached is not None:
                state, stored, events = plan_entry(
                    cached.state, entry, trigger=trigger, events_after=events_after
                )
                text = stored.model_dump_json()
                if await self._write_planned(
                    conn, cached, state, stored, events, settings_guard, text, phi_guard, vault
                ):
                    return AppendResult(stored, events, True, state, text)
            return await self._append_locked(
                conn, entry, trigger, settings_guard, events_after, phi_guard, vault
            )

    async def _append_locked(
        self,
        conn: asyncpg.Connection,
        entry: MemoryEntry,
        trigger: str | None,
        guard: SettingsGuard | None = None,
        events_after: Sequence[MemoryEvent] = (),
        phi_guard: PhiGuard | None = None,
        vault: Sequence[VaultValue] = (),
    ) -> AppendResult:
        for _ in range(3):
            async with conn.transaction():
                row = await conn.fetchrow(
                    STATE + " FOR UPDATE OF s", entry.session_id, entry.id, entry.user_id
                )
                state = session_from_json(row[0]) if row else None
                version = row[1] if row else 0
                if row is not None and row[2] is not None:
                    assert state is not None
                    self._remember(state, version)
                    return AppendResult(entry_from_json(row[2]), [], created=False, session=state)
                new_state, stored, events = plan_entry(
                    state, entry, trigger=trigger, events_after=events_after
                )
                text = stored.model_dump_json()
                if await self._write(
                    conn, new_state, version, stored, events, guard, text, phi_guard, vault
                ):
                    self._remember(new_state, version + 1)
                    return AppendResult(stored, events, True, new_state, text)
            # a first write to a new session raced another process's: plan again
        raise StoreUnavailableError("session write kept conflicting; retry")

    async def _mutate(self, session_id: str, change: Any) -> tuple[SessionInfo, Any]:
        """Run ``change(state) -> (new_state, event | None, result)`` under the row lock."""
        async with self._serial(session_id), self._conn() as conn:
            for _ in range(3):
                async with conn.transaction():
                    row = await conn.fetchrow(STATE + " FOR UPDATE OF s", session_id, "", "")
                    state = session_from_json(row[0]) if row else None
                    version = row[1] if row else 0
                    new_state, event, result = change(state)
                    if new_state is state:
                        assert state is not None
                        return state, result
                    events = [event] if event is not None else []
                    if await self._write(conn, new_state, version, None, events):
                        self._remember(new_state, version + 1)
                        return new_state, result
        raise StoreUnavailableError("session write kept conflicting; retry")

    async def append_event(self, event: MemoryEvent) -> MemoryEvent:
        return (await self.append_event_with_state(event))[0]

    async def append_event_with_state(self, event: MemoryEvent) -> tuple[MemoryEvent, SessionInfo]:
        """:meth:`append_event`, also returning the session state it produced.

        Like an entry: one statement planned from the cached state (CAS on the
        session's version); the locked path when another process wrote since.
        """
        async with self._serial(event.session_id):
            cached = self._states.get(event.session_id)
            if cached is not None:
                new_state, stored = plan_event(cached.state, event)
                async with self._conn() as conn:
                    if await self._write_planned(conn, cached, new_state, None, [stored]):
                        return stored, new_state

        def change(state: SessionInfo | None) -> tuple[SessionInfo, MemoryEvent, MemoryEvent]:
            new_state, stored = plan_event(state, event)
            return new_state, stored, stored

        state, stored = await self._mutate(event.session_id, change)
        return stored, state

    async def close_session(self, session_id: str, *, now: datetime) -> SessionInfo:
        def change(state: SessionInfo | None) -> tuple[SessionInfo, None, None]:
            return plan_close(state, session_id, None, now), None, None

        state, _ = await self._mutate(session_id, change)
        return state

    async def put_settings(self, user_id: str, settings: MemorySettings) -> None:
        async with self._conn() as conn:
            await conn.execute(
                "INSERT INTO settings (user_id, data) VALUES ($1, $2::json) "
                "ON CONFLICT (user_id) DO UPDATE SET data = EXCLUDED.data",
                user_id,
                settings.model_dump_json(),
            )

    # ------------------------------------------------------------------ reads

    async def get_session(self, session_id: str) -> SessionInfo | None:
        async with self._conn() as conn:
            raw = await conn.fetchval("SELECT data FROM sessions WHERE session_id = $1", session_id)
        return session_from_json(raw) if raw is not None else None

    async def get_entries(
        self, session_id: str, *, limit: int, before_seq: int | None = None
    ) -> list[MemoryEntry]:
        if limit <= 0:
            return []
        async with self._conn() as conn:
            rows = await conn.fetch(
                "SELECT data FROM entries WHERE session_id = $1 AND seq < $2 "
                "ORDER BY seq DESC LIMIT $3",
                session_id,
                before_seq if before_seq is not None else 2**62,
                limit,
            )
        return [entry_from_json(r[0]) for r in reversed(rows)]

    async def load_history(
        self, session_id: str, *, limit: int, before_seq: int | None = None
    ) -> tuple[SessionInfo | None, list[MemoryEntry]]:
        async with self._conn() as conn:
            row = await conn.fetchrow(
                "SELECT s.data, ARRAY(SELECT e.data::text FROM entries e "
                "WHERE e.session_id = $1 AND e.seq < $2 ORDER BY e.seq DESC LIMIT $3) "
                "FROM sessions s WHERE s.session_id = $1",
                session_id,
                before_seq if before_seq is not None else 2**62,
                max(limit, 0),
            )
        if row is None:
            return None, []
        return session_from_json(row[0]), [entry_from_json(r) for r in reversed(row[1])]

    async def get_entry(self, session_id: str, entry_id: str) -> MemoryEntry | None:
        async with self._conn() as conn:
            raw = await conn.fetchval(
                "SELECT data FROM entries WHERE session_id = $1 AND id = $2", session_id, entry_id
            )
        return entry_from_json(raw) if raw is not None else None

    async def get_events(
        self, session_id: str, *, event_type: str | None = None, limit: int
    ) -> list[MemoryEvent]:
        if limit <= 0:
            return []
        async with self._conn() as conn:
            rows = await conn.fetch(
                "SELECT data FROM events WHERE session_id = $1 "
                "AND ($2::text IS NULL OR event_type = $2) ORDER BY seq DESC LIMIT $3",
                session_id,
                event_type,
                limit,
            )
        return [event_from_json(r[0]) for r in reversed(rows)]

    async def load_context(
        self, session_id: str, *, max_messages: int, event_limit: int
    ) -> ContextSnapshot:
        """Session, last messages, last switch events and settings in one query."""
        async with self._conn() as conn:
            row = await conn.fetchrow(CONTEXT, session_id, max_messages, event_limit)
        if row is None or row[0] is None:
            return ContextSnapshot(None, [], [], [], None)
        return ContextSnapshot(
            session=session_from_json(row[0]),
            entries=[entry_from_json(r) for r in reversed(row[1] or [])],
            language_events=[event_from_json(r) for r in reversed(row[2] or [])],
            mode_events=[event_from_json(r) for r in reversed(row[3] or [])],
            settings=MemorySettings.model_validate_json(row[4]) if row[4] else None,
        )

    async def get_settings(self, user_id: str) -> MemorySettings | None:
        async with self._conn() as conn:
            raw = await conn.fetchval("SELECT data FROM settings WHERE user_id = $1", user_id)
        return MemorySettings.model_validate_json(raw) if raw is not None else None

    async def list_sessions(
        self, user_id: str, *, limit: int, offset: int = 0
    ) -> list[SessionInfo]:
        async with self._conn() as conn:
            rows = await conn.fetch(
                "SELECT data FROM sessions WHERE user_id = $1 "
                "ORDER BY last_active_at DESC, session_id DESC LIMIT $2 OFFSET $3",
                user_id,
                limit,
                offset,
            )
        return [session_from_json(r[0]) for r in rows]
