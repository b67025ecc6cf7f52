"""Pinned facts (episodic layer) and barge-in interruptions, on every backend."""

from __future__ import annotations

import pytest

from unimem import (
    EntryNotFoundError,
    InvalidInputError,
    MemoryEntry,
    SessionNotFoundError,
)


async def _chatter(service, session_id: str, turns: int, user_id: str | None = None) -> None:
    for i in range(turns):
        await service.add_entry(
            session_id,
            MemoryEntry(
                role="user" if i % 2 == 0 else "assistant",
                content=f"Turn {i}: the weather, the bus and the weekend, nothing important.",
            ),
            user_id=user_id,
        )


async def test_add_list_delete_facts(service):
    fact = await service.add_fact("Allergic to penicillin", user_id="alice", kind="allergy")
    assert fact.id and fact.user_id == "alice" and fact.kind == "allergy"
    assert fact.created_at is not None
    assert [f.id for f in await service.list_facts(user_id="alice")] == [fact.id]
    assert await service.list_facts(user_id="bob") == []
    assert await service.delete_fact(fact.id, user_id="bob") is False  # not bob's
    assert await service.delete_fact(fact.id, user_id="alice") is True
    assert await service.list_facts(user_id="alice") == []


async def test_facts_follow_the_privacy_settings(service):
    fact = await service.add_fact(
        "Daughter's phone is 555-867-5309", user_id="alice", kind="contact"
    )
    assert "867-5309" not in fact.text
    assert "867-5309" not in (await service.list_facts(user_id="alice"))[0].text
    await service.update_settings({"enabled": False}, user_id="bob")
    await service.add_fact("Allergic to latex", user_id="bob", kind="allergy")
    assert await service.list_facts(user_id="bob") == []


@pytest.mark.parametrize(("text", "kind"), [("", "note"), ("   ", "note"), ("ok", "")])
async def test_bad_facts_are_refused(service, text, kind):
    with pytest.raises(InvalidInputError):
        await service.add_fact(text, user_id="alice", kind=kind)


async def test_facts_survive_truncation_and_session_close_in_every_session(service):
    await service.update_settings({"anonymize_phi": False}, user_id="alice")  # a name is PHI
    await service.add_fact("Preferred name: Maggie", user_id="alice", kind="preference")
    await service.add_fact("Takes warfarin 5 mg at night", user_id="alice", kind="medication")
    await _chatter(service, "visit-1", 60, user_id="alice")
    context = await service.build_llm_context("visit-1", "hi", max_tokens=120, user_id="alice")
    assert context.token_count <= 120
    text = "\n".join(m["content"] for m in context)
    assert "Preferred name: Maggie" in text and "warfarin 5 mg" in text
    await service.close_session("visit-1", user_id="alice")
    await service.add_entry("visit-2", MemoryEntry(role="user", content="Hi"), user_id="alice")
    later = await service.build_llm_context("visit-2", "hello", user_id="alice")
    assert "warfarin 5 mg" in later[1]["content"]
    other = await service.build_llm_context("visit-3", "hello", user_id="bob")
    assert "warfarin" not in "\n".join(m["content"] for m in other)


async def test_pin_entry_pins_its_content(service):
    entry = await service.add_entry(
        "s1", MemoryEntry(role="user", content="I'm allergic to sulfa drugs."), user_id="alice"
    )
    fact = await service.pin_entry("s1", entry.id, user_id="alice")
    assert (fact.kind, fact.text, fact.session_id, fact.entry_id) == (
        "pinned_entry",
        "I'm allergic to sulfa drugs.",
        "s1",
        entry.id,
    )
    again = await service.pin_entry("s1", entry.id, user_id="alice")
    assert again.id == fact.id
    pinned = [f for f in await service.list_facts(user_id="alice") if f.kind == "pinned_entry"]
    assert pinned == [fact]
    await _chatter(service, "s1", 60, user_id="alice")
    context = await service.build_llm_context("s1", "hi", max_tokens=150, user_id="alice")
    assert "- [pinned_entry] I'm allergic to sulfa drugs." in context[1]["content"]
    assert await service.delete_fact(fact.id, user_id="alice")
    context = await service.build_llm_context("s1", "hi", max_tokens=150, user_id="alice")
    assert "[pinned_entry]" not in "\n".join(m["content"] for m in context)


async def test_pin_entry_errors(service):
    await service.add_entry("s1", MemoryEntry(role="user", content="x"), user_id="alice")
    with pytest.raises(EntryNotFoundError):
        await service.pin_entry("s1", "no-such-entry", user_id="alice")
    with pytest.raises(SessionNotFoundError):
        await service.pin_entry("s1", "no-such-entry", user_id="mallory")
    with pytest.raises(SessionNotFoundError):
        await service.pin_entry("nope", "x", user_id="alice")


GENERATED = (
    "Metformin lowers blood sugar. Take it with meals. The usual starting dose is 500 mg "
    "once or twice a day, and side effects such as nausea usually pass within weeks."
)


