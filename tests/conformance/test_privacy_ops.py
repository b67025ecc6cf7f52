"""The store's later layers (facts, summaries, deletion, sweep, export, audit), on every backend.

These talk to ``service.store`` directly: they pin down the storage contract
that the service's privacy operations are built on.
"""

from datetime import UTC, datetime, timedelta

import pytest

from unimem import InvalidInputError, MemoryEntry, MemoryEvent, UnifiedMemoryService
from unimem.ids import new_id
from unimem.models import AuditRecord, Fact, Summary

NOW = datetime.now(UTC)
DAY = timedelta(days=1)


def user(content: str, **kw) -> MemoryEntry:
    return MemoryEntry(role="user", content=content, **kw)


async def add(svc: UnifiedMemoryService, sid: str, text: str, uid: str, at: datetime | None = None):
    return await svc.add_entry(session_id=sid, entry=user(text, timestamp=at), user_id=uid)


async def old_event(svc: UnifiedMemoryService, sid: str, uid: str, at: datetime) -> MemoryEvent:
    event = MemoryEvent(
        id=new_id(), session_id=sid, user_id=uid, event_type="topic_change", timestamp=at
    )
    return await svc.store.append_event(event)


def fact(uid: str, text: str, at: datetime, sid: str | None = None) -> Fact:
    return Fact(id=new_id(), user_id=uid, kind="allergy", text=text, created_at=at, session_id=sid)


def summary(sid: str, uid: str, at: datetime = NOW) -> Summary:
    return Summary(session_id=sid, user_id=uid, text="summary", from_seq=1, to_seq=2, created_at=at)


async def test_update_entry_replaces_allowed_fields_only(service: UnifiedMemoryService):
    stored = await add(service, "s1", "my phone is 555", "u1")
    new = await service.store.update_entry(
        "s1", stored.id, {"content": "", "degradations": ["voice_transcript_dropped"]}
    )
    assert new is not None
    assert (new.id, new.seq, new.session_id, new.user_id) == (stored.id, 1, "s1", "u1")
    assert new.content == "" and new.degradations == ["voice_transcript_dropped"]
    [read] = await service.get_history("s1")
    assert read.content == "" and read.degradations == ["voice_transcript_dropped"]
    assert await service.store.update_entry("s1", "no-such-id", {"content": "x"}) is None
    with pytest.raises(InvalidInputError, match="seq"):
        await service.store.update_entry("s1", stored.id, {"seq": 9})


async def test_recent_user_entries_spans_sessions_of_that_user_only(
    service: UnifiedMemoryService,
):
    await add(service, "a", "too old", "u1", NOW - 3 * DAY)
    await add(service, "a", "a-recent", "u1", NOW - DAY)
    await add(service, "b", "b-recent", "u1", NOW - DAY / 2)
    await add(service, "c", "current", "u1")
    await add(service, "x", "someone else", "u2", NOW - DAY)
    store = service.store
    found = await store.recent_user_entries(
        "u1", since=NOW - 2 * DAY, exclude_session="c", limit=10
    )
    assert [e.content for e in found] == ["a-recent", "b-recent"]
    last = await store.recent_user_entries("u1", since=NOW - 2 * DAY, exclude_session=None, limit=2)
    assert [e.content for e in last] == ["b-recent", "current"]


async def test_facts_are_per_user_oldest_first_and_deletable(service: UnifiedMemoryService):
    store = service.store
    second = await store.put_fact(fact("u1", "penicillin", NOW))
    first = await store.put_fact(fact("u1", "latex", NOW - DAY))
    await store.put_fact(fact("u2", "nuts", NOW))
    assert [f.text for f in await store.list_facts("u1")] == ["latex", "penicillin"]
    assert await store.delete_fact("u2", first.id) is False  # not theirs
    assert await store.delete_fact("u1", first.id) is True
    assert await store.delete_fact("u1", first.id) is False
    assert [f.id for f in await store.list_facts("u1")] == [second.id]


async def test_summary_is_replaced_per_session(service: UnifiedMemoryService):
    await service.store.put_summary(summary("s1", "u1"))
    await service.store.put_summary(summary("s1", "u1").model_copy(update={"text": "newer"}))
    got = await service.store.get_summary("s1")
    assert got is not None and got.text == "newer"
    assert await service.store.get_summary("s2") is None


