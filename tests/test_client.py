"""MemoryClient against a real server on loopback: same names, same types,
same errors as UnifiedMemoryService."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from server_support import create_app, running_server, settings, token
from unimem import (
    ConversationContext,
    InvalidInputError,
    MemoryEntry,
    MemoryEvent,
    MemorySettings,
    SessionClosedError,
    SessionInfo,
    SessionNotFoundError,
    StoreUnavailableError,
    UnifiedMemoryService,
)
from unimem.client import MemoryClient
from unimem.context.builder import LLMContext
from unimem.errors import ContentTooLargeError, RateLimitedError
from unimem.models import DeletionReceipt
from unimem.server.server_settings import RateLimit


@pytest.fixture
async def base(tmp_path: Path) -> AsyncIterator[str]:
    async with running_server(create_app(settings(tmp_path))) as url:
        yield url


async def _scenario(memory: Any) -> dict[str, Any]:
    """The same calls, in-process or remote."""
    entry = await memory.add_entry(
        "visit-1", MemoryEntry(role="user", content="hello", mode="voice", language="en")
    )
    await memory.add_entry(
        "visit-1", {"role": "user", "content": "hola otra vez", "mode": "text", "language": "es"}
    )
    event = await memory.add_event("visit-1", "topic_change", {"topic": "dose"})
    switch = await memory.track_language_switch("visit-1", "es", "fr")
    ctx = await memory.handle_mode_switch("visit-1", "text", "voice")
    said = await memory.add_entry(
        "visit-1", MemoryEntry(role="assistant", content="Take two tablets daily.", mode="voice")
    )
    heard = await memory.mark_interrupted("visit-1", said.id, "Take two")
    history = await memory.get_history("visit-1", 2)
    events = await memory.get_events("visit-1", "topic_change")
    context = await memory.get_context("visit-1", max_messages=3, include_rag=False)
    llm = await memory.build_llm_context("visit-1", "and then?", ["Tablets: 2/day"], 400)
    settings_ = await memory.update_settings({"retention_days": 9}, user_id=None)
    info = await memory.get_session("visit-1")
    sessions = await memory.list_sessions()
    closed = await memory.close_session("visit-1")
    return {
        "entry": entry,
        "event": event,
        "switch": switch,
        "ctx": ctx,
        "heard": heard,
        "history": history,
        "events": events,
        "context": context,
        "llm": llm,
        "settings": settings_,
        "info": info,
        "sessions": sessions,
        "closed": closed,
    }


async def test_client_and_service_give_the_same_results(base: str, tmp_path: Path) -> None:
    async with MemoryClient(base, token=token("local")) as remote:
        over_http = await _scenario(remote)
    async with UnifiedMemoryService.from_url(f"sqlite:///{tmp_path / 'local.db'}") as local:
        in_process = await _scenario(local)
    types = {
        "entry": MemoryEntry,
        "event": MemoryEvent,
        "switch": MemoryEvent,
        "ctx": ConversationContext,
        "heard": MemoryEntry,
        "context": ConversationContext,
        "llm": LLMContext,
        "settings": MemorySettings,
        "info": SessionInfo,
        "closed": SessionInfo,
    }
    for key, kind in types.items():
        assert type(over_http[key]) is type(in_process[key]) is kind, key
    assert [e.content for e in over_http["history"]] == [e.content for e in in_process["history"]]
    assert all(isinstance(e, MemoryEntry) for e in over_http["history"])
    assert [e.data for e in over_http["events"]] == [e.data for e in in_process["events"]]
    assert over_http["context"].current_mode == in_process["context"].current_mode == "voice"
    assert over_http["context"].current_language == in_process["context"].current_language
    assert [m.content for m in over_http["context"].messages] == [
        m.content for m in in_process["context"].messages
    ]
    assert over_http["heard"].content == in_process["heard"].content == "Take two"
    assert list(over_http["llm"]) == list(in_process["llm"])
    assert over_http["llm"].token_count == in_process["llm"].token_count
    assert over_http["settings"] == in_process["settings"]
    assert over_http["closed"].closed and in_process["closed"].closed
    assert [s.session_id for s in over_http["sessions"]] == ["visit-1"]


def test_client_has_the_service_methods_with_the_same_signatures() -> None:
    shared = [
        "add_entry",
        "add_event",
        "track_language_switch",
        "handle_mode_switch",
        "close_session",
        "mark_interrupted",
        "get_context",
        "get_history",
        "get_events",
        "get_session",
        "list_sessions",
        "build_llm_context",
        "get_settings",
        "update_settings",
        "delete_user_memory",
        "export_user_memory",
        "search_memory",
    ]
    for name in shared:
        client_params = inspect.signature(getattr(MemoryClient, name)).parameters
        service_params = inspect.signature(getattr(UnifiedMemoryService, name)).parameters
        for param in client_params:
            assert param in service_params, f"{name}({param})"
        for param, spec in service_params.items():
            if param != "actor":
                assert param in client_params, f"{name} lacks {param}"
                assert client_params[param].kind == spec.kind, f"{name}({param})"


async def test_server_errors_are_raised_as_the_same_classes(base: str) -> None:
    async with (
        MemoryClient(base, token=token("alice")) as alice,
        MemoryClient(base, token=token("bob")) as bob,
    ):
        await alice.add_entry("a1", {"role": "user", "content": "mine"})
        assert await bob.get_history("a1") == []  # another user's: as never used
        with pytest.raises(SessionNotFoundError):
            await bob.get_session("a1")
        with pytest.raises(InvalidInputError) as bad:
            await alice.add_entry("a1", {"role": "robot", "content": "x"})
        assert bad.value.field == "role"
        with pytest.raises(ContentTooLargeError):
            await alice.add_entry("a1", {"role": "user", "content": "x" * 40_000})
        await alice.close_session("a1")
        with pytest.raises(SessionClosedError):
            await alice.add_entry("a1", {"role": "user", "content": "late"})
        with pytest.raises(InvalidInputError, match="token"):
            await alice.get_history("a1", user_id="bob")
        receipt = await alice.delete_user_memory("all", user_id=None)
        assert isinstance(receipt, DeletionReceipt) and receipt.counts["entries"] == 1
        export = await alice.export_user_memory(user_id="alice")
        assert export["user_id"] == "alice" and export["entries"] == []


async def test_rate_limit_surfaces_retry_after(tmp_path: Path) -> None:
    app = create_app(settings(tmp_path, rate_limit=RateLimit(1, 60.0)))
    async with running_server(app) as url, MemoryClient(url, token=token("alice")) as client:
        await client.get_settings()
        with pytest.raises(RateLimitedError) as limited:
            await client.get_settings()
        assert limited.value.retry_after >= 1


async def test_unreachable_server_is_store_unavailable() -> None:
    async with MemoryClient("http://127.0.0.1:9", timeout=2) as client:
        with pytest.raises(StoreUnavailableError, match="unimem serve"):
            await client.setup()
