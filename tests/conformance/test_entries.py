"""Entries: what add_entry stores and how it reads back, on every backend."""

import asyncio
import uuid
from datetime import UTC, datetime

from unimem import MemoryEntry, Mode, Role, UnifiedMemoryService


def user(content: str, **kw) -> MemoryEntry:
    return MemoryEntry(role="user", content=content, **kw)


async def test_add_entry_fills_id_user_timestamp_and_seq(service: UnifiedMemoryService):
    before = datetime.now(UTC)
    stored = await service.add_entry(session_id="s1", entry=user("hello", language="en"))
    assert uuid.UUID(stored.id).version == 7
    assert stored.session_id == "s1"
    assert stored.user_id == service.config.default_user_id
    assert stored.timestamp is not None and stored.timestamp.tzinfo is not None
    assert stored.timestamp >= before
    assert stored.seq == 1
    assert stored.detected_language == "en"


async def test_seq_increases_per_session_independently(service: UnifiedMemoryService):
    a1 = await service.add_entry(session_id="a", entry=user("one"))
    b1 = await service.add_entry(session_id="b", entry=user("one"))
    a2 = await service.add_entry(session_id="a", entry=user("two"))
    assert (a1.seq, a2.seq, b1.seq) == (1, 2, 1)


async def test_user_id_comes_from_argument_then_entry(service: UnifiedMemoryService):
    by_arg = await service.add_entry(session_id="s1", entry=user("x"), user_id="alice")
    by_entry = await service.add_entry(session_id="s2", entry=user("x", user_id="bob"))
    assert by_arg.user_id == "alice"
    assert by_entry.user_id == "bob"


async def test_retry_with_same_id_is_not_stored_twice(service: UnifiedMemoryService):
    entry = user("only once", id="0190a000-0000-7000-8000-000000000001")
    first = await service.add_entry(session_id="s1", entry=entry)
    again = await service.add_entry(session_id="s1", entry=entry)
    assert again.seq == first.seq == 1
    assert again.id == first.id
    history = await service.get_history("s1")
    assert [e.content for e in history] == ["only once"]


async def test_history_is_oldest_first_and_limited(service: UnifiedMemoryService):
    for i in range(12):
        await service.add_entry(session_id="s1", entry=user(f"m{i}"))
    history = await service.get_history("s1", max_messages=5)
    assert [e.content for e in history] == [f"m{i}" for i in range(7, 12)]
    older = await service.get_history("s1", max_messages=5, before_seq=history[0].seq)
    assert [e.content for e in older] == [f"m{i}" for i in range(2, 7)]


async def test_load_history_reads_state_and_entries_together(service: UnifiedMemoryService):
    store = service.store
    assert await store.load_history("nobody", limit=5) == (None, [])
    for i in range(7):
        await service.add_entry(session_id="s1", entry=user(f"m{i}"), user_id="alice")
    state, entries = await store.load_history("s1", limit=3)
    assert state is not None and state.user_id == "alice" and state.message_count == 7
    assert [e.content for e in entries] == ["m4", "m5", "m6"]
    state, older = await store.load_history("s1", limit=3, before_seq=entries[0].seq)
    assert [e.content for e in older] == ["m1", "m2", "m3"]


async def test_history_of_another_users_session_is_empty(service: UnifiedMemoryService):
    await service.add_entry(session_id="s1", entry=user("mine"), user_id="alice")
    assert await service.get_history("s1", user_id="mallory") == []
    assert [e.content for e in await service.get_history("s1", user_id="alice")] == ["mine"]


async def test_history_beyond_the_hot_window(service: UnifiedMemoryService):
    for i in range(60):
        await service.add_entry(session_id="s1", entry=user(f"m{i}"))
    history = await service.get_history("s1", max_messages=60)
    assert [e.seq for e in history] == list(range(1, 61))


async def test_all_fields_round_trip(service: UnifiedMemoryService):
    entry = MemoryEntry(
        role=Role.ASSISTANT,
        content="Metformin lowers blood glucose.",
        mode=Mode.VOICE,
        language="en",
        detected_language="en",
        retrieved_passages=["Metformin is a biguanide."],
        sources=[{"title": "Formulary", "page": 12}],
        latency_ms=412.5,
        degradations=["rag_reduced_to_3"],
        phi_detected=False,
        metadata={"turn": 3, "nested": {"a": [1, 2]}},
    )
    stored = await service.add_entry(session_id="s1", entry=entry)
    [read] = await service.get_history("s1")
    assert read == stored
    assert read.sources == [{"title": "Formulary", "page": 12}]
    assert read.metadata == {"turn": 3, "nested": {"a": [1, 2]}}
    assert read.latency_ms == 412.5


async def test_unicode_round_trips_byte_for_byte(service: UnifiedMemoryService):
    texts = [
        "ما هو الميتفورمين؟",
        "میں ٹھیک ہوں",
        "糖尿病是什么？",
        "당뇨병",
        "मधुमेह क्या है",
        "emoji 🩺💊🇵🇹 zwj 👩‍⚕️",
        "rtl mark \u200f and \u202b embedding \u202c",
    ]
    for text in texts:
        await service.add_entry(session_id="s1", entry=user(text))
    history = await service.get_history("s1")
    assert [e.content.encode("utf-8") for e in history] == [t.encode("utf-8") for t in texts]


async def test_fifty_concurrent_writes_get_gap_free_seq(service: UnifiedMemoryService):
    results = await asyncio.gather(
        *(service.add_entry(session_id="busy", entry=user(f"m{i}")) for i in range(50))
    )
    assert sorted(e.seq for e in results) == list(range(1, 51))
    history = await service.get_history("busy", max_messages=100)
    assert [e.seq for e in history] == list(range(1, 51))
    assert {e.content for e in history} == {f"m{i}" for i in range(50)}


async def test_a_detected_language_takes_the_sessions_spelling_at_commit(
    service: UnifiedMemoryService,
):
    """A typed turn's detected ``pt`` in a session that is ``pt-BR`` keeps
    ``pt-BR`` and does not switch: the store decides against the state it
    commits on. A detected ``es`` switches from ``pt-BR``; an explicit ``pt``
    is the caller's choice and switches too."""
    portuguese = "eu tenho tomado os comprimidos para a pressão todas as manhãs com o café"
    spanish = "he tomado las pastillas para la presión todas las mañanas con el desayuno"
    await service.add_entry("s1", user("bom dia", language="pt-BR"), user_id="u1")
    same = await service.add_entry("s1", user(portuguese), user_id="u1")
    assert (same.language, same.detected_language, same.language_switched) == (
        "pt-BR",
        "pt",
        False,
    )
    other = await service.add_entry("s1", user(spanish), user_id="u1")
    assert (other.language, other.language_switched) == ("es", True)
    explicit = await service.add_entry("s1", user(portuguese, language="pt"), user_id="u1")
    assert (explicit.language, explicit.language_switched) == ("pt", True)
    switches = await service.get_events("s1", event_type="language_switch", limit=10)
    assert [
        (e.data["from_language"], e.data["to_language"], e.data["trigger"]) for e in switches
    ] == [
        ("pt-BR", "es", "auto_detected"),
        ("es", "pt", "auto_detected"),
    ]
    assert (await service.get_session("s1", user_id="u1")).languages_used == ["pt-BR", "es", "pt"]
