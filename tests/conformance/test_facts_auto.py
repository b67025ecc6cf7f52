"""Facts each turn updates, on every backend: added with their source, a
change superseding the old value (kept as history, never current), stored
under the owner's privacy settings, and gone with the data they came from.

The extractor is planted (the service's work is under test, not the rules:
those have their own labelled sets)."""

from collections.abc import AsyncIterator

import pytest

from unimem import MemoryEntry, UnifiedMemoryService
from unimem.facts import FactChange
from unimem.service.fact_extractors import FactTurn


class Dose:
    """``lisinopril <n> mg`` in a turn: added, or superseding the current dose."""

    background = False

    async def extract(self, turn: FactTurn) -> list[FactChange]:
        words = turn.text.split()
        if "lisinopril" not in words or "mg" not in words:
            return []
        dose = words[words.index("mg") - 1] + " mg"
        old = next((f for f in turn.current if f.key == "medication:lisinopril"), None)
        if old is not None and old.value == dose:
            return []
        return [
            FactChange(
                op="supersede" if old else "add",
                kind="medication",
                key="medication:lisinopril",
                value=dose,
                attributes={"name": "lisinopril"},
                text=f"Medication: lisinopril {dose}",
                corrected="actually" in words,
                replaces=old.id if old else None,
            )
        ]


@pytest.fixture
async def svc(service: UnifiedMemoryService) -> AsyncIterator[UnifiedMemoryService]:
    planted = UnifiedMemoryService(service.store, config=service.config, fact_extractor=Dose())
    yield planted


async def say(svc: UnifiedMemoryService, text: str, uid: str = "u1", sid: str = "s1"):
    return await svc.add_entry(sid, MemoryEntry(role="user", content=text), user_id=uid)


async def test_a_change_supersedes_and_the_context_states_the_current_value(
    svc: UnifiedMemoryService,
):
    first = await say(svc, "i take lisinopril 10 mg every morning")
    await say(svc, "the parking was awful today")
    second = await say(svc, "actually lisinopril 20 mg since the spring")
    [current] = await svc.list_facts(user_id="u1")
    assert (current.value, current.status, current.source_entry_ids) == (
        "20 mg",
        "corrected",
        [second.id],
    )
    old, new = await svc.list_facts(user_id="u1", include_history=True)
    assert old.source_entry_ids == [first.id] and old.valid_to == second.timestamp
    assert new.id == current.id
    context = await svc.build_llm_context("s1", "what dose?", max_tokens=800, user_id="u1")
    facts = next(m["content"] for m in context if "Medication:" in m["content"])
    assert "lisinopril 20 mg" in facts and "10 mg" not in facts


async def test_facts_are_the_owners_only(svc: UnifiedMemoryService):
    await say(svc, "i take lisinopril 10 mg", uid="u1", sid="a")
    await say(svc, "i take lisinopril 40 mg", uid="u2", sid="b")
    assert [f.value for f in await svc.list_facts(user_id="u1")] == ["10 mg"]
    assert [f.value for f in await svc.list_facts(user_id="u2")] == ["40 mg"]
    context = await svc.build_llm_context("a", "dose?", max_tokens=800, user_id="u1")
    assert "40 mg" not in str(list(context))


async def test_memory_off_keeps_no_fact(svc: UnifiedMemoryService):
    await svc.update_settings({"enabled": False}, user_id="u1")
    await say(svc, "i take lisinopril 10 mg")
    assert await svc.list_facts(user_id="u1", include_history=True) == []


async def test_deletion_scopes_take_the_facts_of_what_they_delete(svc: UnifiedMemoryService):
    await say(svc, "i take lisinopril 10 mg", sid="a")
    await say(svc, "actually lisinopril 20 mg", sid="b")
    receipt = await svc.delete_user_memory("session", user_id="u1", session_id="b")
    assert receipt.counts["facts"] == 1
    [left] = await svc.list_facts(user_id="u1", include_history=True)
    assert left.value == "10 mg" and left.valid_to is not None  # history of session a
    await svc.delete_user_memory("day", user_id="u1")
    assert await svc.list_facts(user_id="u1", include_history=True) == []
    exported = await svc.export_user_memory(user_id="u1")
    assert exported["facts"] == []


async def test_export_holds_the_facts_with_their_history(svc: UnifiedMemoryService):
    await say(svc, "i take lisinopril 10 mg")
    await say(svc, "actually lisinopril 20 mg")
    exported = await svc.export_user_memory(user_id="u1")
    assert [(f["value"], f["valid_to"] is None) for f in exported["facts"]] == [
        ("10 mg", False),
        ("20 mg", True),
    ]


async def test_the_retention_sweep_takes_facts_with_their_turns(svc: UnifiedMemoryService):
    from datetime import UTC, datetime, timedelta

    await say(svc, "i take lisinopril 10 mg")
    await svc.update_settings({"retention_days": 1}, user_id="u1")
    await svc.store.sweep_expired(
        now=datetime.now(UTC) + timedelta(days=2), default_retention_days=30
    )
    assert await svc.list_facts(user_id="u1", include_history=True) == []
    assert await svc.get_history("s1", user_id="u1") == []
