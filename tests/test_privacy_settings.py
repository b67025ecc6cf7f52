"""Each privacy setting, enforced before any store sees the data, on every backend.

The PHI detector here is a small fixed one, so these tests pin down the
pipeline (what is redacted where, token consistency, events) independently
of the real detector's accuracy, which ``unimem.privacy.phi`` tests measure.
"""

import json
import re
from typing import Any

import pytest

from unimem import MemoryEntry, UnifiedMemoryService
from unimem.privacy.pipeline import (
    DEGRADATION_NOT_STORED,
    DEGRADATION_VOICE_NOT_SAVED,
    PrivacyPipeline,
)

_PHI = re.compile(r"(?P<PERSON>John Carter|Mary Major|Ann Lee)|(?P<PHONE>\b\d{3}[ -]?\d{4}\b)")
KEY = b"k" * 32


def detector(text: str, language: str | None = None) -> list[dict[str, Any]]:
    return [
        {"type": m.lastgroup, "start": m.start(), "end": m.end(), "text": m.group(), "score": 1.0}
        for m in _PHI.finditer(text)
    ]


@pytest.fixture
def svc(service: UnifiedMemoryService) -> UnifiedMemoryService:
    return UnifiedMemoryService(
        service.store,
        config=service.config,
        privacy=PrivacyPipeline(detector=detector, token_key=KEY),
    )


def user(content: str, **kw: Any) -> MemoryEntry:
    return MemoryEntry(role="user", content=content, **kw)


async def dump(svc: UnifiedMemoryService, uid: str = "u1") -> str:
    return json.dumps(await svc.store.export_user(uid))


async def test_memory_disabled_stores_nothing_and_recalls_nothing(svc: UnifiedMemoryService):
    await svc.add_entry("s0", user("kept from before"), user_id="u1")
    await svc.update_settings({"enabled": False}, user_id="u1")
    entry = await svc.add_entry("s1", user("call John Carter"), user_id="u1")
    assert entry.seq is None and DEGRADATION_NOT_STORED in entry.degradations
    event = await svc.add_event("s1", "topic_change", {"topic": "x"}, user_id="u1")
    assert event.seq is None
    exported = await svc.store.export_user("u1")
    assert [s["session_id"] for s in exported["sessions"]] == ["s0"]
    assert [e["content"] for e in exported["entries"]] == ["kept from before"]
    context = await svc.get_context("s0", user_id="u1")
    assert context.messages == [] and context.rag_context.passages == []
    assert "memory_disabled" in context.degradations


async def test_rag_context_not_saved(svc: UnifiedMemoryService):
    await svc.update_settings({"save_rag_context": False}, user_id="u1")
    entry = user("dose?", retrieved_passages=["Metformin 500 mg"], sources=[{"id": "doc-1"}])
    stored = await svc.add_entry("s1", entry, user_id="u1")
    assert stored.retrieved_passages == [] and stored.sources == []
    [read] = await svc.get_history("s1", user_id="u1")
    assert read.retrieved_passages == [] and read.sources == []
    assert "Metformin" not in await dump(svc)
    assert (await svc.get_context("s1", user_id="u1")).rag_context.passages == []


async def test_rag_context_saved_by_default(svc: UnifiedMemoryService):
    entry = user("dose?", retrieved_passages=["Metformin 500 mg"], sources=[{"id": "doc-1"}])
    await svc.add_entry("s1", entry, user_id="u1")
    context = await svc.get_context("s1", user_id="u1")
    assert context.rag_context.passages == ["Metformin 500 mg"]


async def test_voice_transcripts_not_saved_keep_metadata_only(svc: UnifiedMemoryService):
    await svc.update_settings(
        {"save_voice_transcripts": False, "anonymize_phi": False}, user_id="u1"
    )
    async with svc.live.subscribe("s1") as queue:
        spoken = await svc.add_entry(
            "s1", user("my chest hurts", mode="voice", latency_ms=12.5), user_id="u1"
        )
        live = await queue.get()
    typed = await svc.add_entry("s1", user("typed text"), user_id="u1")
    answer = await svc.add_entry(
        "s1", MemoryEntry(role="assistant", content="spoken answer", mode="voice"), user_id="u1"
    )
    assert spoken.content == "" and DEGRADATION_VOICE_NOT_SAVED in spoken.degradations
    assert spoken.mode == "voice" and spoken.latency_ms == 12.5 and spoken.seq == 1
    assert live is not None and live.item.content == "my chest hurts"  # live session only
    history = await svc.get_history("s1", user_id="u1")
    assert [e.content for e in history] == ["", "typed text", "spoken answer"]
    assert "chest" not in await dump(svc)
    assert typed.content == "typed text" and answer.content == "spoken answer"


