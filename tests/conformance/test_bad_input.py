"""Bad input raises one clear error naming the field, and stores nothing."""

import pytest

from unimem import (
    ContentTooLargeError,
    InvalidInputError,
    MemoryEntry,
    UnifiedMemoryService,
    UnimemError,
)


async def assert_nothing_stored(service: UnifiedMemoryService, session_id: str = "s1") -> None:
    assert await service.get_history(session_id) == []
    assert await service.get_events(session_id) == []


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"role": "robot", "content": "x"}, "role"),
        ({"role": "user", "content": "x", "mode": "telepathy"}, "mode"),
        ({"role": "user", "content": 5}, "content"),
        ({"role": "user", "content": "x", "metadata": {"f": {1, 2}}}, "metadata"),
        ({"role": "user", "content": "x", "language": "english!"}, "language"),
        ({"role": "user", "content": "x", "unknown": 1}, "unknown"),
        ({"role": "user", "content": "nul\x00byte"}, "content"),
        ({"role": "user", "content": "lone \ud800 surrogate"}, "content"),
        ({"role": "user", "content": "x", "metadata": {"k": "lone \ud800"}}, "metadata"),
        ({"role": "user", "content": "x", "metadata": {"\udfff": 1}}, "metadata"),
        ({"role": "user", "content": "x", "sources": [{"t": "\ud83d"}]}, "sources"),
    ],
)
async def test_invalid_entries_name_the_field(service: UnifiedMemoryService, payload, field):
    with pytest.raises(InvalidInputError) as info:
        await service.add_entry(session_id="s1", entry=payload)
    assert info.value.field == field
    assert field in str(info.value)
    await assert_nothing_stored(service)


async def test_empty_session_id(service: UnifiedMemoryService):
    with pytest.raises(InvalidInputError, match="session_id") as info:
        await service.add_entry(session_id="", entry=MemoryEntry(role="user", content="x"))
    assert info.value.field == "session_id"


async def test_content_over_the_limit_names_the_limit(service: UnifiedMemoryService):
    limit = service.config.max_content_bytes
    with pytest.raises(ContentTooLargeError) as info:
        await service.add_entry(
            session_id="s1", entry=MemoryEntry(role="user", content="é" * limit)
        )
    assert info.value.field == "content"
    assert info.value.limit == limit
    assert str(limit) in str(info.value)
    await assert_nothing_stored(service)
    exact = await service.add_entry(
        session_id="s1", entry=MemoryEntry(role="user", content="a" * limit)
    )
    assert len(exact.content) == limit


@pytest.mark.parametrize("value", [0, -1, 10_001, True, "10"])
async def test_max_messages_out_of_range(service: UnifiedMemoryService, value):
    with pytest.raises(InvalidInputError) as info:
        await service.get_history("s1", max_messages=value)
    assert info.value.field == "max_messages"
    with pytest.raises(InvalidInputError):
        await service.get_context("s1", max_messages=value if value != 10_001 else 201)


async def test_bad_switch_arguments(service: UnifiedMemoryService):
    with pytest.raises(InvalidInputError, match="trigger"):
        await service.track_language_switch("s1", "en", "es", trigger="whim")
    with pytest.raises(InvalidInputError, match="to_mode"):
        await service.handle_mode_switch("s1", "voice", "smoke-signals")
    with pytest.raises(InvalidInputError, match="to_language"):
        await service.track_language_switch("s1", "en", "", trigger="user_request")
    with pytest.raises(InvalidInputError, match="event_type"):
        await service.add_event("s1", "Not An Event!", {})
    with pytest.raises(InvalidInputError, match="data"):
        await service.add_event("s1", "topic_change", {"x": object()})
    await assert_nothing_stored(service)


async def test_every_error_is_a_unimem_error(service: UnifiedMemoryService):
    with pytest.raises(UnimemError):
        await service.add_entry(session_id="s1", entry={"role": "nobody", "content": ""})
