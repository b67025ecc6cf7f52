"""Encryption of content fields at rest: keyring, AES-GCM binding, store wrapper, rotation."""

import base64
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from unimem import ConfigurationError, MemoryEntry, StoreError, UnifiedMemoryService
from unimem.models import Fact, Summary
from unimem.privacy.crypto import Keyring, generate_key, load_keyring
from unimem.privacy.encrypted_store import EncryptedStore

A = generate_key("a")
B = generate_key("b")
SECRET = "chest pain since Tuesday"


def b64(n: int) -> str:
    return base64.b64encode(b"x" * n).decode()


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ("", "no key"),
        ("a", "kid:base64key"),
        ("a:not base64!", "base64"),
        (f"a:{b64(10)}", "10 bytes"),
        (f"a:{b64(32)},a:{b64(32)}", "twice"),
        (f"bad id:{b64(32)}", "key id"),
    ],
)
def test_bad_key_configuration_is_refused(spec: str, match: str):
    with pytest.raises(ConfigurationError, match=match):
        Keyring.parse(spec)


def test_values_are_bound_to_their_place_and_key():
    ring = Keyring.parse(f"{A},{B}")
    sealed = ring.encrypt(SECRET, "s1/e1/content")
    assert sealed.startswith("enc:v1:a:") and SECRET not in sealed
    assert ring.decrypt(sealed, "s1/e1/content") == SECRET
    assert ring.decrypt("written before encryption", "x") == "written before encryption"
    with pytest.raises(StoreError, match="failed authentication") as err:
        ring.decrypt(sealed, "s1/e2/content")  # moved to another entry
    assert SECRET not in str(err.value)
    with pytest.raises(StoreError, match=r"'a'.*not in UNIMEM_ENCRYPTION_KEYS"):
        Keyring.parse(B).decrypt(sealed, "s1/e1/content")
    assert load_keyring({}) is None
    assert load_keyring({"UNIMEM_ENCRYPTION_KEYS": f"{B},{A}"}).current == "b"


async def _write(svc: UnifiedMemoryService) -> MemoryEntry:
    entry = MemoryEntry(
        role="user",
        content=SECRET,
        retrieved_passages=["passage about chest pain"],
        sources=[{"title": "chest pain guide", "page": 3}],
        metadata={"note": "chest"},
    )
    stored = await svc.add_entry("s1", entry, user_id="u1")
    await svc.add_fact("allergic to penicillin (chest rash)", "allergy", user_id="u1")
    now = datetime.now(UTC)
    await svc.store.put_summary(
        Summary(
            session_id="s1",
            user_id="u1",
            text="chest summary",
            from_seq=1,
            to_seq=1,
            created_at=now,
        )
    )
    return stored


async def test_content_is_encrypted_in_the_store_and_plain_through_the_service(
    service: UnifiedMemoryService,
):
    await service.update_settings({"anonymize_phi": False}, user_id="u1")
    assert service.use_encryption(Keyring.parse(A))
    stored = await _write(service)
    assert stored.content == SECRET and stored.sources == [{"title": "chest pain guide", "page": 3}]
    [read] = await service.get_history("s1", user_id="u1")
    assert (read.content, read.retrieved_passages, read.metadata) == (
        SECRET,
        ["passage about chest pain"],
        {"note": "chest"},
    )
    assert (await service.list_facts(user_id="u1"))[0].text.startswith("allergic")
    summary = await service.store.get_summary("s1")
    assert summary is not None and summary.text == "chest summary"
    context = await service.get_context("s1", user_id="u1")
    assert context.messages[0].content == SECRET
    exported = await service.export_user_memory(user_id="u1")
    assert exported["entries"][0]["content"] == SECRET
    assert exported["facts"][0]["text"].startswith("allergic")

    assert isinstance(service.store, EncryptedStore)
    raw = json.dumps(await service.store.inner.export_user("u1"))
    assert "chest" not in raw and "penicillin" not in raw
    assert raw.count("enc:v1:a:") == 6  # content, passage, sources, metadata, fact, summary


async def test_rotation_moves_everything_to_the_new_key(service: UnifiedMemoryService):
    await service.update_settings({"anonymize_phi": False}, user_id="u1")
    await service.add_entry(
        "s0", MemoryEntry(role="user", content="before encryption"), user_id="u1"
    )
    service.use_encryption(A)
    await _write(service)
    service.use_encryption(f"{B},{A}")  # new key first; the old one still decrypts
    assert (await service.get_history("s1", user_id="u1"))[0].content == SECRET
    rewritten = await service.rotate_encryption(["u1"])
    assert rewritten == 4  # two entries (one was plaintext), the fact, the summary
    assert await service.rotate_encryption(["u1"]) == 0
    service.use_encryption(B)  # the old key can go now
    history = await service.get_history("s1", user_id="u1")
    assert history[0].content == SECRET
    assert (await service.get_history("s0", user_id="u1"))[0].content == "before encryption"
    raw = json.dumps(await service.store.inner.export_user("u1"))  # type: ignore[attr-defined]
    assert "enc:v1:a:" not in raw and "before encryption" not in raw


