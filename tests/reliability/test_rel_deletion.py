"""``DELETE /v1/me/memory?scope=all`` while the same user's writes are in
flight: nothing acknowledged before the deletion was sent survives, what was
written after it is a consistent new timeline, and the stores themselves
(SQL rows, Redis keys, checked directly) hold nothing orphaned. Another user's
memory is untouched."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
from reliability_support import (
    KINDS,
    Stores,
    WriteLog,
    assert_timeline,
    history,
    post_entry,
    served,
    stores,
)

pytestmark = [pytest.mark.slow]

VICTIM_SESSIONS = ["v0", "v1", "v2", "v3"]
#: per-user tables (``audit`` is excluded: it records the deletion itself)
USER_TABLES = ("sessions", "entries", "events", "facts", "summaries")


@pytest.mark.parametrize("kind", KINDS)
async def test_delete_all_during_writes_leaves_nothing_before_it(kind: str, tmp_path: Path):
    async with stores(kind, tmp_path) as store, served(store, tmp_path) as server:
        bystander = WriteLog()
        async with server.client("bystander") as other:
            for _ in range(5):
                assert (await post_entry(other, "b0", bystander)).status_code == 201
        logs = [WriteLog() for _ in VICTIM_SESSIONS]
        stop = asyncio.Event()

        async def writer(session_id: str, log: WriteLog) -> None:
            async with server.client("victim") as client:
                while not stop.is_set():
                    resp = await post_entry(client, session_id, log)
                    assert resp.status_code == 201, (resp.status_code, resp.text[:300])

        tasks = [
            asyncio.create_task(writer(s, log))
            for s, log in zip(VICTIM_SESSIONS, logs, strict=True)
        ]
        try:
            for _ in range(400):  # load first: at least 12 acknowledged writes (20 s at most)
                if sum(len(log.acked) for log in logs) >= 12:
                    break
                await asyncio.sleep(0.05)
            acked_before = {eid for log in logs for eid in log.acked}
            async with server.client("victim") as client:
                resp = await client.delete("/v1/me/memory", params={"scope": "all"})
            assert resp.status_code == 200, (resp.status_code, resp.text[:300])
            await asyncio.sleep(0.5)  # writes go on after the deletion
        finally:
            stop.set()
            await asyncio.gather(*tasks)
        assert len(acked_before) >= 8, "too little load before the deletion"

        async with server.client("victim") as client:
            surviving: set[str] = set()
            for session_id in VICTIM_SESSIONS:
                resp = await client.get(
                    f"/v1/sessions/{session_id}/history", params={"max_messages": 10_000}
                )
                if resp.status_code == 404:
                    continue
                entries = resp.json()
                assert_timeline(entries)  # a session written after deletion starts afresh
                ids = {e["id"] for e in entries}
                assert not ids & acked_before, "an entry acknowledged before deletion survived"
                surviving |= ids
            # the stores hold exactly what the API shows: no orphaned rows or keys
            assert await _rows(store, "entries", "victim") == len(surviving)
            assert await _orphans(store) == 0
            if store.redis_url:
                assert await _cached_entry_ids(store, "victim") <= surviving

            # with nothing in flight, deleting everything leaves nothing at all
            resp = await client.delete("/v1/me/memory", params={"scope": "all"})
            assert resp.status_code == 200
            for table in USER_TABLES:
                assert await _rows(store, table, "victim") == 0, table
            if store.redis_url:
                assert await _user_keys(store, "victim", VICTIM_SESSIONS) == []

        async with server.client("bystander") as other:
            assert [e["id"] for e in await history(other, "b0")] == bystander.ack_order
        assert await _rows(store, "entries", "bystander") == 5
        if store.redis_url:
            assert await _user_keys(store, "bystander", ["b0"]) != []


async def _query(store: Stores, sql: str, *args: str) -> int:
    if store.kind == "sqlite":
        path = store.database_url.removeprefix("sqlite:///")
        with sqlite3.connect(path, timeout=10) as conn:
            row = conn.execute(sql.replace("$1", "?"), args).fetchone()
        return int(row[0])
    conn = await store.pg()
    try:
        return int(await conn.fetchval(sql, *args))
    finally:
        await conn.close()


async def _rows(store: Stores, table: str, user: str) -> int:
    return await _query(store, f"SELECT count(*) FROM {table} WHERE user_id = $1", user)


async def _orphans(store: Stores) -> int:
    """Entries and events whose session row is gone (or belongs to someone else)."""
    total = 0
    for table in ("entries", "events"):
        total += await _query(
            store,
            f"SELECT count(*) FROM {table} t WHERE NOT EXISTS (SELECT 1 FROM sessions s "
            "WHERE s.session_id = t.session_id AND s.user_id = t.user_id)",
        )
    return total


async def _user_keys(store: Stores, user: str, session_ids: list[str]) -> list[bytes]:
    """Every Redis key of ``user`` or of one of ``session_ids`` (by hash tag), via SCAN."""
    tags = [f"{{u:{user}}}".encode()] + [f"{{s:{sid}}}".encode() for sid in session_ids]
    client = store.redis()
    try:
        return [key async for key in client.scan_iter(count=1000) if any(t in key for t in tags)]
    finally:
        await client.aclose()


async def _cached_entry_ids(store: Stores, user: str) -> set[str]:
    """Entry ids in the cached windows and the short-term layer of ``user``'s sessions."""
    import orjson

    client = store.redis()
    found: set[str] = set()
    try:
        for key in await _user_keys(store, user, VICTIM_SESSIONS):
            if key.endswith(b":win"):
                found |= {orjson.loads(m)["id"] for m in await client.zrange(key, 0, -1)}
            elif key.endswith(b":recent:data"):
                found |= {orjson.loads(v)["id"] for v in (await client.hgetall(key)).values()}
        return found
    finally:
        await client.aclose()
