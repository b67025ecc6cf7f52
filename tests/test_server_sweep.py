"""The server's periodic retention sweep and the locks that let one worker of
many run it (Redis ``SET NX PX``, PostgreSQL advisory lock, SQLite file lock),
against the real loopback Redis and PostgreSQL."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from conftest import unreachable
from server_support import asgi_client, create_app, settings
from unimem import MemoryEntry, UnifiedMemoryService
from unimem.server.sweeper import (
    FileLeaderLock,
    NoLock,
    PostgresLeaderLock,
    RedisIntervalLock,
    lock_for,
)

REDIS = "redis://127.0.0.1:6379/0"
POSTGRES = "postgresql://postgres@127.0.0.1:5432/test"


async def test_the_server_sweeps_expired_entries_periodically(tmp_path: Path) -> None:
    service = UnifiedMemoryService.from_url(f"sqlite:///{tmp_path / 'sweep.db'}")
    await service.setup()
    old = datetime.now(UTC) - timedelta(days=400)
    await service.add_entry(
        "s1", MemoryEntry(role="user", content="old", timestamp=old), user_id="u1"
    )
    await service.add_entry("s1", MemoryEntry(role="user", content="fresh"), user_id="u1")
    app = create_app(settings(tmp_path, sweep_interval=0.1), service=service)
    async with asgi_client(app):
        for _ in range(100):
            history = await service.get_history("s1", 10, user_id="u1")
            if len(history) == 1:
                break
            await asyncio.sleep(0.05)
    assert [e.content for e in history] == ["fresh"]
    [record] = await service.list_audit(user_id="*")
    assert record.action == "sweep"
    await service.aclose()


async def test_file_lock_lets_one_process_sweep(tmp_path: Path) -> None:
    first = FileLeaderLock(tmp_path / "db.sweep.lock")
    second = FileLeaderLock(tmp_path / "db.sweep.lock")
    assert await first.acquire()
    assert await first.acquire()  # the leader keeps it
    assert not await second.acquire()
    await first.aclose()  # the leader stopped: the next tick of another takes over
    assert await second.acquire()
    await second.aclose()


async def test_redis_lock_allows_one_sweep_per_interval() -> None:
    key = f"test-sweep:{uuid.uuid4().hex}"
    first = RedisIntervalLock(REDIS, interval=0.3, key=key)
    second = RedisIntervalLock(REDIS, interval=0.3, key=key)
    try:
        try:
            got = await first.acquire()
        except (OSError, RedisConnectionError) as exc:
            unreachable(f"Redis: {exc}")
        assert got
        assert not await second.acquire()
        await asyncio.sleep(0.35)  # the key expired with the interval
        assert await second.acquire()
    finally:
        await first.client.delete(key)
        await first.aclose()
        await second.aclose()


async def test_postgres_advisory_lock_has_one_holder() -> None:
    lock_id = int(uuid.uuid4().int % (2**62))
    first = PostgresLeaderLock(POSTGRES, lock_id)
    second = PostgresLeaderLock(POSTGRES, lock_id)
    try:
        try:
            got = await first.acquire()
        except OSError as exc:
            unreachable(f"PostgreSQL: {exc}")
        assert got
        assert await first.acquire()
        assert not await second.acquire()
        await first.aclose()  # the connection closes: PostgreSQL releases the lock
        assert await second.acquire()
    finally:
        await first.aclose()
        await second.aclose()


def test_lock_follows_the_configured_stores(tmp_path: Path) -> None:
    assert isinstance(lock_for(settings(tmp_path, redis_url=REDIS)), RedisIntervalLock)
    assert isinstance(lock_for(settings(tmp_path, database_url=POSTGRES)), PostgresLeaderLock)
    sqlite = lock_for(settings(tmp_path))
    assert isinstance(sqlite, FileLeaderLock)
    assert sqlite.path == tmp_path / "server.db.sweep.lock"
    assert isinstance(lock_for(settings(tmp_path, database_url="memory://")), NoLock)


def test_sweep_interval_setting() -> None:
    from unimem.errors import ConfigurationError
    from unimem.server.server_settings import ServerSettings

    assert ServerSettings.from_env({}).sweep_interval == 3600
    assert ServerSettings.from_env({"UNIMEM_SWEEP_INTERVAL": "60"}).sweep_interval == 60
    with pytest.raises(ConfigurationError, match="UNIMEM_SWEEP_INTERVAL"):
        ServerSettings.from_env({"UNIMEM_SWEEP_INTERVAL": "soon"})
    with pytest.raises(ConfigurationError, match="UNIMEM_SWEEP_INTERVAL"):
        ServerSettings.from_env({"UNIMEM_SWEEP_INTERVAL": "-1"})