async def _populate(service: UnifiedMemoryService, uid: str) -> None:
    await add(service, f"{uid}-old", "yesterday", uid, NOW - DAY)
    await old_event(service, f"{uid}-old", uid, NOW - DAY)
    await add(service, f"{uid}-old", "today", uid)
    await add(service, f"{uid}-new", "voice", uid)
    await service.add_event(f"{uid}-new", "topic_change", {"topic": "x"}, user_id=uid)
    await service.store.put_summary(summary(f"{uid}-old", uid))
    await service.store.put_fact(fact(uid, "latex", NOW - DAY))
    await service.store.put_fact(fact(uid, "penicillin", NOW))
    await service.update_settings({"retention_days": 7}, user_id=uid)


async def test_delete_all_removes_every_layer_but_settings(service: UnifiedMemoryService):
    await _populate(service, "u1")
    await _populate(service, "u2")
    store = service.store
    counts = await store.delete_user_data("u1", scope="all")
    assert counts == {"entries": 3, "events": 2, "sessions": 2, "summaries": 1, "facts": 2}
    for sid in ("u1-old", "u1-new"):
        assert await store.get_session(sid) is None
        assert await store.get_entries(sid, limit=100) == []
        assert await store.get_events(sid, limit=100) == []
        assert await store.get_summary(sid) is None
    assert await store.list_facts("u1") == []
    assert await store.list_sessions("u1", limit=10) == []
    exported = await store.export_user("u1")
    assert exported["settings"]["retention_days"] == 7
    assert all(exported[k] == [] for k in ("sessions", "entries", "events", "facts", "summaries"))
    other = await store.export_user("u2")
    assert (len(other["entries"]), len(other["facts"]), len(other["summaries"])) == (3, 2, 1)


async def test_delete_sessions_removes_only_the_listed_sessions_of_that_user(
    service: UnifiedMemoryService,
):
    await _populate(service, "u1")
    await _populate(service, "u2")
    store = service.store
    counts = await store.delete_user_data("u1", scope="session", session_ids=["u1-new", "u2-new"])
    assert counts == {"entries": 1, "events": 1, "sessions": 1, "summaries": 0, "facts": 0}
    assert await store.get_session("u1-new") is None
    assert await store.get_session("u2-new") is not None  # another user's session stays
    assert len(await store.get_entries("u1-old", limit=10)) == 2
    assert len(await store.list_facts("u1")) == 2


async def test_delete_day_removes_what_was_written_since(service: UnifiedMemoryService):
    await _populate(service, "u1")
    await _populate(service, "u2")
    store = service.store
    midnight = NOW.replace(hour=0, minute=0, second=0, microsecond=0)
    since = min(midnight, NOW - timedelta(hours=1))
    counts = await store.delete_user_data("u1", scope="day", since=since)
    assert counts == {"entries": 2, "events": 1, "sessions": 1, "summaries": 1, "facts": 1}
    assert [e.content for e in await store.get_entries("u1-old", limit=10)] == ["yesterday"]
    assert len(await store.get_events("u1-old", limit=10)) == 1
    assert await store.get_summary("u1-old") is None  # it may quote today's entries
    assert await store.get_session("u1-new") is None  # nothing left in it
    assert [f.text for f in await store.list_facts("u1")] == ["latex"]
    assert len((await store.export_user("u2"))["entries"]) == 3
    with pytest.raises(InvalidInputError):
        await store.delete_user_data("u1", scope="day")


async def test_paging_still_works_after_a_deletion_left_a_gap(service: UnifiedMemoryService):
    await add(service, "s1", "m1", "u1", NOW - 2 * DAY)
    await add(service, "s1", "m2", "u1", NOW)
    await add(service, "s1", "m3", "u1", NOW - 2 * DAY)
    await service.store.delete_user_data("u1", scope="day", since=NOW - DAY)
    assert [e.seq for e in await service.get_history("s1")] == [1, 3]
    assert [e.seq for e in await service.get_history("s1", before_seq=3)] == [1]
    nxt = await add(service, "s1", "m4", "u1")
    assert nxt.seq == 4


