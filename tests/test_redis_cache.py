"""The Redis layers in front of PostgreSQL, on a single Redis and on a 3-master
Redis Cluster: key layout, hot window, read-through rebuild, stale-cache
repair, cross-session recall, several writer processes, the spec's face."""

from __future__ import annotations

import asyncio
import sys
import textwrap
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from redis.crc import key_slot

from backends import PG_URL, REDIS_URL, ScratchLayeredStore, ensure_cluster, layered_store
from unimem import MemoryEntry, UnifiedMemoryService
from unimem.ids import new_id
from unimem.service import writes as service_module
from unimem.stores.layered import LayeredStore
from unimem.stores.postgres.store import PostgresStore
from unimem.stores.redis import SessionCache, keys, redis_client_from_url
from unimem.stores.spec_stores import RedisMemoryStore

pytestmark = [pytest.mark.redis, pytest.mark.postgres]


def user(content: str, **kw: Any) -> MemoryEntry:
    return MemoryEntry(role="user", content=content, **kw)


@pytest.fixture(params=["redis", "cluster"])
def redis_url(request: pytest.FixtureRequest) -> str:
    return REDIS_URL if request.param == "redis" else ensure_cluster()


@pytest.fixture
async def store(
    request: pytest.FixtureRequest, redis_url: str
) -> AsyncIterator[ScratchLayeredStore]:
    layered = await layered_store(request.node.nodeid, redis_url, hot_window=10)
    await layered.setup()
    try:
        yield layered
    finally:
        await layered.aclose()


@pytest.fixture
def memory(store: ScratchLayeredStore) -> UnifiedMemoryService:
    return UnifiedMemoryService(store)


def count_calls(obj: Any, name: str) -> list[int]:
    """Count calls of ``obj.name`` (an instrumented method of a real store)."""
    calls: list[int] = []
    original = getattr(obj, name)

    async def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return await original(*args, **kwargs)

    setattr(obj, name, counted)
    return calls


def test_keys_of_a_session_and_of_a_user_share_one_slot():
    session = keys.session_keys("visit-42", "p")
    assert len({key_slot(k.encode()) for k in session.all()}) == 1
    person = keys.user_keys("alice", "p")
    assert len({key_slot(k.encode()) for k in (*person.short_term(), person.settings)}) == 1
    assert session.meta.startswith("p:{s:visit-42}")


async def test_context_comes_from_redis_when_cached(
    memory: UnifiedMemoryService, store: ScratchLayeredStore
):
    for i in range(13):
        await memory.add_entry("s1", user(f"m{i}"), user_id="u1")
    loads = count_calls(store.durable, "load_context")
    ctx = await memory.get_context("s1", max_messages=10)
    assert [m.content for m in ctx.messages] == [f"m{i}" for i in range(3, 13)]
    assert loads == [] and ctx.degradations == []
    window = store.cache.session_keys("s1").window
    assert await store.cache.client.zcard(window) == 10  # the hot window, trimmed
    ttl = await store.cache.client.ttl(window)
    assert 0 < ttl <= store.cache.session_ttl
    # beyond the hot window: PostgreSQL
    assert [e.seq for e in await memory.get_history("s1", max_messages=13)] == list(range(1, 14))


async def test_window_is_rebuilt_once_after_redis_lost_it(
    memory: UnifiedMemoryService, store: ScratchLayeredStore
):
    for i in range(3):
        await memory.add_entry("s1", user(f"m{i}", language="en"), user_id="u1")
    await memory.add_entry("s1", user("hola", language="es"), user_id="u1")
    await store.cache.drop(["s1"])  # eviction, TTL, FLUSHALL or a restart
    loads = count_calls(store.durable, "load_context")
    contexts = await asyncio.gather(*(memory.get_context("s1") for _ in range(20)))
    assert len(loads) == 1  # a burst of readers rebuilds once
    for ctx in contexts:
        assert [m.content for m in ctx.messages] == ["m0", "m1", "m2", "hola"]
        assert ctx.current_language == "es" and len(ctx.language_events) == 1
    again = await memory.get_context("s1")
    assert len(loads) == 1 and again.messages == contexts[0].messages
    nxt = await memory.add_entry("s1", user("más", language="es"), user_id="u1")
    assert nxt.seq == 5
    assert [m.seq for m in (await memory.get_context("s1")).messages] == [1, 2, 3, 4, 5]
    assert len(loads) == 1  # the write extended the rebuilt window


