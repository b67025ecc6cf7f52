"""Events, mode/language switches, sessions and settings, on every backend."""

import pytest

from unimem import (
    EventType,
    MemoryEntry,
    MemorySettings,
    SessionClosedError,
    SessionNotFoundError,
    UnifiedMemoryService,
)


async def test_add_event_accepts_enum_and_string(service: UnifiedMemoryService):
    a = await service.add_event(session_id="s1", event_type=EventType.TOPIC_CHANGE, data={"t": 1})
    b = await service.add_event(session_id="s1", event_type="rag_retrieval", data={"n": 5})
    assert (a.event_type, b.event_type) == ("topic_change", "rag_retrieval")
    assert (a.seq, b.seq) == (1, 2)
    events = await service.get_events("s1")
    assert [e.event_type for e in events] == ["topic_change", "rag_retrieval"]
    assert events[1]["n"] == 5
    assert events[0].timestamp is not None


async def test_get_events_is_newest_last_and_limited(service: UnifiedMemoryService):
    for i in range(15):
        await service.add_event(session_id="s1", event_type="topic_change", data={"i": i})
    events = await service.get_events("s1", limit=10)
    assert [e["i"] for e in events] == list(range(5, 15))


async def test_track_language_switch_updates_session_language(service: UnifiedMemoryService):
    await service.add_entry(
        session_id="s1", entry=MemoryEntry(role="user", content="hi", language="en")
    )
    event = await service.track_language_switch("s1", "en", "ar", "explicit_setting")
    assert event["trigger"] == "explicit_setting"
    ctx = await service.get_context("s1")
    assert ctx.current_language == "ar"
    assert ctx.language_events[-1]["to_language"] == "ar"


async def test_handle_mode_switch_returns_context_and_records_event(
    service: UnifiedMemoryService,
):
    await service.add_entry(
        session_id="s1", entry=MemoryEntry(role="user", content="spoken", mode="voice")
    )
    ctx = await service.handle_mode_switch("s1", "voice", "text")
    assert ctx.current_mode == "text"
    assert ctx.messages[0].content == "spoken"
    [event] = await service.get_events("s1", "mode_switch")
    assert (event["from_mode"], event["to_mode"]) == ("voice", "text")
    # typing after the explicit switch is not another switch
    await service.add_entry(session_id="s1", entry=MemoryEntry(role="user", content="typed"))
    assert len(await service.get_events("s1", "mode_switch")) == 1


async def test_closed_session_refuses_writes_but_stays_readable(service: UnifiedMemoryService):
    await service.add_entry(session_id="s1", entry=MemoryEntry(role="user", content="bye"))
    info = await service.close_session("s1")
    assert info.closed
    with pytest.raises(SessionClosedError):
        await service.add_entry(session_id="s1", entry=MemoryEntry(role="user", content="more"))
    assert [e.content for e in await service.get_history("s1")] == ["bye"]
    assert (await service.close_session("s1")).closed_at == info.closed_at


async def test_session_of_another_user_is_not_found(service: UnifiedMemoryService):
    await service.add_entry(
        session_id="s1", entry=MemoryEntry(role="user", content="mine"), user_id="alice"
    )
    with pytest.raises(SessionNotFoundError):
        await service.add_entry(
            session_id="s1", entry=MemoryEntry(role="user", content="intrude"), user_id="mallory"
        )
    for write in (
        lambda: service.get_session("s1", user_id="mallory"),
        lambda: service.add_event("s1", "topic_change", {}, user_id="mallory"),
        lambda: service.close_session("s1", user_id="mallory"),
    ):
        with pytest.raises(SessionNotFoundError):
            await write()
    # reads answer as for a session never used
    assert (await service.get_context("s1", user_id="mallory")).messages == []
    assert await service.get_history("s1", user_id="mallory") == []
    assert await service.get_events("s1", user_id="mallory") == []
    assert await service.extend_ttl("s1", user_id="mallory") is False
    assert len(await service.get_history("s1")) == 1


async def test_extend_ttl_reports_whether_session_exists(service: UnifiedMemoryService):
    assert await service.extend_ttl("nope") is False
    await service.add_entry(session_id="s1", entry=MemoryEntry(role="user", content="x"))
    assert await service.extend_ttl("s1") is True


async def test_settings_default_persist_and_merge(service: UnifiedMemoryService):
    assert await service.get_settings(user_id="alice") == MemorySettings()
    await service.update_settings(
        MemorySettings(retention_days=90, anonymize_phi=False), user_id="alice"
    )
    merged = await service.update_settings({"cross_session": False}, user_id="alice")
    assert merged.retention_days == 90 and merged.cross_session is False
    assert await service.get_settings(user_id="alice") == merged
    assert await service.get_settings(user_id="bob") == MemorySettings()


async def test_list_sessions_newest_first(service: UnifiedMemoryService):
    for sid in ("a", "b", "c"):
        await service.add_entry(
            session_id=sid, entry=MemoryEntry(role="user", content=sid), user_id="u"
        )
    await service.add_entry(
        session_id="z", entry=MemoryEntry(role="user", content="z"), user_id="other"
    )
    sessions = await service.list_sessions(user_id="u")
    assert [s.session_id for s in sessions] == ["c", "b", "a"]
    assert [s.session_id for s in await service.list_sessions(user_id="u", limit=1, offset=1)] == [
        "b"
    ]
