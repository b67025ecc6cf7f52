"""The store's fact history (``apply_fact_changes``), on every backend: a
supersede closes the old fact and adds the new one in one step, or does nothing."""

from datetime import UTC, datetime, timedelta

import pytest

from unimem import UnifiedMemoryService
from unimem.ids import new_id
from unimem.models import Fact
from unimem.stores.contracts import FactsChanged

NOW = datetime.now(UTC)


def fact(uid: str, value: str, *, sid: str | None = "s1", at: datetime = NOW) -> Fact:
    return Fact(
        id=new_id(),
        user_id=uid,
        kind="medication",
        key="medication:lisinopril",
        value=value,
        text=f"Takes lisinopril {value}",
        attributes={"dose": value},
        session_id=sid,
        created_at=at,
        valid_from=at,
        source_entry_ids=["e1"],
    )


async def test_a_supersede_closes_the_old_fact_and_adds_the_new(service: UnifiedMemoryService):
    store = service.store
    [old] = await store.apply_fact_changes("u1", add=[fact("u1", "10 mg")])
    later = NOW + timedelta(minutes=1)
    new = fact("u1", "20 mg", at=later)
    assert await store.apply_fact_changes("u1", close=[(old.id, later)], add=[new]) == [new]
    facts = {f.id: f for f in await store.list_facts("u1")}
    assert facts[old.id].valid_to == later and not facts[old.id].current
    assert facts[old.id].value == "10 mg" and facts[old.id].attributes == {"dose": "10 mg"}
    assert facts[new.id].current and facts[new.id].value == "20 mg"
    assert facts[new.id].source_entry_ids == ["e1"]


async def test_closing_a_fact_no_longer_current_stores_nothing(service: UnifiedMemoryService):
    store = service.store
    [old] = await store.apply_fact_changes("u1", add=[fact("u1", "10 mg")])
    await store.apply_fact_changes("u1", close=[(old.id, NOW)], add=[fact("u1", "20 mg")])
    before = await store.list_facts("u1")
    for gone in (old.id, "no-such-fact"):  # closed already, or never there
        with pytest.raises(FactsChanged):
            await store.apply_fact_changes("u1", close=[(gone, NOW)], add=[fact("u1", "30 mg")])
    assert await store.list_facts("u1") == before


async def test_a_failed_supersede_leaves_the_first_close_undone(service: UnifiedMemoryService):
    store = service.store
    [a, b] = await store.apply_fact_changes("u1", add=[fact("u1", "10 mg"), fact("u1", "5 mg")])
    with pytest.raises(FactsChanged):
        await store.apply_fact_changes("u1", close=[(a.id, NOW), ("missing", NOW)], add=[])
    assert all(f.current for f in await store.list_facts("u1"))
    assert {f.id for f in await store.list_facts("u1")} == {a.id, b.id}


async def test_another_users_fact_cannot_be_closed(service: UnifiedMemoryService):
    store = service.store
    [theirs] = await store.apply_fact_changes("u2", add=[fact("u2", "10 mg")])
    with pytest.raises(FactsChanged):
        await store.apply_fact_changes("u1", close=[(theirs.id, NOW)], add=[])
    [still] = await store.list_facts("u2")
    assert still.current and await store.list_facts("u1") == []


async def test_deleting_a_session_deletes_the_facts_found_in_it(service: UnifiedMemoryService):
    store = service.store
    await service.add_entry("s1", {"role": "user", "content": "hello"}, user_id="u1")
    found = fact("u1", "10 mg", sid="s1")
    pinned = found.model_copy(update={"id": new_id(), "source_entry_ids": [], "key": None})
    elsewhere = fact("u1", "5 mg", sid="s2")
    await store.apply_fact_changes("u1", add=[found, pinned, elsewhere])
    counts = await store.delete_user_data("u1", scope="session", session_ids=["s1"])
    assert counts["facts"] == 1
    assert {f.id for f in await store.list_facts("u1")} == {pinned.id, elsewhere.id}


async def test_the_sweep_expires_found_facts_and_keeps_pinned_ones(service: UnifiedMemoryService):
    store = service.store
    old = NOW - timedelta(days=40)
    found = fact("u1", "10 mg", at=old)
    pinned = found.model_copy(update={"id": new_id(), "source_entry_ids": [], "key": None})
    recent = fact("u1", "20 mg")
    await store.apply_fact_changes("u1", add=[found, pinned, recent])
    await store.sweep_expired(now=NOW, default_retention_days=30)
    assert {f.id for f in await store.list_facts("u1")} == {pinned.id, recent.id}
    exported = await store.export_user("u1")
    assert {f["id"] for f in exported["facts"]} == {pinned.id, recent.id}