async def test_phi_is_redacted_with_tokens_consistent_in_the_session(svc: UnifiedMemoryService):
    first = await svc.add_entry(
        "s1",
        user("I am John Carter, call 555-1212", retrieved_passages=["Mary Major's chart"]),
        user_id="u1",
    )
    second = await svc.add_entry("s1", user("Mary Major and John Carter"), user_id="u1")
    assert first.content == "I am [PERSON_1], call [PHONE_1]"
    assert first.retrieved_passages == ["[PERSON_2]'s chart"]
    assert second.content == "[PERSON_2] and [PERSON_1]"
    assert first.phi_detected and second.phi_detected
    other = await svc.add_entry("s2", user("Ann Lee"), user_id="u1")
    assert other.content == "[PERSON_1]"  # numbering is per session

    events = await svc.get_events("s1", event_type="phi_detected", user_id="u1")
    assert [e["types"] for e in events] == [{"PERSON": 2, "PHONE": 1}, {"PERSON": 2}]
    assert events[0]["entry_id"] == first.id and events[0]["count"] == 3
    assert events[0]["fields"] == ["content", "retrieved_passages"]
    stored = await dump(svc)
    for value in ("John", "Carter", "Mary", "555-1212", "1212", "Ann Lee"):
        assert value not in stored


async def test_tokens_survive_a_new_pipeline_with_the_same_key(svc: UnifiedMemoryService):
    await svc.add_entry("s1", user("John Carter"), user_id="u1")
    svc = UnifiedMemoryService(svc.store, privacy=PrivacyPipeline(detector=detector, token_key=KEY))
    # (a restart: a new pipeline with the same key)
    again = await svc.add_entry("s1", user("John Carter, Mary Major"), user_id="u1")
    assert again.content == "[PERSON_1], [PERSON_2]"
    svc = UnifiedMemoryService(
        svc.store, privacy=PrivacyPipeline(detector=detector, token_key=b"other key")
    )
    third = await svc.add_entry("s1", user("Ann Lee or John Carter"), user_id="u1")
    # an unknown key cannot match old values, but it never reuses a number
    assert third.content == "[PERSON_3] or [PERSON_4]"


async def test_anonymize_off_stores_text_as_given(svc: UnifiedMemoryService):
    await svc.update_settings({"anonymize_phi": False}, user_id="u1")
    stored = await svc.add_entry("s1", user("I am John Carter"), user_id="u1")
    assert stored.content == "I am John Carter" and not stored.phi_detected
    assert await svc.get_events("s1", event_type="phi_detected", user_id="u1") == []


async def test_event_data_is_redacted_but_ids_are_kept(svc: UnifiedMemoryService):
    entry = await svc.add_entry("s1", user("John Carter here"), user_id="u1")
    event = await svc.add_event(
        "s1",
        "topic_change",
        {"note": "asked about John Carter's results", "entry_id": entry.id, "n": 3},
        user_id="u1",
    )
    assert event.data == {
        "note": "asked about [PERSON_1]'s results",
        "entry_id": entry.id,
        "n": 3,
    }
    events = await svc.get_events("s1", event_type="phi_detected", user_id="u1")
    assert events[-1]["event_id"] == event.id and events[-1]["types"] == {"PERSON": 1}
    assert "Carter" not in await dump(svc)


async def test_cross_session_off_forgets_a_session_when_it_closes(svc: UnifiedMemoryService):
    await svc.update_settings({"cross_session": False}, user_id="u1")
    await svc.add_entry("s1", user("first visit"), user_id="u1")
    await svc.add_entry("s2", user("still open"), user_id="u1")
    await svc.close_session("s1", user_id="u1")
    exported = await svc.store.export_user("u1")
    assert [e["content"] for e in exported["entries"]] == ["still open"]
    assert [s["session_id"] for s in exported["sessions"]] == ["s2"]
    [record] = [r for r in await svc.list_audit(user_id="u1") if r.action == "delete"]
    assert record.actor == "policy" and record.session_id == "s1"


async def test_cross_session_on_keeps_closed_sessions(svc: UnifiedMemoryService):
    await svc.add_entry("s1", user("first visit"), user_id="u1")
    await svc.close_session("s1", user_id="u1")
    assert [e.content for e in await svc.get_history("s1", user_id="u1")] == ["first visit"]


async def test_two_processes_with_one_key_share_the_numbering(svc: UnifiedMemoryService):
    """Each process keeps its copy of the session's tokens; another process's write
    (a newer phi_detected event) makes it reload instead of reusing a number."""
    other = UnifiedMemoryService(
        svc.store, privacy=PrivacyPipeline(detector=detector, token_key=KEY)
    )
    a = await svc.add_entry("s1", user("John Carter"), user_id="u1")
    b = await other.add_entry("s1", user("Mary Major, John Carter"), user_id="u1")
    c = await svc.add_entry("s1", user("Ann Lee, Mary Major"), user_id="u1")
    d = await other.add_entry("s1", user("Ann Lee"), user_id="u1")
    assert [a.content, b.content, c.content, d.content] == [
        "[PERSON_1]",
        "[PERSON_2], [PERSON_1]",
        "[PERSON_3], [PERSON_2]",
        "[PERSON_3]",
    ]


async def test_deletion_drops_the_kept_tokens(svc: UnifiedMemoryService):
    await svc.add_entry("s1", user("John Carter"), user_id="u1")
    await svc.delete_user_memory("all", user_id="u1")
    again = await svc.add_entry("s1", user("Mary Major"), user_id="u1")
    assert again.content == "[PERSON_1]"  # a fresh session: nothing of the old one remains
