"""Redis outages, on a test-owned Redis: the service keeps working from
PostgreSQL with a ``session_cache_unavailable`` degradation and recovers by
itself, and a cache that missed writes while unreachable is never served."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator

import pytest

from backends import SERVERS, ScratchLayeredStore, fresh_name, pg_store, pick_ports
from unimem import MemoryEntry, UnifiedMemoryService
from unimem.stores.layered import CACHE_DEGRADATION
from unimem.stores.redis import SessionCache, redis_client_from_url

pytestmark = [pytest.mark.redis, pytest.mark.postgres, pytest.mark.slow]

RETRY_AFTER = 0.2


def user(content: str) -> MemoryEntry:
    return MemoryEntry(role="user", content=content)


@pytest.fixture
async def own_redis() -> AsyncIterator[int]:
    [port] = pick_ports(1)
    SERVERS.start(port)
    try:
        yield port
    finally:
        SERVERS.stop(port)


@pytest.fixture
async def memory(
    request: pytest.FixtureRequest, own_redis: int
) -> AsyncIterator[UnifiedMemoryService]:
    client = redis_client_from_url(f"redis://127.0.0.1:{own_redis}/0", timeout=0.3)
    cache = SessionCache(client, prefix=fresh_name(request.node.nodeid, "t"))
    store = ScratchLayeredStore(await pg_store(request.node.nodeid), cache, retry_after=RETRY_AFTER)
    async with UnifiedMemoryService(store) as service:
        yield service


async def test_redis_down_then_back_empty(memory: UnifiedMemoryService, own_redis: int):
    for i in range(3):
        assert (await memory.add_entry("s1", user(f"m{i}"), user_id="u1")).degradations == []
    assert (await memory.get_context("s1")).degradations == []

    SERVERS.stop(own_redis)
    during = await memory.add_entry("s1", user("while down"), user_id="u1")
    assert during.seq == 4 and during.degradations == [CACHE_DEGRADATION]
    ctx = await memory.get_context("s1")
    assert ctx.degradations == [CACHE_DEGRADATION]
    assert [m.content for m in ctx.messages] == ["m0", "m1", "m2", "while down"]
    assert [e.seq for e in await memory.get_history("s1")] == [1, 2, 3, 4]

    SERVERS.start(own_redis)  # back, with nothing in it
    await asyncio.sleep(RETRY_AFTER * 1.5)
    after = await memory.add_entry("s1", user("after"), user_id="u1")
    assert after.seq == 5 and after.degradations == []
    ctx = await memory.get_context("s1")
    assert ctx.degradations == []
    assert [m.seq for m in ctx.messages] == [1, 2, 3, 4, 5]


async def test_cache_that_missed_writes_is_dropped_before_use(
    memory: UnifiedMemoryService, own_redis: int
):
    """Redis unreachable but keeping its data (a network partition, a stall):
    the writes it missed must not be hidden by its stale window afterwards."""
    for i in range(3):
        await memory.add_entry("s1", user(f"m{i}"), user_id="u1")
    await memory.get_context("s1")
    pid = SERVERS.procs[own_redis].pid
    os.kill(pid, signal.SIGSTOP)  # only the server this test started
    try:
        missed = await memory.add_entry("s1", user("missed by redis"), user_id="u1")
        assert missed.degradations == [CACHE_DEGRADATION]
    finally:
        os.kill(pid, signal.SIGCONT)
    await asyncio.sleep(RETRY_AFTER * 1.5)
    ctx = await memory.get_context("s1")
    assert ctx.degradations == []
    assert [m.content for m in ctx.messages] == ["m0", "m1", "m2", "missed by redis"]
    nxt = await memory.add_entry("s1", user("next"), user_id="u1")
    assert nxt.seq == 5
    assert [m.seq for m in (await memory.get_context("s1")).messages] == [1, 2, 3, 4, 5]