async def test_a_ciphertext_moved_to_another_entry_does_not_decrypt(
    service: UnifiedMemoryService,
):
    service.use_encryption(A)
    first = await service.add_entry("s1", MemoryEntry(role="user", content="one"), user_id="u1")
    second = await service.add_entry("s1", MemoryEntry(role="user", content="two"), user_id="u1")
    inner = service.store.inner  # type: ignore[attr-defined]
    sealed = (await inner.get_entry("s1", first.id)).content
    await inner.update_entry("s1", second.id, {"content": sealed})
    with pytest.raises(StoreError, match="failed authentication"):
        await service.get_history("s1", user_id="u1")


async def test_from_env_turns_encryption_on(tmp_path: Path):
    env = {"UNIMEM_DATABASE_URL": f"sqlite:///{tmp_path}/e.db", "UNIMEM_ENCRYPTION_KEYS": A}
    async with UnifiedMemoryService.from_env(env) as svc:
        assert isinstance(svc.store, EncryptedStore)
        await svc.update_settings({"anonymize_phi": False}, user_id="u1")
        await svc.add_entry("s1", MemoryEntry(role="user", content=SECRET), user_id="u1")
    async with UnifiedMemoryService.from_env(env) as svc:
        assert (await svc.get_history("s1", user_id="u1"))[0].content == SECRET
    assert SECRET.encode() not in (tmp_path / "e.db").read_bytes()
    del env["UNIMEM_ENCRYPTION_KEYS"]
    async with UnifiedMemoryService.from_env(env) as svc:
        assert not isinstance(svc.store, EncryptedStore)


async def test_a_facts_key_value_and_attributes_are_encrypted_too(service: UnifiedMemoryService):
    service.use_encryption(A)
    now = datetime.now(UTC)
    made = Fact(
        id="f1",
        user_id="u1",
        kind="allergy",
        key="allergy:sulfa",
        value="sulfa",
        text="Allergic to sulfa (hives)",
        attributes={"reaction": "hives"},
        created_at=now,
        source_entry_ids=["e1"],
    )
    [old] = await service.store.apply_fact_changes("u1", add=[made])
    new = made.model_copy(update={"id": "f2", "attributes": {"reaction": "swelling"}})
    await service.store.apply_fact_changes("u1", close=[(old.id, now)], add=[new])
    raw = json.dumps(await service.store.inner.export_user("u1"))  # type: ignore[attr-defined]
    assert "sulfa" not in raw and "hives" not in raw and "swelling" not in raw
    first, second = await service.store.list_facts("u1")
    assert (first.key, first.value, first.attributes) == (
        "allergy:sulfa",
        "sulfa",
        {"reaction": "hives"},
    )
    assert first.valid_to == now and second.current
    exported = await service.store.export_user("u1")
    assert exported["facts"][1]["attributes"] == {"reaction": "swelling"}


async def test_an_items_value_is_encrypted_and_rotated(service: UnifiedMemoryService):
    await service.update_settings({"anonymize_phi": False}, user_id="u1")
    await service.put_item(["notes"], "plain", {"text": "before encryption"}, user_id="u1")
    service.use_encryption(A)
    stored = await service.put_item(["notes"], "k", {"text": SECRET, "n": 2}, user_id="u1")
    assert stored is not None and stored.value == {"text": SECRET, "n": 2}
    got = await service.get_item(["notes"], "k", user_id="u1")
    assert got is not None and got.value == {"text": SECRET, "n": 2}
    assert [i.key for i in await service.search_items(["notes"], user_id="u1")] == ["k", "plain"]
    assert isinstance(service.store, EncryptedStore)
    inner = service.store.inner
    raw = json.dumps([i.model_dump(mode="json") for i in await inner.export_items("u1")])  # type: ignore[attr-defined]
    assert "chest" not in raw and raw.count("enc:v1:a:") == 1
    service.use_encryption(f"{B},{A}")
    assert await service.rotate_encryption(["u1"]) == 2  # the sealed item and the plaintext one
    service.use_encryption(B)
    got = await service.get_item(["notes"], "k", user_id="u1")
    assert got is not None and got.value["text"] == SECRET
    exported = await service.export_user_memory(user_id="u1")
    assert sorted(i["value"]["text"] for i in exported["items"]) == ["before encryption", SECRET]
    raw = json.dumps([i.model_dump(mode="json") for i in await inner.export_items("u1")])  # type: ignore[attr-defined]
    assert "enc:v1:a:" not in raw and "before encryption" not in raw
