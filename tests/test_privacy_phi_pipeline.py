"""The real PHI detector behind add_entry, on every backend: spoken and typed PHI never
reaches a store, tokens stay consistent in the session, medical terms are kept."""

import json
import re
from typing import Any

from unimem import MemoryEntry, UnifiedMemoryService
from unimem.privacy.pipeline import PrivacyPipeline

SPOKEN = "my name is john carter and my number is five five five one two one two"
TYPED = "this is John Carter again, call me at 555-1212"
MEDICAL = "I was diagnosed with Parkinson's disease and take 500 mg metformin"
FAMILY = "my daughter Mary Major will drive me, her email is mary.major@example.com"


def user(content: str, **kw: Any) -> MemoryEntry:
    return MemoryEntry(role="user", content=content, language="en", **kw)


async def test_two_processes_never_give_one_token_to_two_people(service: UnifiedMemoryService):
    """Each process keeps the session's token map between writes; the store
    confirms it inside the write, so a map another process has since extended
    is read again instead of handing out a number already taken."""
    # another process, same store, same token key (as UNIMEM_ENCRYPTION_KEYS gives)
    other = UnifiedMemoryService(
        service.store, privacy=PrivacyPipeline(token_key=service.privacy.token_key)
    )
    a1 = await service.add_entry("s1", user("my name is John Carter"), user_id="u1")
    b1 = await other.add_entry("s1", user("my wife Anna Becker will call"), user_id="u1")
    a2 = await service.add_entry("s1", user("my daughter Maria Lopez drives me"), user_id="u1")
    b2 = await other.add_entry("s1", user("my name is John Carter"), user_id="u1")
    assert a1.content == "my name is [PERSON_1]"
    assert b1.content == "my wife [PERSON_2] will call"
    assert a2.content == "my daughter [PERSON_3] drives me"
    assert b2.content == "my name is [PERSON_1]"


async def test_the_phi_event_commits_with_its_entry(service: UnifiedMemoryService):
    """One transaction: the phi_detected event comes right after the entry's own
    events, names the entry's seq, and a retried entry adds none."""
    await service.add_entry("s1", user("hello there", mode="text"), user_id="u1")
    entry = user(SPOKEN, mode="voice", id="0190a000-0000-7000-8000-0000000000e1")
    stored = await service.add_entry("s1", entry, user_id="u1")
    again = await service.add_entry("s1", entry, user_id="u1")
    assert again.seq == stored.seq == 2
    events = await service.get_events("s1", limit=10, user_id="u1")
    assert [e.event_type for e in events] == ["mode_switch", "phi_detected"]
    phi = events[-1]
    assert (phi["entry_id"], phi["entry_seq"]) == (stored.id, stored.seq)
    assert phi.seq == events[0].seq + 1
    later = await service.add_entry("s1", user(TYPED), user_id="u1")
    assert later.content.startswith("this is [PERSON_1]")  # the tokens carried over


async def test_spoken_and_typed_phi_is_redacted_consistently(service: UnifiedMemoryService):
    first = await service.add_entry("s1", user(SPOKEN, mode="voice"), user_id="u1")
    second = await service.add_entry("s1", user(TYPED), user_id="u1")
    third = await service.add_entry("s1", user(FAMILY), user_id="u1")
    assert first.content == "my name is [PERSON_1] and my number is [PHONE_1]"
    assert second.content == "this is [PERSON_1] again, call me at [PHONE_1]"
    assert third.content == "my daughter [PERSON_2] will drive me, her email is [EMAIL_1]"
    assert first.phi_detected and second.phi_detected and third.phi_detected

    events = await service.get_events("s1", event_type="phi_detected", user_id="u1")
    assert [e["types"] for e in events] == [
        {"PERSON": 1, "PHONE": 1},
        {"PERSON": 1, "PHONE": 1},
        {"EMAIL": 1, "PERSON": 1},
    ]
    stored = json.dumps(await service.store.export_user("u1")).lower()
    for value in ("john", "carter", "five five five", "555", "1212", "mary", "example"):
        assert not re.search(rf"\b{value}\b", stored), value  # (hex hashes are one word)


async def test_medical_terms_are_not_redacted(service: UnifiedMemoryService):
    stored = await service.add_entry("s1", user(MEDICAL), user_id="u1")
    assert stored.content == MEDICAL and not stored.phi_detected
    assert await service.get_events("s1", event_type="phi_detected", user_id="u1") == []


async def test_tokens_hold_across_a_restart_with_the_deployment_key(
    service: UnifiedMemoryService,
):
    key = b"deployment secret key 32 bytes!!"
    service = UnifiedMemoryService(service.store, privacy=PrivacyPipeline(token_key=key))
    await service.add_entry("s1", user(SPOKEN, mode="voice"), user_id="u1")
    # another process, same key
    service = UnifiedMemoryService(service.store, privacy=PrivacyPipeline(token_key=key))
    again = await service.add_entry("s1", user(FAMILY + ". " + TYPED), user_id="u1")
    assert "[PERSON_1] again" in again.content and "[PHONE_1]" in again.content
    assert "[PERSON_2]" in again.content
    other = await service.add_entry("s2", user(TYPED), user_id="u1")
    assert other.content == "this is [PERSON_1] again, call me at [PHONE_1]"  # per session
    s1_hashes = set()
    for e in await service.get_events("s1", event_type="phi_detected", user_id="u1"):
        s1_hashes |= set(e["tokens"])
    [s2_event] = await service.get_events("s2", event_type="phi_detected", user_id="u1")
    assert not s1_hashes & set(s2_event["tokens"])  # the same person is unlinkable across sessions
