"""Deleting one message, on every backend: gone from every read, the rest kept."""

from __future__ import annotations

import pytest

from unimem import MemoryEntry, UnifiedMemoryService


async def _three(service: UnifiedMemoryService, sid: str) -> list[MemoryEntry]:
    return [
        await service.add_entry(sid, MemoryEntry(role=role, content=text), user_id="alice")
        for role, text in (("user", "first"), ("assistant", "second"), ("user", "third"))
    ]


async def test_deleted_entry_is_gone_from_history_and_context(
    service: UnifiedMemoryService,
) -> None:
    entries = await _three(service, "del-1")
    await service.get_context("del-1", user_id="alice")  # cache the window where there is one
    assert await service.delete_entry("del-1", entries[1].id, user_id="alice") is True
    history = await service.get_history("del-1", user_id="alice")
    assert [e.content for e in history] == ["first", "third"]
    context = await service.get_context("del-1", user_id="alice")
    assert [m.content for m in context.messages] == ["first", "third"]
    export = await service.export_user_memory(user_id="alice")
    assert "second" not in str(export["entries"])


async def test_numbering_goes_on_after_deleting_the_last_entry(
    service: UnifiedMemoryService,
) -> None:
    entries = await _three(service, "del-2")
    assert await service.delete_entry("del-2", entries[-1].id, user_id="alice")
    nxt = await service.add_entry(
        "del-2", MemoryEntry(role="user", content="fourth"), user_id="alice"
    )
    assert nxt.seq == 4
    history = await service.get_history("del-2", user_id="alice")
    assert [(e.seq, e.content) for e in history] == [(1, "first"), (2, "second"), (4, "fourth")]


async def test_unknown_entry_or_session_is_false(service: UnifiedMemoryService) -> None:
    await _three(service, "del-3")
    assert await service.delete_entry("del-3", "no-such-entry", user_id="alice") is False
    assert await service.delete_entry("never-used", "no-such-entry", user_id="alice") is False


async def test_another_users_entry_is_not_deleted(service: UnifiedMemoryService) -> None:
    entries = await _three(service, "del-4")
    assert await service.delete_entry("del-4", entries[0].id, user_id="bob") is False
    assert len(await service.get_history("del-4", user_id="alice")) == 3


async def test_deletion_is_audited(service: UnifiedMemoryService) -> None:
    entries = await _three(service, "del-5")
    await service.delete_entry("del-5", entries[0].id, user_id="alice")
    records = await service.list_audit(user_id="alice")
    assert any(r.details.get("scope") == "entry" for r in records)
    assert "first" not in str([r.model_dump() for r in records])


@pytest.mark.parametrize("bad", ["", "a b", "x" * 129])
async def test_malformed_ids_are_refused(service: UnifiedMemoryService, bad: str) -> None:
    from unimem import InvalidInputError

    with pytest.raises(InvalidInputError):
        await service.delete_entry("del-6", bad, user_id="alice")
