"""A session's ``message_count`` and ``event_count`` say what it holds after
every deletion (the retention sweep, a day's deletion, one entry), on every
backend and through the Redis cache's session state; ``seq`` is never given
twice (``last_entry_seq`` / ``last_event_seq`` keep counting)."""

from datetime import UTC, datetime, timedelta

from unimem import MemoryEntry, MemoryEvent, UnifiedMemoryService
from unimem.ids import new_id
from unimem.models import SessionInfo
from unimem.stores.rows import session_from_json

DAY = timedelta(days=1)


def turn(text: str, at: datetime | None = None) -> MemoryEntry:
    return MemoryEntry(role="user", content=text, language="en", timestamp=at)


async def topic(service: UnifiedMemoryService, at: datetime) -> MemoryEvent:
    event = MemoryEvent(
        id=new_id(), session_id="s1", user_id="ann", event_type="topic_change", timestamp=at
    )
    return await service.store.append_event(event)


async def counts(service: UnifiedMemoryService) -> tuple[int, int]:
    state = await service.get_session("s1", user_id="ann")
    [listed] = await service.list_sessions(user_id="ann")
    assert (listed.message_count, listed.event_count) == (state.message_count, state.event_count)
    return state.message_count, state.event_count


async def test_counts_after_the_retention_sweep(service: UnifiedMemoryService) -> None:
    now = datetime.now(UTC)
    await service.update_settings({"retention_days": 2}, user_id="ann")
    for i, age in enumerate((5, 4, 1, 0)):
        await service.add_entry("s1", turn(f"turn {i}", now - age * DAY), user_id="ann")
    await topic(service, now - 5 * DAY)
    await topic(service, now - DAY)
    assert await counts(service) == (4, 2)
    await service.get_context("s1", user_id="ann")  # cached where there is a cache

    assert await service.sweep_retention(now=now) == 3
    assert await counts(service) == (2, 1)
    # numbering goes on after the highest seq given, never reusing one
    stored = await service.add_entry("s1", turn("turn 4"), user_id="ann")
    assert stored.seq == 5
    assert [e.seq for e in await service.get_history("s1")] == [3, 4, 5]
    assert (await topic(service, now)).seq == 3
    state = await service.get_session("s1", user_id="ann")
    assert (state.message_count, state.event_count) == (3, 2)
    assert (state.last_entry_seq, state.last_event_seq) == (5, 3)
    assert (await service.get_context("s1", user_id="ann")).session == state


async def test_counts_after_deleting_one_entry_and_a_day(service: UnifiedMemoryService) -> None:
    now = datetime.now(UTC)
    await service.add_entry("s1", turn("yesterday", now - 2 * DAY), user_id="ann")
    first = await service.add_entry("s1", turn("today one"), user_id="ann")
    await service.add_entry("s1", turn("today two"), user_id="ann")
    await service.get_context("s1", user_id="ann")
    assert await service.delete_entry("s1", first.id, user_id="ann")
    assert await counts(service) == (2, 0)
    assert (await service.add_entry("s1", turn("today three"), user_id="ann")).seq == 4

    await service.delete_user_memory("day", user_id="ann")
    assert await counts(service) == (1, 0)
    assert (await service.add_entry("s1", turn("later"), user_id="ann")).seq == 5
    assert await counts(service) == (2, 0)


def test_a_state_stored_before_the_last_seqs_takes_them_from_its_counts() -> None:
    old = (
        '{"session_id":"s1","user_id":"ann","started_at":"2026-01-01T00:00:00Z",'
        '"last_active_at":"2026-01-01T00:00:00Z","closed_at":null,"current_mode":"text",'
        '"current_language":"en","message_count":7,"event_count":2,"modes_used":["text"],'
        '"languages_used":["en"]}'
    )
    state = session_from_json(old)
    assert (state.last_entry_seq, state.last_event_seq) == (7, 2)
    assert SessionInfo.model_validate_json(old) == state
