"""get_context and the automatic switch events, on every backend."""

from unimem import MemoryEntry, MemorySettings, UnifiedMemoryService
from unimem.stores.base import RECENT_SCAN


def entry(role: str, content: str, **kw) -> MemoryEntry:
    return MemoryEntry(role=role, content=content, **kw)


async def test_voice_then_text_is_one_conversation(service: UnifiedMemoryService):
    await service.add_entry(session_id="s1", entry=entry("user", "I take metformin", mode="voice"))
    await service.add_entry(session_id="s1", entry=entry("assistant", "Noted.", mode="voice"))
    await service.add_entry(session_id="s1", entry=entry("user", "how much?", mode="text"))
    ctx = await service.get_context("s1")
    assert [m.mode for m in ctx.messages] == ["voice", "voice", "text"]
    assert ctx.current_mode == "text"
    assert len(ctx.mode_events) == 1
    assert ctx.mode_events[0]["from_mode"] == "voice"
    assert ctx.mode_events[0]["to_mode"] == "text"


async def test_language_change_marks_entry_and_records_event(service: UnifiedMemoryService):
    await service.add_entry(session_id="s1", entry=entry("user", "hello", language="en"))
    switched = await service.add_entry(session_id="s1", entry=entry("user", "hola", language="es"))
    same = await service.add_entry(session_id="s1", entry=entry("user", "gracias", language="es"))
    assert switched.language_switched is True
    assert same.language_switched is False
    events = await service.get_events("s1", "language_switch")
    assert [(e["from_language"], e["to_language"], e["trigger"]) for e in events] == [
        ("en", "es", "auto_detected")
    ]
    ctx = await service.get_context("s1")
    assert ctx.current_language == "es"


async def test_explicit_trigger_is_recorded(service: UnifiedMemoryService):
    await service.add_entry(session_id="s1", entry=entry("user", "hello", language="en"))
    await service.add_entry(
        session_id="s1", entry=entry("user", "bonjour", language="fr"), trigger="user_request"
    )
    [event] = await service.get_events("s1", "language_switch")
    assert event["trigger"] == "user_request"


async def test_assistant_entries_do_not_switch_the_session(service: UnifiedMemoryService):
    await service.add_entry(session_id="s1", entry=entry("user", "hi", mode="voice", language="en"))
    await service.add_entry(
        session_id="s1", entry=entry("assistant", "hola", mode="text", language="es")
    )
    ctx = await service.get_context("s1")
    assert (ctx.current_mode, ctx.current_language) == ("voice", "en")
    assert ctx.mode_events == [] and ctx.language_events == []


async def test_entry_without_language_inherits_the_session_language(
    service: UnifiedMemoryService,
):
    await service.add_entry(session_id="s1", entry=entry("user", "hola", language="es"))
    later = await service.add_entry(session_id="s1", entry=entry("assistant", "¿Qué tal?"))
    assert later.language == "es"
    assert later.language_switched is False


async def test_context_window_and_rag(service: UnifiedMemoryService):
    for i in range(15):
        await service.add_entry(session_id="s1", entry=entry("user", f"q{i}"))
    await service.add_entry(
        session_id="s1",
        entry=entry(
            "assistant",
            "answer",
            retrieved_passages=["p1", "p2"],
            sources=[{"id": "doc-1"}],
        ),
    )
    ctx = await service.get_context("s1", max_messages=10)
    assert len(ctx.messages) == 10
    assert ctx.messages[-1].content == "answer"
    assert ctx.messages[0].content == "q6"
    assert ctx.rag_context.passages == ["p1", "p2"]
    assert ctx.rag_context.sources == [{"id": "doc-1"}]
    bare = await service.get_context("s1", include_rag=False)
    assert bare.rag_context.passages == []


async def test_context_carries_session_metadata_and_settings(service: UnifiedMemoryService):
    await service.update_settings(MemorySettings(retention_days=7), user_id="alice")
    await service.add_entry(
        session_id="s1", entry=entry("user", "a", mode="voice"), user_id="alice"
    )
    await service.add_entry(session_id="s1", entry=entry("user", "b", mode="text"), user_id="alice")
    ctx = await service.get_context("s1")
    assert ctx.user_id == "alice"
    assert ctx.settings.retention_days == 7
    assert ctx.preferences is ctx.settings
    assert ctx.session is not None
    assert ctx.session.message_count == 2
    assert set(ctx.session.modes_used) == {"voice", "text"}
    assert ctx.session.started_at <= ctx.session.last_active_at


async def test_unknown_session_gives_empty_context(service: UnifiedMemoryService):
    ctx = await service.get_context("never-written")
    assert ctx.messages == []
    assert ctx.session is None


async def test_only_last_five_switch_events_in_context(service: UnifiedMemoryService):
    modes = ["voice", "text"] * 5
    for i, mode in enumerate(modes):
        await service.add_entry(session_id="s1", entry=entry("user", f"m{i}", mode=mode))
    ctx = await service.get_context("s1")
    assert len(ctx.mode_events) == 5
    seqs = [e.seq for e in ctx.mode_events]
    assert seqs == sorted(seqs)
    all_switches = await service.get_events("s1", "mode_switch", limit=100)
    assert len(all_switches) == 9
    assert all_switches[-5:] == ctx.mode_events


async def test_recent_turns_come_from_the_users_last_turns_of_the_day(
    service: UnifiedMemoryService,
):
    """Cross-session recall looks through the user's last RECENT_SCAN turns of
    the last 24 h (the short-term layer's size), on every store alike: turns of
    another session behind that many newer ones are not recalled, and the cost
    does not grow with the length of the current session."""
    await service.add_entry(
        "earlier", MemoryEntry(role="user", content="allergic to latex"), user_id="u1"
    )
    for i in range(RECENT_SCAN - 2):
        await service.add_entry("now", MemoryEntry(role="user", content=f"turn {i}"), user_id="u1")
    ctx = await service.get_context("now", max_messages=5)
    assert [e.content for e in ctx.recent] == ["allergic to latex"]  # still among the last
    for i in range(2):
        await service.add_entry("now", MemoryEntry(role="user", content=f"more {i}"), user_id="u1")
    ctx = await service.get_context("now", max_messages=5)
    assert ctx.recent == []  # RECENT_SCAN newer turns of this session since
    fresh = await service.get_context("new", user_id="u1")  # a new session: the last 10
    newest = [f"turn {i}" for i in range(RECENT_SCAN - 2)] + ["more 0", "more 1"]
    assert [e.content for e in fresh.recent] == newest[-10:]
