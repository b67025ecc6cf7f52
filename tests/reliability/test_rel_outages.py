"""Store outages under a live ``unimem serve`` (Redis + PostgreSQL).

Redis (a test-owned redis-server) is stopped, restarted empty and flushed while
clients write and read: every request still succeeds (from PostgreSQL, marked
degraded), no acknowledged write is lost, and the service recovers by itself.

PostgreSQL (a test-owned instance via initdb/pg_ctl) is stopped: writes answer
503 with ``Retry-After`` and leave nothing behind in Redis, the hot window
still answers, and the same write succeeds once when PostgreSQL returns.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from pathlib import Path
from typing import Any

import asyncpg
import pytest
import redis.asyncio as aioredis
from reliability_support import (
    Stores,
    WriteLog,
    assert_timeline,
    history,
    post_entry,
    served,
    stores,
)

from backends import SERVERS, pick_ports
from conftest import unreachable
from unimem.ids import new_id

pytestmark = [pytest.mark.slow, pytest.mark.redis, pytest.mark.postgres]

CACHE_DEGRADATION = "session_cache_unavailable"


async def test_redis_stop_restart_and_flush_under_load(tmp_path: Path):
    async with stores("redis+postgres", tmp_path) as store, served(store, tmp_path) as server:
        assert store.redis_port is not None
        sessions = ["s0", "s1", "s2"]
        logs = [WriteLog() for _ in sessions]
        reads: list[tuple[float, bool]] = []  # (time, degraded)
        stop = asyncio.Event()

        async def writer(session_id: str, log: WriteLog) -> None:
            async with server.client() as client:
                while not stop.is_set():
                    resp = await post_entry(client, session_id, log)
                    assert resp.status_code == 201, (resp.status_code, resp.text[:300])

        async def reader(session_id: str) -> None:
            async with server.client() as client:
                while not stop.is_set():
                    resp = await client.get(f"/v1/sessions/{session_id}/context")
                    if resp.status_code == 404:  # nothing written yet
                        continue
                    assert resp.status_code == 200, (resp.status_code, resp.text[:300])
                    degraded = CACHE_DEGRADATION in resp.json()["degradations"]
                    reads.append((time.monotonic(), degraded))
                    await asyncio.sleep(0.01)

        tasks = [asyncio.create_task(writer(s, log)) for s, log in zip(sessions, logs, strict=True)]
        tasks += [asyncio.create_task(reader(s)) for s in sessions[:2]]
        try:
            await asyncio.sleep(0.7)
            await asyncio.to_thread(SERVERS.stop, store.redis_port)  # outage
            await asyncio.sleep(1.5)
            await asyncio.to_thread(SERVERS.start, store.redis_port)  # back, empty
            await asyncio.sleep(1.5)
            flusher = store.redis()
            await flusher.flushall()  # every cached window and short-term entry gone
            await flusher.aclose()
            await asyncio.sleep(1.0)
            await asyncio.to_thread(SERVERS.stop, store.redis_port)  # a second outage
            await asyncio.sleep(0.5)
            await asyncio.to_thread(SERVERS.start, store.redis_port)
            await asyncio.sleep(2.0)  # recovery needs no restart of unimem
        finally:
            stop.set()
            await asyncio.gather(*tasks)

        assert any(degraded for _, degraded in reads), "the outage never showed as degraded"
        assert sum(log.degraded for log in logs) > 0
        async with server.client() as client:
            for session_id, log in zip(sessions, logs, strict=True):
                # recovered: a fresh write and read are served normally again
                resp = await post_entry(client, session_id, log)
                assert resp.status_code == 201 and resp.json()["degradations"] == []
                ctx = (await client.get(f"/v1/sessions/{session_id}/context")).json()
                assert ctx["degradations"] == []
                entries = await history(client, session_id)
                assert_timeline(entries)
                assert {e["id"]: e["seq"] for e in entries} == log.acked
                # the window served from Redis is PostgreSQL's, not a stale one
                assert [m["id"] for m in ctx["messages"]] == [e["id"] for e in entries[-10:]]
        assert sum(len(log.acked) for log in logs) >= 30


def _own_postgres() -> Any:
    try:
        from test_postgres_outage import OwnPostgres  # the PostgreSQL-layer tests' helper
    except ImportError as exc:
        unreachable(f"OwnPostgres helper (tests/test_postgres_outage.py) not importable: {exc}")
    return OwnPostgres()


async def test_postgres_outage_answers_503_and_writes_nothing(tmp_path: Path):
    pg = _own_postgres()
    pg.start()
    [redis_port] = pick_ports(1)
    SERVERS.start(redis_port)
    schema = f"rel_{uuid.uuid4().hex[:12]}"
    store = Stores(
        "redis+postgres",
        f"{pg.url}?search_path={schema}",
        redis_url=f"redis://127.0.0.1:{redis_port}/0",
        redis_port=redis_port,
        schema=schema,
    )
    admin = await asyncpg.connect(pg.url)
    await admin.execute(f'CREATE SCHEMA "{schema}"')
    await admin.close()
    try:
        async with served(store, tmp_path) as server, server.client() as client:
            log = WriteLog()
            for _ in range(3):
                assert (await post_entry(client, "s1", log)).status_code == 201
            before = (await client.get("/v1/sessions/s1/context")).json()

            lost = new_id()
            pg.stop()
            try:
                resp = await post_entry(client, "s1", log, lost)
                assert resp.status_code == 503, (resp.status_code, resp.text[:300])
                assert int(resp.headers["Retry-After"]) >= 1
                assert resp.json()["code"]
                # the hot window still answers, unchanged
                ctx = await client.get("/v1/sessions/s1/context")
                assert ctx.status_code == 200
                assert ctx.json()["messages"] == before["messages"]
                # nothing half-written: the refused entry is nowhere in Redis
                assert not await _redis_mentions(store, lost)
            finally:
                pg.start()

            for _ in range(20):  # the client honours Retry-After (shortened here)
                resp = await post_entry(client, "s1", log, lost)
                if resp.status_code != 503:
                    break
                await asyncio.sleep(0.25)
            assert resp.status_code == 201 and resp.json()["seq"] == 4
            again = await post_entry(client, "s1", log, lost)  # the retry of the retry
            assert again.status_code == 201 and again.json()["seq"] == 4
            entries = await history(client, "s1")
            assert_timeline(entries)
            assert [e["id"] for e in entries] == [*log.ack_order]
            ctx = (await client.get("/v1/sessions/s1/context")).json()
            assert [m["id"] for m in ctx["messages"]] == [e["id"] for e in entries]
            assert (await client.get("/readyz")).status_code == 200
    finally:
        SERVERS.stop(redis_port)
        pg.remove()


async def _redis_mentions(store: Stores, entry_id: str) -> bool:
    client: aioredis.Redis = store.redis()
    try:
        async for key in client.scan_iter(count=1000):
            kind = await client.type(key)
            if kind == b"zset":
                members = await client.zrange(key, 0, -1)
            elif kind == b"hash":
                members = [*(await client.hgetall(key)).items()]
                members = [b"%s %s" % pair for pair in members]
            elif kind == b"list":
                members = await client.lrange(key, 0, -1)
            else:
                members = [await client.get(key) or b""]
            if any(entry_id.encode() in m for m in members):
                return True
        return False
    finally:
        await client.aclose()
