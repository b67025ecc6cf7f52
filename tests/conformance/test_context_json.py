"""get_context_json gives the bytes of get_context's JSON, on every backend.

On a layered store the cached entries go out as the JSON Redis holds, never
rebuilt as models: these tests check that path is taken there and that its
bytes are those of the context written whole.
"""

import orjson
import pytest

from unimem import ConversationContext, MemoryEntry, MemorySettings, UnifiedMemoryService
from unimem.encoding import model_json
from unimem.models import StoredEntries
from unimem.stores.base import stored_json_reader

TEXTS = [
    "I take metformin twice a day",
    "¿Y la dosis de la tarde? — 500 mg",
    'quote " backslash \\ tab \t newline \n and \x7f, \u2028 \u2029',
    "emoji 🩺💊 and CJK 糖尿病 and RTL مرحبا",
    "</script><script>alert(1)</script> & <b>",
]


def varied(i: int) -> MemoryEntry:
    """An entry using every kind of field: floats, nested JSON, passages, sources."""
    return MemoryEntry(
        role="user" if i % 2 == 0 else "assistant",
        content=TEXTS[i % len(TEXTS)] + f" #{i}",
        mode="voice" if i % 3 == 0 else "text",
        latency_ms=[None, 12.5, 0.1 + 0.2, 1e-7, 123456789.0][i % 5],
        retrieved_passages=[f"passage {i % 4}", "shared passage"] if i % 2 else [],
        sources=[{"id": f"doc-{i % 3}", "score": 0.5 + i / 100, "tags": ["a", None, True]}],
        metadata={
            "turn": i,
            "nested": {"x": [1, 2.0, "three"], "ü": "ß"},
            "widest": [2**64 - 1, -(2**63)],
        },
        degradations=["stt_low_confidence"] if i % 4 == 0 else [],
    )


async def assert_same(service: UnifiedMemoryService, session: str, **kw: object) -> bytes:
    body, degradations = await service.get_context_json(session, **kw)  # type: ignore[arg-type]
    context = await service.get_context(session, **kw)  # type: ignore[arg-type]
    assert body == model_json(context) == context.model_dump_json().encode()
    assert degradations == context.degradations
    return body


async def test_bytes_are_those_of_the_context(service: UnifiedMemoryService):
    for i in range(14):
        await service.add_entry(session_id="s1", entry=varied(i), user_id="alice")
    for i in range(3):  # the same user's turns elsewhere: context.recent
        await service.add_entry(session_id="s2", entry=varied(100 + i), user_id="alice")
    for max_messages in (1, 5, 10, 14, 20):
        for include_rag in (True, False):
            body = await assert_same(
                service,
                "s1",
                max_messages=max_messages,
                include_rag=include_rag,
                user_id="alice",
            )
            decoded = orjson.loads(body)
            assert len(decoded["messages"]) == min(max_messages, 14)
    assert len(orjson.loads(await assert_same(service, "s1", user_id="alice"))["recent"]) == 3
    await assert_same(service, "s2", user_id="alice")
    await assert_same(service, "never-written", user_id="alice")


async def test_bytes_follow_settings(service: UnifiedMemoryService):
    for i in range(4):
        await service.add_entry(session_id="s1", entry=varied(i), user_id="bob")
        await service.add_entry(session_id="s2", entry=varied(i + 1), user_id="bob")
    await service.update_settings("bob", MemorySettings(cross_session=False))
    body = await assert_same(service, "s1", user_id="bob")
    assert orjson.loads(body)["recent"] == []
    await service.update_settings("bob", MemorySettings(enabled=False))
    body = await assert_same(service, "s1", user_id="bob")
    assert orjson.loads(body)["messages"] == []


async def test_another_users_session_is_refused_alike(service: UnifiedMemoryService):
    await service.add_entry(session_id="s1", entry=varied(0), user_id="alice")
    with pytest.raises(Exception) as json_way:
        await service.get_context_json("s1", user_id="mallory")
    with pytest.raises(Exception) as model_way:
        await service.get_context("s1", user_id="mallory")
    assert type(json_way.value) is type(model_way.value)
    assert str(json_way.value) == str(model_way.value)