async def test_mark_interrupted_keeps_what_was_heard(service):
    await service.add_entry(
        "s1", MemoryEntry(role="user", content="What is metformin?", mode="voice")
    )
    answer = await service.add_entry(
        "s1", MemoryEntry(role="assistant", content=GENERATED, mode="voice")
    )
    updated = await service.mark_interrupted("s1", answer.id, "Metformin lowers blood sugar.")
    assert updated.id == answer.id and updated.seq == answer.seq
    assert updated.content == "Metformin lowers blood sugar."
    assert updated.metadata["generated_text"] == GENERATED
    assert updated.metadata["interrupted"] is True
    stored = (await service.get_history("s1"))[-1]
    assert stored.content == "Metformin lowers blood sugar."
    events = await service.get_events("s1", event_type="interruption")
    assert len(events) == 1
    assert events[0]["entry_id"] == answer.id
    assert events[0]["spoken_chars"] == len("Metformin lowers blood sugar.")
    assert "Metformin" not in str(events[0].data)  # events carry lengths, not text
    context = await service.build_llm_context("s1", "Go on")
    text = "\n".join(m["content"] for m in context)
    assert "Metformin lowers blood sugar. [interrupted" in text
    assert "500 mg" not in text  # never heard, so never in the next context
    # A second cut keeps the text first generated.
    twice = await service.mark_interrupted("s1", answer.id, "Metformin")
    assert twice.metadata["generated_text"] == GENERATED


async def test_an_interrupted_answer_already_summarized_leaves_the_summary(service):
    await service.update_settings({"anonymize_phi": False}, user_id=None)
    await service.add_entry("s1", MemoryEntry(role="user", content="Dose?", mode="voice"))
    answer = await service.add_entry(
        "s1", MemoryEntry(role="assistant", content=GENERATED, mode="voice")
    )
    await _chatter(service, "s1", 60)
    await service.build_llm_context("s1", "hi", max_tokens=300)
    summary = await service.store.get_summary("s1")
    assert summary is not None and "500 mg" in summary.text
    await service.mark_interrupted("s1", answer.id, "Metformin lowers blood sugar.")
    rebuilt = await service.store.get_summary("s1")
    assert rebuilt is not None and "500 mg" not in rebuilt.text
    assert rebuilt.to_seq == summary.to_seq


async def test_heard_text_is_redacted_like_any_content(service):
    answer = await service.add_entry(
        "s1", MemoryEntry(role="assistant", content="Call the clinic.", mode="voice")
    )
    updated = await service.mark_interrupted("s1", answer.id, "Call 555-867-5309 now")
    assert "867-5309" not in updated.content


async def test_mark_interrupted_errors(service):
    user = await service.add_entry("s1", MemoryEntry(role="user", content="hi"), user_id="alice")
    with pytest.raises(InvalidInputError):
        await service.mark_interrupted("s1", user.id, "h", user_id="alice")
    with pytest.raises(EntryNotFoundError):
        await service.mark_interrupted("s1", "missing", "h", user_id="alice")
    with pytest.raises(SessionNotFoundError):
        await service.mark_interrupted("s1", user.id, "h", user_id="mallory")
    with pytest.raises(InvalidInputError):
        await service.mark_interrupted("s1", user.id, "bad\x00text", user_id="alice")


async def test_without_cross_session_only_this_sessions_facts_are_recalled(service):
    await service.update_settings({"cross_session": False}, user_id="carol")
    await service.add_fact("Allergic to sulfa drugs", user_id="carol", kind="allergy")
    first = await service.add_entry(
        "visit-a", MemoryEntry(role="user", content="I take lisinopril daily"), user_id="carol"
    )
    await service.pin_entry("visit-a", first.id, user_id="carol")
    here = "\n".join(
        m["content"] for m in await service.build_llm_context("visit-a", "hi", user_id="carol")
    )
    assert "lisinopril" in here
    assert "sulfa" not in here  # a user-level fact is recall across sessions
    await service.add_entry("visit-b", MemoryEntry(role="user", content="hello"), user_id="carol")
    other = "\n".join(
        m["content"] for m in await service.build_llm_context("visit-b", "hi", user_id="carol")
    )
    assert "lisinopril" not in other and "sulfa" not in other


async def test_phi_in_heard_text_is_redacted_and_recorded(service):
    await service.add_entry("s1", MemoryEntry(role="user", content="Call me back", mode="voice"))
    answer = await service.add_entry(
        "s1", MemoryEntry(role="assistant", content="I will call you.", mode="voice")
    )
    before = await service.get_events("s1", event_type="phi_detected")
    heard = "I will call you at 555-867-5309"
    updated = await service.mark_interrupted("s1", answer.id, heard)
    assert "867-5309" not in updated.content
    after = await service.get_events("s1", event_type="phi_detected")
    assert len(after) == len(before) + 1
    assert after[-1]["entry_id"] == answer.id
    recorded = str(after[-1].data)  # types, counts and keyed digests, never values
    assert "555-867-5309" not in recorded and "5558675309" not in recorded
