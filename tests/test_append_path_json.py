"""The append path writes each model's JSON once, with pydantic:
what PostgreSQL and Redis hold is exactly pydantic's ``model_dump_json()`` of
the stored entry, event and session state (non-ASCII text, floats, nested
metadata, and an integer beyond 64 bits)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest

from backends import REDIS_URL, ScratchLayeredStore, layered_store
from unimem import MemoryEntry
from unimem.ids import new_id
from unimem.models import MemoryEvent, SessionInfo

pytestmark = [pytest.mark.redis, pytest.mark.postgres]


@pytest.fixture
async def store(request: pytest.FixtureRequest) -> AsyncIterator[ScratchLayeredStore]:
    s = await layered_store(request.node.nodeid, REDIS_URL)
    await s.setup()
    try:
        yield s
    finally:
        await s.aclose()


def _entry(content: str, **kw: object) -> MemoryEntry:
    return MemoryEntry(
        id=new_id(), role="user", content=content, session_id="s1", user_id="u1",
        timestamp=datetime.now(UTC), **kw,
    )  # fmt: skip


async def _stored(store: ScratchLayeredStore, table: str, seq: int) -> str:
    async with store.durable._conn() as conn:  # type: ignore[attr-defined]
        raw = await conn.fetchval(
            f"SELECT data::text FROM {table} WHERE session_id = 's1' AND seq = $1", seq
        )
    assert isinstance(raw, str)
    return raw


async def _state(store: ScratchLayeredStore) -> tuple[str, bytes]:
    async with store.durable._conn() as conn:  # type: ignore[attr-defined]
        raw = await conn.fetchval("SELECT data::text FROM sessions WHERE session_id = 's1'")
    cached = await store.cache.client.hget(store.cache.session_keys("s1").meta, "state")
    return raw, cached


@pytest.mark.parametrize(
    "metadata",
    [
        {"score": 0.1, "n": 3, "nested": {"ok": [True, None, "ü"]}},
        # beyond 64 bits (validation refuses it, so the entry is given it
        # afterwards, as a caller building models may)
        {"big": 2**70},
    ],
)
async def test_stores_hold_exactly_pydantics_json(
    store: ScratchLayeredStore, metadata: dict[str, object]
) -> None:
    made = _entry('héllo \u2028 日本語 "q"', latency_ms=12.5, mode="voice")
    first = await store.append_entry(made.model_copy(update={"metadata": metadata}))
    second = await store.append_entry(_entry("second", language="de"))  # (a mode switch)
    assert [e.event_type for e in second.events] == ["mode_switch"]
    for result in (first, second):
        assert result.created and result.session is not None
        assert result.entry_json == result.entry.model_dump_json()
        assert result.entry.seq is not None
        assert await _stored(store, "entries", result.entry.seq) == result.entry.model_dump_json()
        for caused in result.events:
            assert caused.seq is not None
            assert await _stored(store, "events", caused.seq) == caused.model_dump_json()
    window = await store.cache.client.zrange(store.cache.session_keys("s1").window, 0, -1)
    assert window == [r.entry.model_dump_json().encode() for r in (first, second)]

    event = await store.append_event(
        MemoryEvent(
            id=new_id(),
            session_id="s1",
            user_id="u1",
            event_type="language_switch",
            timestamp=datetime.now(UTC),
            data={"from_language": "en", "to_language": "de", "p": 0.5},
        )
    )
    assert event.seq is not None
    assert await _stored(store, "events", event.seq) == event.model_dump_json()
    keys = store.cache.session_keys("s1")
    assert await store.cache.client.lrange(keys.lang, 0, -1) == [event.model_dump_json().encode()]
    mode = await store.cache.client.lrange(keys.mode, 0, -1)
    assert mode == [second.events[0].model_dump_json().encode()]

    durable, cached = await _state(store)
    state = SessionInfo.model_validate_json(durable)
    assert state.message_count == 2 and state.event_count == 2
    assert durable == state.model_dump_json()
    assert cached == durable.encode()