async def test_a_write_redis_missed_is_never_served(
    memory: UnifiedMemoryService, store: ScratchLayeredStore
):
    await memory.add_entry("s1", user("one"), user_id="u1")
    # committed durably but never reached Redis (the process died in between)
    lost = user("two", id=new_id(), session_id="s1", user_id="u1")
    lost = lost.model_copy(update={"timestamp": datetime.now(UTC)})
    await store.durable.append_entry(lost)
    # the client retries the unacknowledged entry: idempotent, and the cache is dropped
    await memory.add_entry("s1", lost.model_copy(update={"seq": None}), user_id="u1")
    assert [m.content for m in (await memory.get_context("s1")).messages] == ["one", "two"]
    # a missed write followed by a new one: the script sees the gap and drops the window
    await store.durable.append_entry(
        user("three", id=new_id(), session_id="s1", user_id="u1", timestamp=datetime.now(UTC))
    )
    await memory.add_entry("s1", user("four"), user_id="u1")
    ctx = await memory.get_context("s1")
    assert [m.content for m in ctx.messages] == ["one", "two", "three", "four"]


async def test_scripts_redis_forgot_are_loaded_again(
    memory: UnifiedMemoryService, store: ScratchLayeredStore
):
    """After a restart or SCRIPT FLUSH every call still works: the write script,
    and the user read inside the context read's transaction."""
    await memory.add_entry("other", user("elsewhere"), user_id="u1")
    await memory.add_entry("s1", user("one"), user_id="u1")
    await store.cache.client.script_flush()
    assert (await memory.add_entry("s1", user("two"), user_id="u1")).degradations == []
    await store.cache.client.script_flush()
    loads = count_calls(store.durable, "load_context")
    ctx = await memory.get_context("s1")
    assert [m.content for m in ctx.messages] == ["one", "two"]
    assert [m.content for m in ctx.recent] == ["elsewhere"]
    assert loads == [] and ctx.degradations == []
    await store.cache.client.script_flush()
    assert [e.content for e in await memory.get_history("s1")] == ["one", "two"]


async def test_a_write_reaching_redis_after_its_session_was_dropped_stays_out(
    memory: UnifiedMemoryService, store: ScratchLayeredStore
):
    """A write whose cache update arrives after its session's keys were dropped
    (by a deletion of the user's memory between the durable commit and the
    update) leaves nothing of it in Redis: not in the window, and not in the
    short-term layer, which is marked cold rather than missing the entry."""
    await memory.add_entry("s1", user("one"), user_id="u1")
    await memory.add_entry("s1", user("two"), user_id="u1")
    await memory.add_entry("s2", user("elsewhere"), user_id="u1")
    await memory.get_context("s2")  # the short-term layer warm
    uk = store.cache.user_keys("u1")
    assert await store.cache.client.exists(uk.warm)
    state = await store.durable.get_session("s1")
    [late] = await store.durable.get_entries("s1", limit=1)
    assert state is not None
    await store.cache.drop(["s1"])
    await store.cache.client.hdel(uk.recent_data, keys.recent_member("s1", late.id))
    await store.cache.record(state, (state.message_count - 1, state.event_count), late)
    assert not await store.cache.client.exists(store.cache.session_keys("s1").window)
    cached = await store.cache.client.hvals(uk.recent_data)
    assert not any(late.id.encode() in raw for raw in cached)
    assert not await store.cache.client.exists(uk.warm)
    ctx = await memory.get_context("s2")  # the layer warmed again from PostgreSQL
    assert [e.content for e in ctx.recent] == ["one", "two"]
    assert await store.cache.client.exists(uk.warm)


