"""delete_user_memory, export_user_memory, sweep_retention and the audit log, on every backend."""

import asyncio
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from store_rows import holding
from unimem import (
    InvalidInputError,
    MemoryEntry,
    UnifiedMemoryService,
)
from unimem.privacy.deletion import start_of_day
from unimem.recall.vectors import to_bytes
from unimem.stores import InMemoryStore, SQLiteStore
from unimem.stores.vectors import vector_store_of

DAY = timedelta(days=1)
SECRET = "Jane Doe lives at 12 Elm Street"  # stands for content that must never be audited


def user(content: str, **kw: Any) -> MemoryEntry:
    return MemoryEntry(role="user", content=content, **kw)


async def add(svc: UnifiedMemoryService, sid: str, text: str, uid: str = "u1", **kw: Any):
    return await svc.add_entry(session_id=sid, entry=user(text, **kw), user_id=uid)


async def contents(svc: UnifiedMemoryService, uid: str = "u1") -> list[str]:
    exported = await svc.store.export_user(uid)
    return sorted(e["content"] for e in exported["entries"])


def test_start_of_day_is_local_midnight_in_utc():
    now = datetime(2026, 3, 1, 3, 0, tzinfo=UTC)
    assert start_of_day(now) == datetime(2026, 3, 1, tzinfo=UTC)
    assert start_of_day(now, "America/New_York") == datetime(2026, 2, 28, 5, 0, tzinfo=UTC)
    assert start_of_day(now, "Asia/Tokyo") == datetime(2026, 2, 28, 15, 0, tzinfo=UTC)
    with pytest.raises(InvalidInputError, match="time zone"):
        start_of_day(now, "Mars/Olympus")


async def test_session_scope_without_a_session_id_is_refused_and_deletes_nothing(
    service: UnifiedMemoryService,
):
    await add(service, "live-1", "a")
    await add(service, "live-2", "b")
    with pytest.raises(InvalidInputError, match="session_id") as info:
        await service.delete_user_memory("session", user_id="u1")
    assert info.value.field == "session_id"
    assert sorted(await contents(service)) == ["a", "b"]


async def test_delete_one_given_session(service: UnifiedMemoryService):
    await add(service, "s1", "a")
    await add(service, "s2", "b")
    await add(service, "theirs", "d", uid="u2")
    receipt = await service.delete_user_memory("session", user_id="u1", session_id="s1")
    assert receipt.counts["entries"] == 1
    assert await contents(service) == ["b"]
    # another user's session: deleted from as a session never used (nothing, 0s)
    theirs = await service.delete_user_memory("session", user_id="u1", session_id="theirs")
    never = await service.delete_user_memory("session", user_id="u1", session_id="never-used")
    assert theirs.counts == never.counts and theirs.total == 0
    assert await contents(service, "u2") == ["d"]
    with pytest.raises(InvalidInputError, match="session_id"):
        await service.delete_user_memory("all", user_id="u1", session_id="s2")
    with pytest.raises(InvalidInputError, match="scope"):
        await service.delete_user_memory("week", user_id="u1")


@pytest.mark.parametrize("tz", [None, "Pacific/Kiritimati", "Pacific/Pago_Pago"])
async def test_delete_day_scope_cuts_at_local_midnight(service: UnifiedMemoryService, tz):
    midnight = start_of_day(datetime.now(UTC), tz)
    await add(service, "s1", "yesterday", timestamp=midnight - timedelta(seconds=1))
    await add(service, "s1", "today", timestamp=midnight + timedelta(microseconds=1))
    await add(service, "s2", "now")
    await add(service, "s3", "theirs", uid="u2")
    receipt = await service.delete_user_memory("day", user_id="u1", tz=tz)
    assert receipt.counts["entries"] == 2
    assert await contents(service) == ["yesterday"]
    assert await contents(service, "u2") == ["theirs"]


