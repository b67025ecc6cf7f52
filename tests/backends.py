"""Server-backed service factories for the conformance suite, and their helpers.

``tests/conftest.py`` imports :data:`SERVER_BACKENDS`. Every factory isolates
its test: a fresh PostgreSQL schema (dropped when the service closes) and a
fresh Redis key prefix (its keys deleted when the service closes). An
unreachable server fails under ``CI=true`` and skips otherwise.
"""

from __future__ import annotations

import contextlib
import os
import re
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path

import asyncpg

from unimem import UnifiedMemoryService
from unimem.stores.postgres import PostgresStore

PG_URL = os.environ.get("UNIMEM_TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")
REDIS_URL = os.environ.get("UNIMEM_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


def _unreachable(reason: str) -> None:
    from conftest import unreachable

    unreachable(reason)


def fresh_name(test_id: str, prefix: str) -> str:
    """A short unique name derived from the test id (safe as schema or key prefix)."""
    slug = re.sub(r"[^a-z0-9]+", "_", test_id.lower())[-24:].strip("_")
    return f"{prefix}_{slug}_{uuid.uuid4().hex[:10]}"


async def drop_schema(dsn: str, schema: str) -> None:
    """Drop a test schema and everything in it."""
    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    finally:
        await conn.close()


class ScratchPostgresStore(PostgresStore):
    """A PostgresStore in its own schema, dropped on close (tests only)."""

    async def aclose(self) -> None:
        await super().aclose()
        if self.schema:
            # the server may have gone away mid-test; the schema name is unique anyway
            with contextlib.suppress(OSError, asyncpg.PostgresError):
                await drop_schema(self.dsn, self.schema)


async def pg_store(test_id: str, *, dsn: str = PG_URL, **kwargs: object) -> ScratchPostgresStore:
    """A scratch PostgresStore for ``test_id``; fails/skips if PostgreSQL is unreachable."""
    try:
        conn = await asyncpg.connect(dsn, timeout=3)
        await conn.close()
    except (OSError, asyncpg.PostgresError) as exc:
        _unreachable(f"PostgreSQL at {dsn} is unreachable: {exc}")
    return ScratchPostgresStore(
        dsn, schema=fresh_name(test_id, "t"), min_size=1, max_size=4, **kwargs
    )


async def _postgres(tmp_path: Path, test_id: str) -> UnifiedMemoryService:
    return UnifiedMemoryService(await pg_store(test_id))


SERVER_BACKENDS: dict[str, Callable[[Path, str], Awaitable[UnifiedMemoryService]]] = {
    "postgres": _postgres,
}
