"""PostgreSQL store: the long-term and episodic layers (``postgresql://...``).

:class:`PostgresStore` opens the pool and applies the migrations; each concern
is a mixin beside it: appends (:mod:`.writes`: one statement, compare-and-set
on the session row), reads and edits of a session's timeline
(:mod:`.timeline`), settings, facts and summaries (:mod:`.user_data`),
deletion, sweep, export and audit (:mod:`.privacy`), keyword search
(:mod:`.search`), items (:mod:`.items`), the PHI vault (:mod:`.vault`) and
vectors (:mod:`.vectors`).
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections import OrderedDict
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import asyncpg

from ...errors import ConfigurationError, StoreUnavailableError
from .connection import UNAVAILABLE, Lease, keep_session, not_answering, refused
from .items import PostgresItems
from .migrations import SCHEMA_VERSION, apply_migrations, schema_version
from .privacy import PostgresPrivacy
from .search import PostgresSearch
from .timeline import PostgresTimeline
from .user_data import PostgresUserData
from .vault import PostgresVault
from .vectors import PostgresVectors
from .writes import CachedState, PostgresWrites

__all__ = ["PostgresStore"]

log = logging.getLogger("unimem.stores.postgres")

#: Seconds :meth:`PostgresStore.aclose` waits for connections in use.
CLOSE_TIMEOUT = 10.0

_SCHEMA_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")


class PostgresStore(
    PostgresWrites,
    PostgresTimeline,
    PostgresUserData,
    PostgresPrivacy,
    PostgresSearch,
    PostgresItems,
    PostgresVault,
    PostgresVectors,
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
        self._states: OrderedDict[str, CachedState] = OrderedDict()
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
