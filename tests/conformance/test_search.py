"""Long-term recall on every backend: search_memory and the recall block of
build_llm_context (keyword index kept with the entries, filters, privacy,
deletion)."""

import dataclasses
from datetime import UTC, datetime, timedelta

import pytest

from unimem import InvalidInputError, MemoryEntry, UnifiedMemoryService

NOW = datetime.now(UTC)
DAY = timedelta(days=1)


@pytest.fixture
async def service(service: UnifiedMemoryService) -> UnifiedMemoryService:
    """The backend's service with no automatic facts: these tests count the
    turns found (the facts turns state are found too, see test_facts_auto)."""
    config = dataclasses.replace(service.config, auto_facts=False)
    return UnifiedMemoryService(service.store, config=config)


async def say(
    svc: UnifiedMemoryService,
    sid: str,
    text: str,
    uid: str = "alice",
    *,
    at: datetime | None = None,
    mode: str = "text",
    language: str = "en",
    role: str = "user",
) -> MemoryEntry:
    entry = MemoryEntry(
        role=role,
        content=text,
        mode=mode,
        language=language,
        detected_language=language,
        timestamp=at,
    )
    return await svc.add_entry(sid, entry, user_id=uid)


async def found(svc: UnifiedMemoryService, query: str, uid: str = "alice", **kw) -> list[str]:
    hits = await svc.search_memory(query, user_id=uid, **kw)
    return [h.snippet for h in hits]


async def test_an_entry_is_found_by_keyword_as_soon_as_it_is_stored(service):
    stored = await say(service, "s1", "The cardiologist raised my lisinopril to 20 mg")
    await say(service, "s2", "it is raining again today")
    [hit] = await service.search_memory("lisinopril dose", user_id="alice")
    assert hit.kind == "entry" and hit.entry is not None
    # as stored (a degradation the cache layer reported on the write is not stored)
    assert hit.entry.model_dump(exclude={"degradations"}) == stored.model_dump(
        exclude={"degradations"}
    )
    assert hit.session_id == "s1" and hit.id == stored.id and hit.timestamp == stored.timestamp
    assert hit.snippet == stored.content and hit.score > 0 and hit.matched_by == ["keyword"]


async def test_search_ranks_the_turn_with_more_of_the_query_first(service):
    await say(service, "s1", "picked up the metformin at the pharmacy")
    await say(service, "s2", "the doctor changed my metformin dose to 1000 milligrams")
    await say(service, "s3", "we talked about the weather")
    hits = await found(service, "metformin dose")
    assert hits[0] == "the doctor changed my metformin dose to 1000 milligrams"
    assert len(hits) == 2


async def test_another_users_memory_is_never_searched(service):
    await say(service, "s1", "my potassium was 5.2", uid="bob")
    assert await found(service, "potassium") == []
    assert await found(service, "potassium", uid="bob") == ["my potassium was 5.2"]
    # another user's session reads as one never used: nothing found, no error
    assert await service.search_memory("potassium", user_id="alice", session_id="s1") == []
    assert await service.search_memory("potassium", user_id="alice", session_id="none") == []


@pytest.mark.parametrize(
    ("text", "query"),
    [
        ("我今天看了心脏科医生，她说我的钾有点高", "心脏科医生怎么说"),
        ("頭痛がひどいです", "頭痛"),
        ("두통이 심해요", "두통"),
        ("رأيت طبيب القلب اليوم", "ماذا قال طبيب القلب"),
        ("आज मैं हृदय रोग विशेषज्ञ से मिली", "हृदय रोग विशेषज्ञ ने क्या कहा"),
        ("el cardiólogo me cambió la dosis", "qué dijo el cardiologo"),
        ("j'ai vu l'endocrinologue hier", "endocrinologue"),
        ("I've had headaches all week", "headache"),
    ],
)
async def test_search_works_in_every_script(service, text, query):
    await say(service, "s1", text)
    await say(service, "s1", "nothing to do with it")
    assert await found(service, query) == [text]


async def test_filters_by_session_time_mode_language_and_kind(service):
    old = await say(service, "s1", "aspirin in the morning", at=NOW - 10 * DAY, mode="voice")
    new = await say(service, "s2", "aspirin at night", at=NOW - DAY, language="es")
    await service.add_fact("takes aspirin daily", "medication", user_id="alice")
    assert await found(service, "aspirin", session_id="s1") == [old.content]
    assert await found(service, "aspirin", since=NOW - 2 * DAY, kinds=["entry"]) == [new.content]
    assert await found(service, "aspirin", until=NOW - 2 * DAY, kinds=["entry"]) == [old.content]
    assert await found(service, "aspirin", modes=["voice"], kinds=["entry"]) == [old.content]
    assert await found(service, "aspirin", languages=["es"], kinds=["entry"]) == [new.content]
    assert await found(service, "aspirin", kinds=["fact"]) == ["takes aspirin daily"]
    assert len(await found(service, "aspirin")) == 3
    assert len(await found(service, "aspirin", k=1)) == 1


