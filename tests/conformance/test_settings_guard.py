"""Settings kept between writes are never trusted past a change, on every backend.

A second ``UnifiedMemoryService`` over the same store stands for another
process: it has its own memory of the settings each owner's last write used.
"""

from __future__ import annotations

import pytest

from unimem import MemoryEntry, MemorySettings, UnifiedMemoryService
from unimem.stores.base import SettingsChanged, SettingsGuard

PHONE = "call me back on 617 555 0142 please"


def user(content: str) -> MemoryEntry:
    return MemoryEntry(role="user", content=content, language="en")


async def contents(service: UnifiedMemoryService, session_id: str) -> list[str]:
    return [e.content for e in await service.get_history(session_id, user_id="alice")]


async def test_a_change_made_elsewhere_applies_to_the_next_write(service: UnifiedMemoryService):
    other = UnifiedMemoryService(service.store)  # another process, same store
    await service.update_settings({"anonymize_phi": False}, user_id="alice")
    kept = await service.add_entry("s1", user(PHONE), user_id="alice")
    assert "617" in kept.content  # stored as said: redaction off
    await other.update_settings({"anonymize_phi": True}, user_id="alice")
    redacted = await service.add_entry("s1", user(PHONE), user_id="alice")
    assert "617" not in redacted.content and redacted.phi_detected
    assert (await contents(service, "s1"))[-1] == redacted.content


async def test_memory_switched_off_elsewhere_stores_nothing(service: UnifiedMemoryService):
    other = UnifiedMemoryService(service.store)
    await service.add_entry("s1", user("first"), user_id="alice")
    await other.update_settings({"enabled": False}, user_id="alice")
    await service.add_entry("s1", user("second"), user_id="alice")
    assert await contents(service, "s1") == ["first"]


async def test_memory_switched_back_on_elsewhere_loses_no_turn(service: UnifiedMemoryService):
    other = UnifiedMemoryService(service.store)
    await service.update_settings({"enabled": False}, user_id="alice")
    await service.add_entry("s1", user("unsaved"), user_id="alice")
    await other.update_settings({"enabled": True}, user_id="alice")
    await service.add_entry("s1", user("saved"), user_id="alice")
    assert await contents(service, "s1") == ["saved"]


async def test_a_stale_guard_stores_nothing_and_names_the_current_settings(
    service: UnifiedMemoryService,
):
    store = service.store
    await service.add_entry("s1", user("first"), user_id="alice")
    await service.update_settings({"retention_days": 7}, user_id="alice")
    stale = SettingsGuard(MemorySettings().model_dump_json())
    entry = (await service.get_history("s1", user_id="alice"))[0].model_copy(
        update={"id": "0190a000-0000-7000-8000-00000000abcd", "seq": None, "content": "x"}
    )
    with pytest.raises(SettingsChanged) as refused:
        await store.append_entry(entry, settings_guard=stale)
    assert refused.value.current is not None
    assert MemorySettings.model_validate_json(refused.value.current).retention_days == 7
    assert await contents(service, "s1") == ["first"]
    current = SettingsGuard(refused.value.current)
    stored = await store.append_entry(entry, settings_guard=current)
    assert stored.created and stored.entry.seq == 2


async def test_a_user_without_settings_is_guarded_as_none(service: UnifiedMemoryService):
    store = service.store
    await service.add_entry("s1", user("first"), user_id="bob")
    entry = (await service.get_history("s1", user_id="bob"))[0].model_copy(
        update={"id": "0190a000-0000-7000-8000-00000000abce", "seq": None}
    )
    stored = await store.append_entry(entry, settings_guard=SettingsGuard(None))
    assert stored.created
    await UnifiedMemoryService(store).update_settings({"cross_session": False}, user_id="bob")
    later = entry.model_copy(update={"id": "0190a000-0000-7000-8000-00000000abcf"})
    with pytest.raises(SettingsChanged):
        await store.append_entry(later, settings_guard=SettingsGuard(None))