async def test_cross_session_recall_fills_recent(
    memory: UnifiedMemoryService, store: ScratchLayeredStore
):
    await memory.add_entry("morning", user("I am allergic to latex"), user_id="u1")
    await memory.add_entry("evening", user("and to penicillin"), user_id="u1")
    await memory.add_entry("other", user("not yours"), user_id="u2")
    fresh = await memory.get_context("new-visit", user_id="u1")
    assert fresh.messages == []
    assert [e.content for e in fresh.recent] == ["I am allergic to latex", "and to penicillin"]
    await memory.add_entry("new-visit", user("hello"), user_id="u1")
    ctx = await memory.get_context("new-visit")  # served from Redis, current session apart
    assert [m.content for m in ctx.messages] == ["hello"]
    assert [e.session_id for e in ctx.recent] == ["morning", "evening"]
    await memory.add_entry("morning", user("one more"), user_id="u1")
    ctx = await memory.get_context("new-visit")
    assert ctx.recent[-1].content == "one more"
    await memory.update_settings({"cross_session": False}, user_id="u1")
    assert (await memory.get_context("new-visit")).recent == []


async def test_recent_turns_are_found_behind_many_turns_of_this_session(
    memory: UnifiedMemoryService, store: ScratchLayeredStore
):
    """The short-term layer is read newest first, a page at a time: another
    session's turns behind 30 newer turns of this one are still found, from
    Redis, and again after the layer was rebuilt from PostgreSQL."""
    await memory.add_entry("first", user("allergic to latex"), user_id="u1")
    await memory.get_context("first")  # (the short-term layer is warmed by a first read)
    await memory.add_entry("first", user("and to penicillin"), user_id="u1")
    for i in range(30):
        await memory.add_entry("now", user(f"turn {i}"), user_id="u1")
    recalls = count_calls(store.durable, "recent_user_entries")
    ctx = await memory.get_context("now", max_messages=5)
    assert [e.content for e in ctx.recent] == ["allergic to latex", "and to penicillin"]
    assert recalls == []  # from Redis
    await store.cache.drop(user_ids=["u1"])  # the short-term layer lost
    ctx = await memory.get_context("now", max_messages=5)
    assert [e.content for e in ctx.recent] == ["allergic to latex", "and to penicillin"]
    assert len(recalls) == 1  # rebuilt from PostgreSQL once
    ctx = await memory.get_context("now", max_messages=5)
    assert [e.content for e in ctx.recent] == ["allergic to latex", "and to penicillin"]
    assert len(recalls) == 1  # and served from Redis again
    # a user with one session: nothing to recall, also after a rebuild
    await memory.add_entry("only", user("alone"), user_id="u2")
    assert (await memory.get_context("only")).recent == []
    await store.cache.drop(user_ids=["u2"])
    assert (await memory.get_context("only")).recent == []
    assert (await memory.get_context("only")).recent == []


@pytest.mark.parametrize("warm", [False, True])
async def test_lingua_loads_before_any_timed_redis_call_of_the_turn(
    memory: UnifiedMemoryService, monkeypatch: pytest.MonkeyPatch, warm: bool
):
    """lingua loads its models once per process (about a second of CPU holding
    the event loop). A process that did not preload them (a library user) loads
    them before the first turn that needs a detection, not while that turn's
    Redis reads wait with their 0.5 s timeout (which would report Redis
    unreachable); a voice turn with the speech-to-text language needs none."""
    loaded: list[int] = []
    real_preload = service_module.preload

    def preload_holding_the_loop() -> None:
        real_preload()
        time.sleep(0.7)  # (holds the loop, as loading the models does the first time)
        loaded.append(1)

    monkeypatch.setattr(service_module, "preload", preload_holding_the_loop)
    monkeypatch.setattr(service_module, "is_warm", lambda: warm or bool(loaded))
    voice = user("good morning", language="en", detected_language="en", mode="voice")
    assert (await memory.add_entry("s1", voice, user_id="u1")).degradations == []
    assert loaded == []  # nothing to detect
    entry = await memory.add_entry("s2", user("good morning, I feel better today"), user_id="u2")
    assert entry.degradations == [] and entry.detected_language == "en"
    assert loaded == ([] if warm else [1])