@pytest.mark.parametrize(
    "kwargs",
    [
        {"query": ""},
        {"query": "   "},
        {"query": "x", "k": 0},
        {"query": "x", "k": 101},
        {"query": "x", "kinds": ["turns"]},
        {"query": "x", "modes": ["video"]},
        {"query": "x", "languages": ["english please"]},
        {"query": "x", "since": "yesterday"},
        {"query": "x", "since": NOW, "until": NOW - DAY},
        {"query": "x", "session_id": "bad id!"},
    ],
)
async def test_bad_search_arguments_are_refused_with_the_field_named(service, kwargs):
    kwargs = dict(kwargs)
    query = kwargs.pop("query")
    with pytest.raises(InvalidInputError) as info:
        await service.search_memory(query, user_id="alice", **kwargs)
    assert info.value.field in {"query", *kwargs}


async def test_cross_session_off_searches_only_the_named_session(service):
    await say(service, "s1", "warfarin five milligrams")
    await say(service, "s2", "warfarin was stopped")
    await service.update_settings({"cross_session": False}, user_id="alice")
    assert await found(service, "warfarin") == []
    assert await found(service, "warfarin", session_id="s2") == ["warfarin was stopped"]
    context = await service.build_llm_context("s3", "what about warfarin?", user_id="alice")
    assert "warfarin five" not in str(context)


async def test_memory_off_indexes_nothing(service):
    await service.update_settings({"enabled": False}, user_id="alice")
    await say(service, "s1", "my insulin pen is blue")
    await service.update_settings({"enabled": True}, user_id="alice")
    assert await found(service, "insulin") == []


@pytest.mark.parametrize("scope", ["session", "day", "all"])
async def test_deleted_entries_leave_the_index(service, scope):
    await say(service, "s1", "old note about ibuprofen", at=NOW - 3 * DAY)
    await say(service, "s2", "new note about ibuprofen")
    kwargs = {"session_id": "s2"} if scope == "session" else {}
    await service.delete_user_memory(scope, user_id="alice", **kwargs)
    left = await found(service, "ibuprofen")
    assert left == ([] if scope == "all" else ["old note about ibuprofen"])


async def test_one_deleted_message_leaves_the_index(service):
    gone = await say(service, "s1", "a note about codeine")
    await say(service, "s1", "another note about codeine")
    assert await service.delete_entry("s1", gone.id, user_id="alice")
    assert await found(service, "codeine") == ["another note about codeine"]


async def test_swept_entries_leave_the_index(service):
    await service.update_settings({"retention_days": 2}, user_id="alice")
    await say(service, "s1", "expired gabapentin note", at=NOW - 5 * DAY)
    await say(service, "s2", "fresh gabapentin note")
    await service.store.sweep_expired(now=NOW, default_retention_days=30)
    assert await found(service, "gabapentin") == ["fresh gabapentin note"]


async def test_an_updated_entry_is_found_by_its_new_text(service):
    stored = await say(service, "s1", "prednisone ten milligrams")
    await service.store.update_entry("s1", stored.id, {"content": "hydrocortisone instead"})
    assert await found(service, "prednisone") == []
    assert await found(service, "hydrocortisone") == ["hydrocortisone instead"]


async def test_a_new_session_context_recalls_dated_turns_of_earlier_sessions(service):
    when = datetime(2026, 5, 8, 10, 0, tzinfo=UTC)
    await say(
        service, "visit", "the cardiologist said my potassium was high", at=when, mode="voice"
    )
    await say(service, "chat", "we watched a film about penguins", at=when + DAY)
    context = await service.build_llm_context(
        "today", "what did the cardiologist say about my potassium?", user_id="alice"
    )
    text = "\n".join(m["content"] for m in context)
    assert "[2026-05-08, voice] user: the cardiologist said my potassium was high" in text
    assert "penguins" not in text
    recall = next(m for m in context if "earlier conversations" in m["content"])
    assert recall["role"] == "system" and "(keyword)" in recall["content"]
    assert context.token_count <= 4000


async def test_nothing_is_recalled_when_nothing_is_relevant(service):
    await say(service, "s1", "the cardiologist said my potassium was high")
    context = await service.build_llm_context("s2", "tell me a joke", user_id="alice")
    assert not any("earlier conversations" in m["content"] for m in context)


async def test_a_follow_up_question_is_read_with_the_turn_before_it(service):
    await say(service, "s1", "the doctor put me on metformin 500 milligrams")
    await say(service, "s1", "the doctor put me on lisinopril 10 milligrams")
    await say(service, "s2", "let's talk about my metformin")
    context = await service.build_llm_context("s2", "and the dose?", user_id="alice")
    text = "\n".join(m["content"] for m in context)
    assert "metformin 500 milligrams" in text


async def test_recall_keeps_within_a_small_budget(service):
    for i in range(40):
        await say(service, f"s{i}", f"note {i} about the amlodipine and my blood pressure")
    context = await service.build_llm_context(
        "new", "amlodipine blood pressure", user_id="alice", max_tokens=300
    )
    assert context.token_count <= 300
    assert any("amlodipine" in m["content"] for m in context if m["role"] == "system")
