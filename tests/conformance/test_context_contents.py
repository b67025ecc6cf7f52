"""A context carries the entries exactly as they were written, on every backend
(from a cache or the durable store alike), follows the owner's settings, and
is the model validation would build."""

import orjson

from unimem import ConversationContext, MemoryEntry, MemorySettings, UnifiedMemoryService

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


WRITTEN_FIELDS = ("role", "content", "mode", "latency_ms", "retrieved_passages", "sources")


async def test_entries_come_back_as_written(service: UnifiedMemoryService):
    written = [varied(i) for i in range(14)]
    for entry in written:
        await service.add_entry(session_id="s1", entry=entry, user_id="alice")
    for i in range(3):  # the same user's turns elsewhere: context.recent
        await service.add_entry(session_id="s2", entry=varied(100 + i), user_id="alice")
    for _ in range(2):  # a cold read, then one a cache may answer
        for max_messages in (1, 5, 14, 20):
            context = await service.get_context("s1", max_messages, user_id="alice")
            expected = written[-max_messages:]
            assert [
                {name: getattr(e, name) for name in WRITTEN_FIELDS} for e in context.messages
            ] == [{name: getattr(e, name) for name in WRITTEN_FIELDS} for e in expected]
            assert [e.metadata for e in context.messages] == [e.metadata for e in expected]
            history = await service.get_history("s1", max_messages, user_id="alice")
            assert context.messages == history
            assert [e.seq for e in context.messages] == list(range(15 - len(expected), 15))
        context = await service.get_context("s1", user_id="alice")
        assert [e.content for e in context.recent] == [varied(100 + i).content for i in range(3)]
        decoded = orjson.loads(context.model_dump_json())
        assert decoded["messages"][-1]["metadata"]["widest"] == [2**64 - 1, -(2**63)]
        assert decoded["rag_context"]["passages"] == [
            "passage 1",
            "shared passage",
            "passage 3",
        ]
    empty = await service.get_context("never-written", user_id="alice")
    assert empty.messages == [] and empty.session is None


async def test_context_follows_settings(service: UnifiedMemoryService):
    for i in range(4):
        await service.add_entry(session_id="s1", entry=varied(i), user_id="bob")
        await service.add_entry(session_id="s2", entry=varied(i + 1), user_id="bob")
    assert len((await service.get_context("s1", user_id="bob")).recent) == 4
    await service.update_settings(MemorySettings(cross_session=False), user_id="bob")
    assert (await service.get_context("s1", user_id="bob")).recent == []
    await service.update_settings(MemorySettings(enabled=False), user_id="bob")
    context = await service.get_context("s1", user_id="bob")
    assert context.messages == [] and context.degradations == ["memory_disabled"]


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