async def test_typed_turns_decide_their_language_from_the_current_state(
    memory: UnifiedMemoryService, store: ScratchLayeredStore, redis_url: str
):
    """A typed turn's language is decided against the session's current language
    as stored now, even when another process changed it since this process last
    wrote: a Portuguese turn in a session another process set to pt-BR keeps
    pt-BR (no switch), and an English turn after another process's switch to
    Spanish records es -> en."""
    english = "I have been taking the blood pressure pills every morning with my breakfast"
    portuguese = "eu tenho tomado os comprimidos para a pressão todas as manhãs com o café"
    spanish = "he tomado las pastillas para la presión todas las mañanas con el desayuno"
    await memory.add_entry("s1", user(english), user_id="u1")
    other_store = LayeredStore(
        PostgresStore(PG_URL, schema=store.durable.schema),  # type: ignore[attr-defined]
        SessionCache(redis_client_from_url(redis_url, timeout=2), prefix=store.cache.prefix),
    )
    async with UnifiedMemoryService(other_store) as other:
        await other.add_entry("s1", user("bom dia", language="pt-BR"), user_id="u1")
        same = await memory.add_entry("s1", user(portuguese), user_id="u1")
        assert (same.language, same.language_switched) == ("pt-BR", False)
        await other.add_entry("s1", user(spanish), user_id="u1")
        back = await memory.add_entry("s1", user(english), user_id="u1")
    assert (back.language, back.language_switched) == ("en", True)
    switches = await memory.get_events("s1", event_type="language_switch", limit=10)
    assert [(e.data["from_language"], e.data["to_language"]) for e in switches] == [
        ("en", "pt-BR"),
        ("pt-BR", "es"),
        ("es", "en"),
    ]


async def test_recall_survives_the_loss_of_the_users_sessions_set(
    memory: UnifiedMemoryService, store: ScratchLayeredStore
):
    """The short-term read skips the layer when the user's sessions set shows
    only the current session; if that set is lost (evicted) the layer is read
    in full, and the next write marks the layer cold so it is warmed again."""
    await memory.add_entry("first", user("allergic to latex"), user_id="u1")
    await memory.get_context("first")  # (the short-term layer is warmed by a first read)
    await memory.add_entry("now", user("hello"), user_id="u1")
    sessions_key = store.cache.user_keys("u1").sessions
    assert (await memory.get_context("now")).recent[0].content == "allergic to latex"
    await store.cache.client.delete(sessions_key)  # evicted
    assert (await memory.get_context("now")).recent[0].content == "allergic to latex"
    await memory.add_entry("now", user("again"), user_id="u1")  # sessions set: "now" only
    assert not await store.cache.client.exists(store.cache.user_keys("u1").warm)
    assert (await memory.get_context("now")).recent[0].content == "allergic to latex"
    members = await store.cache.client.zrange(sessions_key, 0, -1)
    assert sorted(members) == [b"first", b"now"]  # warmed again, both sessions listed


async def test_extend_ttl_refreshes_the_idle_timer(
    memory: UnifiedMemoryService, store: ScratchLayeredStore
):
    await memory.add_entry("s1", user("x"), user_id="u1")
    meta = store.cache.session_keys("s1").meta
    await store.cache.client.expire(meta, 30)
    assert await memory.extend_ttl("s1") is True
    assert await store.cache.client.ttl(meta) > 30


async def test_delete_all_by_user_clears_every_cached_key(
    memory: UnifiedMemoryService, store: ScratchLayeredStore
):
    for sid in ("a", "b", "c"):
        await memory.add_entry(sid, user(f"in {sid}"), user_id="u1")
        await memory.get_context(sid)
    await memory.add_entry("z", user("kept"), user_id="u2")
    await memory.delete_user_memory("all", user_id="u1")
    client = store.cache.client
    left = [k.decode() async for k in client.scan_iter(match=f"{store.cache.prefix}:*")]
    assert not [k for k in left if "{s:a}" in k or "{s:b}" in k or "{s:c}" in k]
    assert not [k for k in left if "{u:u1}:recent" in k or "{u:u1}:sessions" in k]
    assert any("{s:z}" in k for k in left)
    assert (await memory.get_context("a")).messages == []
    assert [m.content for m in (await memory.get_context("z")).messages] == ["kept"]