async def test_delete_all_leaves_nothing_but_settings_and_audit(service: UnifiedMemoryService):
    await service.update_settings({"retention_days": 9}, user_id="u1")
    await add(service, "s1", SECRET)
    await add(service, "s2", "second", mode="voice")
    await add(service, "s0", "deleted before")
    await service.add_event("s2", "topic_change", {"topic": "dose"}, user_id="u1")
    await add(service, "s3", "other user", uid="u2")
    vectors = vector_store_of(service.store)
    assert vectors is not None
    queued = await vectors.pending_vectors(100)
    assert await vectors.put_vectors("m", [(p, to_bytes(np.ones(4))) for p in queued]) == 4
    await service.delete_user_memory("session", user_id="u1", session_id="s0")  # a removal
    receipt = await service.delete_user_memory("all", user_id="u1", actor="admin-7")
    assert receipt.counts["entries"] == 2 and receipt.counts["sessions"] == 2
    # no row names the user but those documented to stay (vector removals included)
    assert await holding(service.store, "u1") == {"settings", "audit"}
    assert receipt.total == sum(receipt.counts.values())
    exported = await service.export_user_memory(user_id="u1")
    assert exported["settings"]["retention_days"] == 9
    for kind in ("sessions", "entries", "events", "facts", "summaries"):
        assert exported[kind] == [], kind
    assert await service.list_sessions(user_id="u1") == []
    assert await contents(service, "u2") == ["other user"]
    *_, delete = [r for r in await service.list_audit(user_id="u1") if r.action == "delete"]
    assert delete.actor == "admin-7" and delete.details["counts"] == receipt.counts


async def test_audit_records_settings_export_delete_without_content(service: UnifiedMemoryService):
    # stored as given (no redaction), so content in the audit log would show
    await service.update_settings({"anonymize_phi": False, "retention_days": 30}, user_id="u1")
    await add(service, "s1", SECRET)
    exported = await service.export_user_memory(user_id="u1", actor="dpo")
    assert [e["content"] for e in exported["entries"]] == [SECRET]
    assert exported["format"] == "unimem-export/1" and exported["user_id"] == "u1"
    json.dumps(exported)  # JSON-ready as it is
    await service.delete_user_memory("all", user_id="u1")
    records = await service.list_audit(user_id="u1")
    assert [r.action for r in records] == ["settings_change", "export", "delete"]
    assert records[0].details == {"anonymize_phi": False}  # only what changed
    assert records[1].actor == "dpo" and records[1].details["entries"] == 1
    assert records[2].actor == "u1"
    assert SECRET not in json.dumps([r.model_dump(mode="json") for r in records])
    again = await service.export_user_memory(user_id="u1")
    assert [r["action"] for r in again["audit"]] == ["settings_change", "export", "delete"]


async def test_sweep_retention_deletes_and_audits(service: UnifiedMemoryService):
    now = datetime.now(UTC)
    await service.update_settings({"retention_days": 1}, user_id="u1")
    await add(service, "s1", "two days old", timestamp=now - 2 * DAY)
    await add(service, "s1", "fresh")
    await add(service, "s2", "default user, 20 days", uid="u2", timestamp=now - 20 * DAY)
    await add(service, "s3", "default user, 40 days", uid="u2", timestamp=now - 40 * DAY)
    deleted = await service.sweep_retention()
    assert deleted >= 3  # two entries, and session s3 left empty
    assert await contents(service) == ["fresh"]
    assert await contents(service, "u2") == ["default user, 20 days"]
    [record] = await service.list_audit(user_id="*")
    assert record.action == "sweep" and record.details["deleted"] == deleted
    assert await service.sweep_retention() == 0
    assert len(await service.list_audit(user_id="*")) == 1  # an empty sweep is not recorded
    later = await service.sweep_retention(now + 21 * DAY, default_retention_days=1)
    assert later >= 2
    assert await contents(service, "u2") == []


async def test_a_write_racing_a_deletion(service: UnifiedMemoryService):
    """The deletion is one step in commit order: writes committed before it are
    gone, writes committed after it are kept, nothing is half-deleted."""
    before = [await add(service, "live", f"before-{i}") for i in range(5)]

    async def writer(i: int) -> MemoryEntry:
        await asyncio.sleep(0)
        return await add(service, "live", f"racing-{i}")

    first = [asyncio.create_task(writer(i)) for i in range(20)]
    deletion = asyncio.create_task(service.delete_user_memory("all", user_id="u1"))
    second = [asyncio.create_task(writer(i)) for i in range(20, 40)]
    racing = await asyncio.gather(*first, *second)
    receipt = await deletion
    after = await add(service, "live", "after")

    kept = {e.id: e for e in await service.get_history("live", max_messages=1000)}
    assert not {e.id for e in before} & set(kept)
    assert after.id in kept
    # everything kept was written into the session re-created after the deletion
    assert sorted(e.seq for e in kept.values()) == list(range(1, len(kept) + 1))
    assert receipt.counts["entries"] + len(kept) == len(before) + len(racing) + 1
    if isinstance(service.store, InMemoryStore | SQLiteStore):
        # embedded stores stamp and commit without yielding: timestamp order is commit order
        for entry in racing:
            assert (entry.id in kept) == (entry.timestamp > receipt.deleted_at)


