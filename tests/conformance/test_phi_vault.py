"""The PHI vault on every backend: each token's value is kept sealed, per user,
written with the entry that introduced it, and deleted with the data."""

from datetime import UTC, datetime, timedelta

import pytest

from unimem import MemoryEntry, SessionClosedError, UnifiedMemoryService
from unimem.privacy.crypto import Keyring, generate_key
from unimem.privacy.vault import open_values

KEYS = generate_key("k1")
NAME = "Johanna Quist"


def user(content: str, **kw) -> MemoryEntry:
    return MemoryEntry(role="user", content=content, **kw)


async def anonymized(svc: UnifiedMemoryService, *users: str) -> Keyring:
    svc.use_encryption(KEYS)
    for uid in users:
        await svc.update_settings({"anonymize_phi": True}, user_id=uid)
    return Keyring.parse(KEYS)


async def values(svc: UnifiedMemoryService, uid: str, *sids: str) -> dict[str, dict[str, str]]:
    return open_values(Keyring.parse(KEYS), await svc.store.get_vault_values(uid, sids))


async def test_an_entrys_tokens_are_kept_sealed_with_their_values(service: UnifiedMemoryService):
    await anonymized(service, "u1")
    stored = await service.add_entry(
        "s1", user(f"my name is {NAME}, call 555-867-5309"), user_id="u1"
    )
    assert NAME not in stored.content and "[PERSON_1]" in stored.content
    rows = await service.store.get_vault_values("u1", ["s1"])
    assert {r.token for r in rows} == {"[PERSON_1]", "[PHONE_1]"}
    assert all(NAME not in r.sealed and r.sealed.startswith("enc:v1:k1:") for r in rows)
    assert (await values(service, "u1", "s1"))["s1"]["[PERSON_1]"] == NAME
    # the same person again adds nothing; a new one gets the next token
    await service.add_entry(
        "s1", user(f"{NAME} again, and my brother Bartholomew Finch"), user_id="u1"
    )
    opened = (await values(service, "u1", "s1"))["s1"]
    assert opened["[PERSON_1]"] == NAME and opened["[PERSON_2]"] == "Bartholomew Finch"


async def test_another_user_and_another_session_hold_none_of_them(service: UnifiedMemoryService):
    await anonymized(service, "u1", "u2")
    await service.add_entry("s1", user(f"my name is {NAME}"), user_id="u1")
    assert await service.store.get_vault_values("u2", ["s1"]) == []
    assert await service.store.get_vault_values("u1", ["s2"]) == []


async def test_a_sealed_value_moved_to_another_token_does_not_open(
    service: UnifiedMemoryService,
):
    await anonymized(service, "u1")
    await service.add_entry("s1", user(f"my name is {NAME}"), user_id="u1")
    (row,) = await service.store.get_vault_values("u1", ["s1"])
    moved = type(row)(row.user_id, "s2", row.token, row.sealed, row.created_at)
    assert open_values(Keyring.parse(KEYS), [moved]) == {}


async def test_an_entry_refused_by_the_store_leaves_no_value(service: UnifiedMemoryService):
    await anonymized(service, "u1")
    await service.add_entry("s1", user("hello"), user_id="u1")
    await service.close_session("s1", user_id="u1")
    with pytest.raises(SessionClosedError):
        await service.add_entry("s1", user(f"my name is {NAME}"), user_id="u1")
    assert await service.store.get_vault_values("u1", ["s1"]) == []


async def test_without_keys_no_value_is_kept(service: UnifiedMemoryService):
    await service.update_settings({"anonymize_phi": True}, user_id="u1")
    stored = await service.add_entry("s1", user(f"my name is {NAME}"), user_id="u1")
    assert "[PERSON_1]" in stored.content
    assert await service.store.get_vault_values("u1", ["s1"]) == []


async def test_event_data_tokens_are_kept_too(service: UnifiedMemoryService):
    await anonymized(service, "u1")
    await service.add_entry("s1", user("hello"), user_id="u1")
    await service.add_event("s1", "topic_change", {"note": f"asked about {NAME}"}, user_id="u1")
    assert NAME in (await values(service, "u1", "s1"))["s1"].values()


@pytest.mark.parametrize("scope", ["session", "all"])
async def test_deleting_a_session_or_everything_takes_its_values(
    service: UnifiedMemoryService, scope: str
):
    await anonymized(service, "u1", "u2")
    await service.add_entry("s1", user(f"my name is {NAME}"), user_id="u1")
    await service.add_entry("s2", user("my name is Bartholomew Finch"), user_id="u1")
    await service.add_entry("t1", user("my name is Ottilie Marsh"), user_id="u2")
    sid = "s1" if scope == "session" else None
    await service.delete_user_memory(scope, user_id="u1", session_id=sid)
    left = await values(service, "u1", "s1", "s2")
    assert "s1" not in left
    assert ("s2" in left) == (scope == "session")
    assert (await values(service, "u2", "t1"))["t1"]["[PERSON_1]"] == "Ottilie Marsh"


async def test_deleting_today_takes_todays_values_only(service: UnifiedMemoryService):
    await anonymized(service, "u1")
    old = datetime.now(UTC) - timedelta(days=3)
    await service.add_entry("s1", user(f"my name is {NAME}", timestamp=old), user_id="u1")
    await service.add_entry("s1", user("my name is Bartholomew Finch"), user_id="u1")
    await service.delete_user_memory("day", user_id="u1")
    assert (await values(service, "u1", "s1"))["s1"] == {"[PERSON_1]": NAME}


async def test_the_retention_sweep_takes_expired_values(service: UnifiedMemoryService):
    await anonymized(service, "u1")
    await service.update_settings({"retention_days": 7}, user_id="u1")
    old = datetime.now(UTC) - timedelta(days=30)
    await service.add_entry("s1", user(f"my name is {NAME}", timestamp=old), user_id="u1")
    await service.add_entry("s1", user("my name is Bartholomew Finch"), user_id="u1")
    await service.sweep_retention()
    assert (await values(service, "u1", "s1"))["s1"] == {"[PERSON_2]": "Bartholomew Finch"}


async def test_rotation_reseals_the_vault_so_the_old_key_can_be_dropped(
    service: UnifiedMemoryService,
):
    await anonymized(service, "u1")
    await service.add_entry("s1", user(f"my name is {NAME}"), user_id="u1")
    new = generate_key("k2")
    service.use_encryption(f"{new},{KEYS}")
    # the entry and its one vault value; a second rotation finds nothing left
    assert await service.rotate_encryption(["u1"]) == 2
    assert await service.rotate_encryption(["u1"]) == 0
    rows = await service.store.get_vault_values("u1", ["s1"])
    assert [r.token for r in rows] == ["[PERSON_1]"]
    assert rows[0].sealed.startswith("enc:v1:k2:") and NAME not in rows[0].sealed
    service.use_encryption(new)  # the old key is gone
    (shown,) = await service.get_history("s1", user_id="u1", reveal=True)
    assert shown.content == f"my name is {NAME}"
