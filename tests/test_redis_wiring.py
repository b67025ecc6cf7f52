"""Configuration by URL and environment: which layers a service gets."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from redis.asyncio.cluster import RedisCluster

from backends import PG_URL, REDIS_URL, drop_schema, ensure_cluster, pg_store, redis_client
from unimem import ConfigurationError, MemoryEntry, UnifiedMemoryService
from unimem.stores import SQLiteStore
from unimem.stores.layered import LayeredStore
from unimem.stores.postgres.store import PostgresStore
from unimem.stores.redis import redis_client_from_url

pytestmark = [pytest.mark.redis, pytest.mark.postgres]


async def test_from_url_builds_redis_in_front_of_postgres(request: pytest.FixtureRequest):
    await pg_store(request.node.nodeid)  # fails/skips when PostgreSQL is unreachable
    probe = await redis_client(REDIS_URL)
    await probe.aclose()
    schema = f"t_{uuid.uuid4().hex[:12]}"
    sid = f"wiring-{uuid.uuid4().hex}"
    memory = UnifiedMemoryService.from_url(session=REDIS_URL, archive=f"{PG_URL}?schema={schema}")
    assert isinstance(memory.store, LayeredStore)
    assert isinstance(memory.store.durable, PostgresStore)
    assert memory.store.durable.schema == schema
    try:
        async with memory:
            await memory.add_entry(sid, MemoryEntry(role="user", content="hi"), user_id="u-wiring")
            ctx = await memory.get_context(sid)
            assert [m.content for m in ctx.messages] == ["hi"] and ctx.degradations == []
            assert await memory.store.cache.client.exists(memory.store.cache.session_keys(sid).meta)
            await memory.delete_user_memory("all", user_id="u-wiring")
    finally:
        await drop_schema(PG_URL, schema)


def test_from_env_reads_the_urls_and_defaults_to_sqlite(tmp_path: Path):
    embedded = UnifiedMemoryService.from_env({"UNIMEM_DATA_DIR": str(tmp_path)})
    assert isinstance(embedded.store, SQLiteStore)
    assert Path("/" + embedded.store.path.lstrip("/")) == tmp_path / "unimem.db"
    layered = UnifiedMemoryService.from_env(
        {
            "UNIMEM_DATABASE_URL": PG_URL,
            "UNIMEM_REDIS_URL": REDIS_URL,
            "UNIMEM_HOT_WINDOW": "20",
        }
    )
    assert isinstance(layered.store, LayeredStore)
    assert layered.store.cache.hot_window == 20 == layered.config.hot_window
    assert UnifiedMemoryService.from_url().store.__class__.__name__ == "InMemoryStore"


def test_cluster_url_selects_redis_cluster():
    client = redis_client_from_url(ensure_cluster())
    assert isinstance(client, RedisCluster)


def test_bad_urls_are_configuration_errors():
    with pytest.raises(ConfigurationError, match="redis"):
        UnifiedMemoryService.from_url(session="memcached://x", archive="memory://")
    with pytest.raises(ConfigurationError, match="not both"):
        UnifiedMemoryService.from_url("memory://", archive="sqlite:///x.db")
    with pytest.raises(ConfigurationError, match="schema"):
        PostgresStore.from_url(f"{PG_URL}?schema=bad;name")