async def test_redis_memory_store_face(store: ScratchLayeredStore):
    face = RedisMemoryStore(store.cache.client, prefix=store.cache.prefix)
    entries = [
        MemoryEntry(id=new_id(), role="user", content=f"m{i}", seq=i, user_id="u1")
        for i in range(1, 4)
    ]
    await face.save_session("s1", entries[:2])
    await face.save_session("s1", entries)  # adds by seq; nothing rewritten or doubled
    assert [e.content for e in await face.load_session("s1")] == ["m1", "m2", "m3"]
    assert await face.extend_ttl("s1") is True
    await face.delete_session("s1")
    assert await face.load_session("s1") == []
    assert await face.extend_ttl("s1") is False


async def test_redis_memory_store_delete_all_by_user(
    memory: UnifiedMemoryService, store: ScratchLayeredStore
):
    face = RedisMemoryStore(store.cache.client, prefix=store.cache.prefix)
    for sid in ("a", "b", "c", "d"):  # spread over slots (and nodes, on the cluster)
        await memory.add_entry(sid, user(f"in {sid}"), user_id="u1")
    await memory.add_entry("z", user("other user"), user_id="u2")
    await face.delete_all("u1")  # one DEL per slot: never CROSSSLOT
    for sid in ("a", "b", "c", "d"):
        assert await face.load_session(sid) == []
    assert not await store.cache.client.exists(store.cache.user_keys("u1").recent)
    assert [e.content for e in await face.load_session("z")] == ["other user"]


WRITER = textwrap.dedent(
    """
    import asyncio, sys
    from unimem import MemoryEntry, UnifiedMemoryService
    from unimem.stores.layered import LayeredStore
    from unimem.stores.postgres.store import PostgresStore
    from unimem.stores.redis import SessionCache, redis_client_from_url

    async def main(dsn, schema, redis_url, prefix, tag):
        cache = SessionCache(redis_client_from_url(redis_url, timeout=5), prefix=prefix)
        store = LayeredStore(PostgresStore(dsn, schema=schema), cache)
        async with UnifiedMemoryService(store) as memory:
            for i in range(30):
                await memory.add_entry(
                    "shared", MemoryEntry(role="user", content=f"{tag}-{i}"), user_id="u1"
                )
                await memory.get_context("shared")

    asyncio.run(main(*sys.argv[1:]))
    """
)


@pytest.mark.slow
async def test_writers_in_several_processes_agree_between_redis_and_postgres(
    memory: UnifiedMemoryService, store: ScratchLayeredStore, redis_url: str
):
    await memory.add_entry("shared", user("first"), user_id="u1")
    args = [PG_URL, str(store.durable.schema), redis_url, store.cache.prefix]  # type: ignore[attr-defined]
    procs = [
        await asyncio.create_subprocess_exec(sys.executable, "-c", WRITER, *args, f"p{n}")
        for n in range(3)
    ]
    assert [await p.wait() for p in procs] == [0, 0, 0]
    durable = await store.durable.get_entries("shared", limit=5)
    cached = await store.cache.read("shared", 5, 5)
    ctx = await memory.get_context("shared", max_messages=5)
    assert [e.seq for e in durable] == list(range(87, 92))
    assert ctx.messages == durable
    if cached is not None:  # a concurrent write may have dropped it: then it was rebuilt
        assert cached.entries == durable
    assert (await memory.get_session("shared")).message_count == 91


async def test_history_and_recent_work_with_timestamps_in_the_past(
    memory: UnifiedMemoryService,
):
    old = datetime.now(UTC) - timedelta(days=2)
    await memory.add_entry("old", user("two days ago", timestamp=old), user_id="u1")
    ctx = await memory.get_context("today", user_id="u1")
    assert ctx.recent == []  # outside the short-term layer's 24 h
