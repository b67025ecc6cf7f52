"""Connections of the PostgreSQL store: leases from asyncpg's pool, one
writer per session in this process, and asyncpg's errors in unimem's tree."""

from __future__ import annotations

import asyncio
import logging
import socket
from types import TracebackType
from typing import Any, cast
from urllib.parse import urlsplit

import asyncpg

from ...errors import ConfigurationError, StoreUnavailableError

__all__ = [
    "UNAVAILABLE",
    "Lease",
    "Turn",
    "keep_session",
    "not_answering",
    "refused",
    "translate",
]

log = logging.getLogger("unimem.stores.postgres")

UNAVAILABLE: tuple[type[BaseException], ...] = (
    OSError,
    TimeoutError,
    asyncpg.PostgresConnectionError,
    asyncpg.InterfaceError,
    asyncpg.exceptions.OperatorInterventionError,
    asyncpg.exceptions.InsufficientResourcesError,
    # a server's termination notice read while the connection sat idle can
    # leave asyncpg's protocol state confused: the next statement then fails
    # with this (a connection of the store is never used by two at once)
    asyncpg.InternalClientError,
)


#: Errors of a URL or a role that cannot work (retrying will not help), and what to do.
_REFUSED: tuple[tuple[type[BaseException], str], ...] = (
    (
        asyncpg.exceptions.InvalidCatalogNameError,
        "create the database (`createdb NAME`) or fix the database name in the store URL",
    ),
    (
        asyncpg.exceptions.InvalidAuthorizationSpecificationError,
        "create the role (`createuser NAME`) or fix the user and password in the store URL",
    ),
    (
        asyncpg.exceptions.InvalidSchemaNameError,
        "create the schema the URL's search_path names (`CREATE SCHEMA name`), or name it "
        "with ?schema=NAME instead, which unimem creates",
    ),
    (
        asyncpg.exceptions.InsufficientPrivilegeError,
        "grant the role the right to create tables in the database, or use another role",
    ),
)


def refused(exc: BaseException) -> ConfigurationError | None:
    """The error saying what to do when PostgreSQL refuses the URL's database or role."""
    for kind, hint in _REFUSED:
        if isinstance(exc, kind):
            return ConfigurationError(f"PostgreSQL refused the store: {exc}; {hint}")
    return None


def _failure(exc: BaseException) -> str:
    """What went wrong connecting, in words (no exception class)."""
    if isinstance(exc, ConnectionRefusedError):
        return "the connection was refused"
    if isinstance(exc, TimeoutError):
        return "no answer in time"
    if isinstance(exc, socket.gaierror):
        return "the host name is not known"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror[:1].lower() + exc.strerror[1:]
    return "the connection failed"


def not_answering(exc: BaseException, dsn: str) -> StoreUnavailableError:
    """The error of a store that cannot connect when it opens, saying what to do."""
    try:
        parts = urlsplit(dsn)
        where = f" at {parts.hostname or 'localhost'}:{parts.port or 5432}"
    except ValueError:
        where = ""
    return StoreUnavailableError(
        f"PostgreSQL{where} does not answer ({_failure(exc)}); start it, or fix the host "
        "and port of the store URL (UNIMEM_DATABASE_URL or --database-url)"
    )


def translate(exc: BaseException) -> StoreUnavailableError:
    return StoreUnavailableError(
        f"PostgreSQL is unreachable ({type(exc).__name__}); nothing was written, retry later"
    )


async def keep_session(conn: asyncpg.Connection) -> None:
    """The pool's reset on release. asyncpg still rolls back an open transaction
    itself; its default reset also sends ``RESET ALL; UNLISTEN *; CLOSE ALL;
    pg_advisory_unlock_all()``, one more round trip per acquire, for state this
    store never leaves on a pooled connection (no ``SET``, ``LISTEN``, cursors
    or session-level advisory locks: the sweep's lock has its own connection)."""


class Lease:
    """``async with``: a connection of the pool for the block, released after it
    (see :meth:`PostgresStore._conn`). A plain class rather than a generator
    context manager (a generator, its frames and ``contextlib``'s wrapper on
    every statement, ~3 µs of the append's CPU): the block's connection
    comes from ``await pool.acquire()`` and goes back
    through ``pool.release`` (asyncpg's waiting, size bounds, broken-connection
    handling and shielded release, so a cancelled block never leaks it), and a
    driver error in the block or in the release is ``StoreUnavailableError``."""

    __slots__ = ("_connection", "_pool")

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool
        self._connection: Any = None

    async def __aenter__(self) -> asyncpg.Connection:
        try:
            self._connection = await self._pool.acquire()
        except UNAVAILABLE as exc:
            raise translate(exc) from exc
        return cast(asyncpg.Connection, self._connection)

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        connection, self._connection = self._connection, None
        try:
            await self._pool.release(connection)
        except UNAVAILABLE as error:
            if exc is not None and not isinstance(exc, Exception):
                # the block was cancelled (or its task is exiting): that goes on,
                # not a StoreUnavailableError (asyncpg has closed the connection)
                log.warning("connection release failed: %s", type(error).__name__)
                return
            raise translate(error) from error
        if isinstance(exc, UNAVAILABLE):
            raise translate(exc) from exc


class Turn:
    """``async with``: this process's turn to write a session (see
    :meth:`PostgresStore._serial`): one ``asyncio.Lock`` per session, kept in
    ``locks`` while anyone holds or waits for it."""

    __slots__ = ("_held", "_locks", "_session_id")

    def __init__(self, locks: dict[str, list[Any]], session_id: str) -> None:
        self._locks = locks
        self._session_id = session_id
        self._held: list[Any] = []

    async def __aenter__(self) -> None:
        held = self._locks.get(self._session_id)
        if held is None:
            held = self._locks[self._session_id] = [asyncio.Lock(), 0]
        held[1] += 1  # users, waiting or holding: the lock goes when none is left
        self._held = held
        try:
            await held[0].acquire()
        except BaseException:  # (cancelled while waiting)
            self._leave()
            raise

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        try:
            self._held[0].release()
        finally:
            self._leave()

    def _leave(self) -> None:
        held = self._held
        held[1] -= 1
        if held[1] == 0:
            del self._locks[self._session_id]
