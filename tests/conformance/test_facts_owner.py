"""The owner's side of facts on every backend: list with history and by kind,
confirm, correct (the old value closed and kept), delete, and another user's
fact reported exactly as a missing one."""

from datetime import UTC, datetime, timedelta

import pytest

from unimem import ConflictError, FactNotFoundError, InvalidInputError, UnifiedMemoryService
from unimem.ids import new_id
from unimem.models import Fact

NOW = datetime.now(UTC) - timedelta(minutes=5)


def found(uid: str, kind: str, value: str, **attributes: str) -> Fact:
    extra = "".join(f" {v}" for v in attributes.values())
    return Fact(
        id=new_id(),
        user_id=uid,
        kind=kind,
        key=f"{kind}:{value}",
        value=value,
        attributes=attributes,
        text=f"{kind.capitalize()}: {value}{extra}",
        session_id="s1",
        source_entry_ids=["e1"],
        created_at=NOW,
        valid_from=NOW,
    )


async def plant(service: UnifiedMemoryService, *facts: Fact) -> list[Fact]:
    await service.update_settings({"anonymize_phi": False}, user_id=facts[0].user_id)
    return await service.store.apply_fact_changes(facts[0].user_id, add=list(facts))


async def test_correcting_closes_the_old_value_and_keeps_it(service: UnifiedMemoryService):
    [med] = await plant(service, found("u1", "medication", "lisinopril", dose="10 mg"))
    new = await service.correct_fact(
        med.id, "lisinopril", user_id="u1", attributes={"dose": "20 mg"}
    )
    assert (new.status, new.value, new.attributes) == ("corrected", "lisinopril", {"dose": "20 mg"})
    assert new.text == "Medication: lisinopril 20 mg" and new.source_entry_ids == ["e1"]
    assert [f.id for f in await service.list_facts(user_id="u1")] == [new.id]
    old, current = await service.list_facts(user_id="u1", include_history=True)
    assert old.id == med.id and old.valid_to is not None and old.attributes == {"dose": "10 mg"}
    assert current.id == new.id and current.current
    with pytest.raises(ConflictError):  # the old one is history now
        await service.correct_fact(med.id, "x", user_id="u1")
    with pytest.raises(ConflictError):
        await service.confirm_fact(med.id, user_id="u1")


async def test_confirming_marks_the_current_fact(service: UnifiedMemoryService):
    [allergy] = await plant(service, found("u1", "allergy", "penicillin"))
    confirmed = await service.confirm_fact(allergy.id, user_id="u1")
    assert confirmed.status == "confirmed" and confirmed.id == allergy.id
    [listed] = await service.list_facts(user_id="u1")
    assert listed.status == "confirmed" and listed.current


async def test_list_by_kind(service: UnifiedMemoryService):
    _, med = await plant(
        service, found("u1", "allergy", "sulfa"), found("u1", "medication", "metformin")
    )
    assert [f.id for f in await service.list_facts(user_id="u1", kinds=["medication"])] == [med.id]
    assert await service.list_facts(user_id="u1", kinds=[]) == []
    with pytest.raises(InvalidInputError):
        await service.list_facts(user_id="u1", kinds="allergy")  # type: ignore[arg-type]


async def test_another_users_fact_is_a_missing_one(service: UnifiedMemoryService):
    [theirs] = await plant(service, found("u2", "allergy", "latex"))
    for fact_id in (theirs.id, "no-such-fact"):
        with pytest.raises(FactNotFoundError) as error:
            await service.confirm_fact(fact_id, user_id="u1")
        assert error.value.message == f"no fact {fact_id!r} for this user"
        with pytest.raises(FactNotFoundError):
            await service.correct_fact(fact_id, "x", user_id="u1")
        assert await service.delete_fact(fact_id, user_id="u1") is False
    [still] = await service.list_facts(user_id="u2")
    assert still.status == "reported" and still.current


async def test_a_bad_correction_changes_nothing(service: UnifiedMemoryService):
    [med] = await plant(service, found("u1", "medication", "lisinopril", dose="10 mg"))
    for value, attributes in (("", None), ("x" * 1001, None), ("ok", {"dose": ""})):
        with pytest.raises(InvalidInputError):
            await service.correct_fact(med.id, value, user_id="u1", attributes=attributes)
    with pytest.raises(InvalidInputError):
        await service.correct_fact(med.id, "ok", user_id="u1", attributes={"Bad Name": "x"})
    assert await service.list_facts(user_id="u1", include_history=True) == [med]


async def test_deleting_a_fact_deletes_that_one(service: UnifiedMemoryService):
    [med] = await plant(service, found("u1", "medication", "lisinopril", dose="10 mg"))
    new = await service.correct_fact(
        med.id, "lisinopril", user_id="u1", attributes={"dose": "5 mg"}
    )
    assert await service.delete_fact(new.id, user_id="u1") is True
    assert await service.list_facts(user_id="u1") == []
    assert [f.id for f in await service.list_facts(user_id="u1", include_history=True)] == [med.id]
    exported = await service.export_user_memory(user_id="u1")
    assert [f["id"] for f in exported["facts"]] == [med.id]
    await service.delete_user_memory("all", user_id="u1")
    assert await service.list_facts(user_id="u1", include_history=True) == []