async def test_layered_store_hands_over_stored_json(service: UnifiedMemoryService):
    store = service.store
    read = stored_json_reader(store)
    if read is None:  # memory, SQLite, PostgreSQL alone: nothing cached as JSON
        assert not hasattr(type(store), "load_context_json")
        return
    for i in range(6):
        await service.add_entry(session_id="s1", entry=varied(i), user_id="alice")
        await service.add_entry(session_id="s2", entry=varied(i), user_id="alice")
    await service.get_context("s1", user_id="alice")  # cached by now either way
    snap = await read("s1", max_messages=4, event_limit=5)
    assert snap.entries == []
    window = snap.entries_json  # type: ignore[attr-defined]
    assert isinstance(window, StoredEntries) and window.plain()
    expected = await service.get_history("s1", 4, user_id="alice")
    assert window.raw == b"[" + b",".join(model_json(e) for e in expected) + b"]"
    assert [e.model_dump() for e in window.entries()] == [e.model_dump() for e in expected]
    recent = snap.recent_json  # type: ignore[attr-defined]
    assert isinstance(recent, StoredEntries) and len(recent) == 4


@pytest.mark.parametrize(
    ("change", "value"),
    [
        ("role", "narrator"),
        ("mode", "telepathy"),
        ("latency_ms", 5),
        ("timestamp", "2026-11-30T10:00:00+00:00"),
        ("timestamp", "2026-11-30T10:00:00.000000Z"),
        ("timestamp", ""),
    ],
)
def test_stored_json_not_as_unimem_writes_it_is_not_passed_on(change: str, value: object):
    good = MemoryEntry(role="user", content="hi", latency_ms=5.0)
    data = orjson.loads(model_json(good))
    data["timestamp"] = "2026-11-30T10:00:00.123456Z"
    assert StoredEntries(orjson.dumps([data])).plain()
    data[change] = value
    assert not StoredEntries(orjson.dumps([data])).plain()
    data.pop(change)
    assert not StoredEntries(orjson.dumps([data])).plain()
    assert not StoredEntries(orjson.dumps([{**data, change: value, "extra": 1}])).plain()


async def test_context_is_what_validation_builds(service: UnifiedMemoryService):
    for i in range(5):
        await service.add_entry(session_id="s1", entry=varied(i), user_id="alice")
        await service.add_entry(session_id="s2", entry=varied(i), user_id="alice")
    context = await service.get_context("s1", user_id="alice")
    fields = {name: getattr(context, name) for name in ConversationContext.model_fields}
    validated = ConversationContext(**fields)
    assert validated == context
    assert validated.model_fields_set == context.model_fields_set
    assert validated.model_dump_json() == context.model_dump_json()


@pytest.mark.parametrize(
    "raw",
    [
        b'[{"id": "a"}]',  # spacing
        b'[{"n":1E2}]',  # another number form
        b'[{"t":"caf\\u00e9"}]',  # an escape orjson does not write
        b'[{"n":18446744073709551616}]',  # read back rounded
        b'[{"k":1,"k":2}]',  # a repeated key
    ],
)
def test_stored_json_another_writer_wrote_is_not_passed_on(raw: bytes):
    assert not StoredEntries(raw).plain()


def test_a_subclass_overriding_load_context_is_not_bypassed():
    from unimem.stores.layered import LayeredStore

    class Redacting(LayeredStore):
        async def load_context(self, session_id, *, max_messages, event_limit):  # type: ignore[no-untyped-def]
            return await super().load_context(
                session_id, max_messages=max_messages, event_limit=event_limit
            )

    class Both(Redacting):
        async def load_context_json(self, session_id, *, max_messages, event_limit):  # type: ignore[no-untyped-def]
            return await self.load_context(
                session_id, max_messages=max_messages, event_limit=event_limit
            )

    plain = LayeredStore.__new__(LayeredStore)
    assert stored_json_reader(plain) is not None
    assert stored_json_reader(Redacting.__new__(Redacting)) is None
    assert stored_json_reader(Both.__new__(Both)) is not None