async def test_a_recent_summary_goes_with_the_swept_entries_it_summarized(
    service: UnifiedMemoryService,
):
    store = service.store
    await service.update_settings({"retention_days": 2}, user_id="ann")
    await add(service, "s", "old turn", "ann", NOW - 3 * DAY)
    await add(service, "s", "fresh turn", "ann", NOW - DAY)
    await store.put_summary(summary("s", "ann", NOW))  # rewritten today, covers the old turn
    await add(service, "t", "fresh only", "ann", NOW - DAY)
    await store.put_summary(summary("t", "ann", NOW))

    await store.sweep_expired(now=NOW, default_retention_days=10)
    assert await store.get_summary("s") is None
    assert await store.get_summary("t") is not None  # nothing of it was swept
    assert [e.content for e in await store.get_entries("s", limit=10)] == ["fresh turn"]


async def test_sweep_deletes_what_is_older_than_each_users_retention(
    service: UnifiedMemoryService,
):
    store = service.store
    await service.update_settings({"retention_days": 2}, user_id="short")
    await add(service, "short-s", "old", "short", NOW - 3 * DAY)
    await old_event(service, "short-s", "short", NOW - 3 * DAY)
    await add(service, "short-s", "fresh", "short", NOW - DAY)
    await add(service, "short-gone", "old", "short", NOW - 5 * DAY)
    await store.put_summary(summary("short-gone", "short", NOW - 5 * DAY))
    await store.put_fact(fact("short", "latex", NOW - 9 * DAY))
    await add(service, "default-s", "kept by default", "nobody-set", NOW - 5 * DAY)
    await add(service, "default-s", "gone by default", "nobody-set", NOW - 11 * DAY)

    deleted = await store.sweep_expired(now=NOW, default_retention_days=10)
    # short-s: 1 entry + 1 event; short-gone: 1 entry, its row, its summary; default-s: 1 entry
    assert deleted == 1 + 1 + 3 + 1
    assert [e.content for e in await store.get_entries("short-s", limit=10)] == ["fresh"]
    assert await store.get_events("short-s", event_type="topic_change", limit=10) == []
    assert await store.get_session("short-gone") is None
    assert await store.get_summary("short-gone") is None
    assert [f.text for f in await store.list_facts("short")] == ["latex"]  # facts stay
    assert [e.content for e in await store.get_entries("default-s", limit=10)] == [
        "kept by default"
    ]
    exported = await store.export_user("short")
    assert [e["content"] for e in exported["entries"]] == ["fresh"]  # deleted, not hidden
    assert await store.sweep_expired(now=NOW, default_retention_days=10) == 0


async def test_export_holds_everything_about_the_user(service: UnifiedMemoryService):
    await _populate(service, "u1")
    await add(service, "other", "not mine", "u2")
    exported = await service.store.export_user("u1")
    assert set(exported) >= {"settings", "sessions", "entries", "events", "facts", "summaries"}
    assert sorted(s["session_id"] for s in exported["sessions"]) == ["u1-new", "u1-old"]
    assert sorted(e["content"] for e in exported["entries"]) == ["today", "voice", "yesterday"]
    assert len(exported["events"]) == 2
    assert [f["text"] for f in exported["facts"]] == ["latex", "penicillin"]
    assert [s["session_id"] for s in exported["summaries"]] == ["u1-old"]
    assert all(e["user_id"] == "u1" for e in exported["entries"] + exported["events"])


async def test_audit_log_is_per_user_and_in_order(service: UnifiedMemoryService):
    store = service.store
    for i in range(5):
        for uid in ("u1", "u2"):
            record = AuditRecord(
                id=new_id(),
                timestamp=NOW + timedelta(seconds=i),
                actor="admin",
                action=f"read{i}",
                user_id=uid,
                details={"entries": i},
            )
            await store.append_audit(record)
    records = await store.list_audit("u1", limit=3)
    assert [r.action for r in records] == ["read2", "read3", "read4"]
    assert all(r.user_id == "u1" for r in records)
    assert records[-1].details == {"entries": 4}
    assert await store.list_audit("u3", limit=3) == []