# ------------------------------------------------------------------ crypto-shredding

NAME = "Johanna Quist"
PHONE = "555-201-0199"


async def _raw(store: Any) -> str:
    """Every byte the store holds, as text: the SQLite files, every row of the
    PostgreSQL schema, every Redis key of the cache's prefix, or the in-process
    dicts (an encrypted store is read underneath its encryption)."""
    import asyncpg

    from unimem.privacy.encrypted_store import EncryptedStore
    from unimem.stores.layered import LayeredStore
    from unimem.stores.postgres import PostgresStore

    if isinstance(store, EncryptedStore):
        store = store.inner
    if isinstance(store, SQLiteStore):
        files = [p for p in Path(store.path).parent.iterdir() if p.name.startswith("unimem.db")]
        return "".join(p.read_bytes().decode("latin-1") for p in files)
    if isinstance(store, InMemoryStore):  # its dicts, and those of the objects it holds
        held = [vars(v) for v in vars(store).values() if hasattr(v, "__dict__")]
        return repr(vars(store)) + repr(held)
    parts: list[str] = []
    if isinstance(store, LayeredStore):
        client, prefix = store.cache.client, store.cache.prefix
        async for key in client.scan_iter(match=f"{prefix}:*"):
            kind = await client.type(key)
            kind = kind.decode() if isinstance(kind, bytes) else kind
            if kind == "string":
                parts.append(repr(await client.get(key)))
            elif kind == "hash":
                parts.append(repr(await client.hgetall(key)))
            elif kind == "zset":
                parts.append(repr(await client.zrange(key, 0, -1)))
            elif kind == "list":
                parts.append(repr(await client.lrange(key, 0, -1)))
            elif kind == "set":
                parts.append(repr(await client.smembers(key)))
            else:
                parts.append(repr(await client.dump(key)))
        store = store.durable
    assert isinstance(store, PostgresStore)
    conn = await asyncpg.connect(store.dsn, server_settings={"search_path": store.schema})
    try:
        tables = await conn.fetch(
            "SELECT tablename FROM pg_tables WHERE schemaname = $1", store.schema
        )
        for (table,) in tables:
            rows = await conn.fetch(f'SELECT t::text FROM "{table}" t')
            parts.extend(r[0] for r in rows)
    finally:
        await conn.close()
    return "\n".join(parts)


async def _with_phi(service: UnifiedMemoryService, sid: str, at: datetime | None = None) -> None:
    await add(service, sid, f"my name is {NAME}, call {PHONE}", timestamp=at)
    await service.add_event(sid, "topic_change", {"note": f"asked about {NAME}"}, user_id="u1")


async def _sealed(service: UnifiedMemoryService, *sids: str) -> list[str]:
    return [v.sealed for v in await service.store.get_vault_values("u1", sids)]


@pytest.mark.parametrize("scope", ["session", "day", "all", "sweep"])
async def test_deletion_crypto_shreds_the_vault(service: UnifiedMemoryService, scope: str):
    """Storage never holds a PHI value in plaintext; after a deletion (or the
    sweep) not even the sealed values of what was deleted are left."""
    from unimem.privacy.crypto import generate_key

    service.use_encryption(generate_key("k1"))
    await service.update_settings({"anonymize_phi": True, "retention_days": 7}, user_id="u1")
    old = datetime.now(UTC) - timedelta(days=30) if scope == "sweep" else None
    await _with_phi(service, "gone", old)
    await add(service, "kept", "my brother is Bartholomew Finch")
    sealed = await _sealed(service, "gone")
    assert len(sealed) == 2
    raw = await _raw(service.store)
    assert NAME not in raw and PHONE not in raw and "Bartholomew" not in raw
    assert all(s in raw for s in sealed)

    if scope == "sweep":
        await service.sweep_retention()
    elif scope == "day":
        # "kept" was written today too: deleting today takes both
        await service.delete_user_memory("day", user_id="u1")
    else:
        sid = "gone" if scope == "session" else None
        await service.delete_user_memory(scope, user_id="u1", session_id=sid)

    raw = await _raw(service.store)
    assert not [s for s in sealed if s in raw]
    assert await _sealed(service, "gone") == []
    assert bool(await _sealed(service, "kept")) == (scope in ("session", "sweep"))
    assert NAME not in raw and PHONE not in raw and "Bartholomew" not in raw
