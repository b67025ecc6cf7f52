"""The HTTP API's happy paths: every /v1 endpoint returns the library's models."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from server_support import asgi_client, auth, create_app, settings
from unimem import ConversationContext, MemoryEntry, MemoryEvent, SessionInfo


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    async with asgi_client(create_app(settings(tmp_path)), headers=auth("alice")) as c:
        yield c


async def test_add_entry_returns_the_stored_entry_with_server_fields(
    client: httpx.AsyncClient,
) -> None:
    r = await client.post(
        "/v1/sessions/visit-1/entries",
        json={
            "role": "user",
            "content": "What is metformin for?",
            "mode": "voice",
            "language": "en",
        },
    )
    assert r.status_code == 201
    entry = MemoryEntry.model_validate(r.json())
    assert entry.id and entry.seq == 1 and entry.timestamp is not None
    assert entry.user_id == "alice" and entry.session_id == "visit-1"
    assert entry.detected_language == "en" and entry.language_switched is False
    assert entry.phi_detected is False


async def test_resending_an_entry_id_is_idempotent(client: httpx.AsyncClient) -> None:
    body = {"id": "e-1", "role": "user", "content": "hello"}
    first = await client.post("/v1/sessions/s/entries", json=body)
    second = await client.post("/v1/sessions/s/entries", json=body)
    assert first.status_code == second.status_code == 201
    assert first.json() == second.json()
    history = await client.get("/v1/sessions/s/history")
    assert len(history.json()) == 1


async def test_switches_are_recorded_and_context_follows(client: httpx.AsyncClient) -> None:
    await client.post(
        "/v1/sessions/s/entries",
        json={"role": "user", "content": "hi", "mode": "voice", "language": "en"},
    )
    r = await client.post(
        "/v1/sessions/s/entries",
        json={"role": "user", "content": "¿y la dosis?", "mode": "text", "language": "es"},
        params={"trigger": "user_request"},
    )
    assert r.json()["language_switched"] is True
    ctx = ConversationContext.model_validate(
        (await client.get("/v1/sessions/s/context", params={"max_messages": 1})).json()
    )
    assert [m.content for m in ctx.messages] == ["¿y la dosis?"]
    assert ctx.current_mode == "text" and ctx.current_language == "es"
    assert ctx.language_events[-1]["trigger"] == "user_request"
    assert ctx.mode_events[-1]["to_mode"] == "text"

    switched = await client.post(
        "/v1/sessions/s/mode-switch", json={"from_mode": "text", "to_mode": "voice"}
    )
    assert switched.status_code == 200
    assert ConversationContext.model_validate(switched.json()).current_mode == "voice"

    lang = await client.post(
        "/v1/sessions/s/language-switch",
        json={"from_language": "es", "to_language": "ar", "trigger": "explicit_setting"},
    )
    assert lang.status_code == 201
    event = MemoryEvent.model_validate(lang.json())
    assert event.event_type == "language_switch" and event["to_language"] == "ar"
    ctx2 = (await client.get("/v1/sessions/s/context")).json()
    assert ctx2["current_language"] == "ar"


async def test_context_without_rag_and_of_unknown_session(client: httpx.AsyncClient) -> None:
    await client.post(
        "/v1/sessions/s/entries",
        json={
            "role": "assistant",
            "content": "a",
            "retrieved_passages": ["p1"],
            "sources": [{"u": 1}],
        },
    )
    with_rag = (await client.get("/v1/sessions/s/context")).json()
    assert with_rag["rag_context"]["passages"] == ["p1"]
    without = (await client.get("/v1/sessions/s/context", params={"include_rag": "false"})).json()
    assert without["rag_context"]["passages"] == []
    empty = await client.get("/v1/sessions/never-written/context")
    assert empty.status_code == 200 and empty.json()["messages"] == []


async def test_history_pages_back_with_before_seq(client: httpx.AsyncClient) -> None:
    for i in range(5):
        await client.post("/v1/sessions/s/entries", json={"role": "user", "content": f"m{i}"})
    page = (await client.get("/v1/sessions/s/history", params={"max_messages": 2})).json()
    assert [e["content"] for e in page] == ["m3", "m4"]
    older = await client.get("/v1/sessions/s/history", params={"max_messages": 2, "before_seq": 4})
    assert [e["content"] for e in older.json()] == ["m1", "m2"]


async def test_events_are_recorded_and_filtered(client: httpx.AsyncClient) -> None:
    await client.post("/v1/sessions/s/entries", json={"role": "user", "content": "x"})
    r = await client.post(
        "/v1/sessions/s/events", json={"event_type": "topic_change", "data": {"topic": "dosage"}}
    )
    assert r.status_code == 201 and r.json()["seq"] is not None
    await client.post("/v1/sessions/s/events", json={"event_type": "rag_retrieval"})
    topics = (
        await client.get("/v1/sessions/s/events", params={"event_type": "topic_change"})
    ).json()
    assert [e["data"] for e in topics] == [{"topic": "dosage"}]
    everything = (await client.get("/v1/sessions/s/events", params={"limit": 10})).json()
    assert [e["event_type"] for e in everything] == ["topic_change", "rag_retrieval"]


async def test_close_session_refuses_later_writes_with_409(client: httpx.AsyncClient) -> None:
    await client.post("/v1/sessions/s/entries", json={"role": "user", "content": "x"})
    closed = await client.post("/v1/sessions/s/close")
    assert closed.status_code == 200
    assert SessionInfo.model_validate(closed.json()).closed
    late = await client.post("/v1/sessions/s/entries", json={"role": "user", "content": "y"})
    assert late.status_code == 409 and late.json()["code"] == "session_closed"
    assert len((await client.get("/v1/sessions/s/history")).json()) == 1


async def test_close_unknown_session_is_404(client: httpx.AsyncClient) -> None:
    r = await client.post("/v1/sessions/nope/close")
    assert r.status_code == 404 and r.json()["code"] == "session_not_found"


async def test_list_sessions_is_paginated_newest_first(client: httpx.AsyncClient) -> None:
    for name in ("a", "b", "c"):
        await client.post(f"/v1/sessions/{name}/entries", json={"role": "user", "content": "x"})
    first = (await client.get("/v1/sessions", params={"limit": 2})).json()
    assert [s["session_id"] for s in first["sessions"]] == ["c", "b"]
    assert first["next_offset"] == 2
    last = (await client.get("/v1/sessions", params={"limit": 2, "offset": 2})).json()
    assert [s["session_id"] for s in last["sessions"]] == ["a"]
    assert last["next_offset"] is None
    info = (await client.get("/v1/sessions/a")).json()
    assert info["user_id"] == "alice" and info["message_count"] == 1


async def test_settings_round_trip(client: httpx.AsyncClient) -> None:
    assert (await client.get("/v1/me/settings")).json()["retention_days"] == 30
    r = await client.put("/v1/me/settings", json={"retention_days": 7, "save_rag_context": False})
    assert r.status_code == 200
    got = (await client.get("/v1/me/settings")).json()
    assert got["retention_days"] == 7 and got["save_rag_context"] is False
    bad = await client.put("/v1/me/settings", json={"retention_days": 0})
    assert bad.status_code == 422 and bad.json()["field"] == "retention_days"
    assert (await client.get("/v1/me/settings")).json()["retention_days"] == 7


async def test_operation_ids_are_stable(client: httpx.AsyncClient) -> None:
    spec = (await client.get("/openapi.json")).json()
    ids = {op["operationId"] for path in spec["paths"].values() for op in path.values()}
    assert {
        "add_entry",
        "get_context",
        "get_history",
        "get_session",
        "add_event",
        "get_events",
        "handle_mode_switch",
        "track_language_switch",
        "build_llm_context",
        "mark_interrupted",
        "close_session",
        "list_sessions",
        "get_settings",
        "update_settings",
        "delete_user_memory",
        "export_user_memory",
        "healthz",
        "readyz",
    } <= ids


async def test_llm_context_fits_the_token_limit(client: httpx.AsyncClient) -> None:
    await client.post(
        "/v1/sessions/s/entries", json={"role": "user", "content": "I take metformin."}
    )
    await client.post("/v1/sessions/s/entries", json={"role": "assistant", "content": "Noted."})
    r = await client.post(
        "/v1/sessions/s/llm-context",
        json={
            "current_query": "What dose?",
            "rag_results": ["Metformin: 500 mg twice daily.", {"content": "x", "source": "y"}],
            "max_tokens": 500,
            "budget_ms": 50,
        },
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["messages"][-1] == {"role": "user", "content": "What dose?"}
    assert 0 < body["token_count"] <= 500
    assert isinstance(body["degradations"], list)
    assert any("metformin" in m["content"].lower() for m in body["messages"])


async def test_mark_interrupted_keeps_what_was_heard(client: httpx.AsyncClient) -> None:
    await client.post("/v1/sessions/s/entries", json={"role": "user", "content": "Tell me"})
    said = await client.post(
        "/v1/sessions/s/entries",
        json={"role": "assistant", "content": "First do this, then that.", "mode": "voice"},
    )
    r = await client.post(
        f"/v1/sessions/s/entries/{said.json()['id']}/interrupted",
        json={"spoken_text": "First do this"},
    )
    assert r.status_code == 200, r.text
    assert r.json()["content"] == "First do this"
    events = await client.get("/v1/sessions/s/events", params={"event_type": "interruption"})
    assert len(events.json()) == 1
    missing = await client.post(
        "/v1/sessions/s/entries/nope/interrupted", json={"spoken_text": "x"}
    )
    assert missing.status_code == 404 and missing.json()["code"] == "entry_not_found"


async def test_delete_session_scope_and_export(client: httpx.AsyncClient) -> None:
    for sid in ("keep", "drop"):
        await client.post(f"/v1/sessions/{sid}/entries", json={"role": "user", "content": sid})
    r = await client.delete("/v1/me/memory", params={"scope": "session", "session_id": "drop"})
    assert r.status_code == 200 and r.json()["counts"]["entries"] == 1
    export = (await client.get("/v1/me/export")).json()
    assert export["user_id"] == "alice"
    assert [e["content"] for e in export["entries"]] == ["keep"]
    day = await client.delete("/v1/me/memory", params={"scope": "day", "tz": "Europe/Paris"})
    assert day.status_code == 200 and day.json()["scope"] == "day"
    assert (await client.get("/v1/sessions/keep/history")).json() == []
