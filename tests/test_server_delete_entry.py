"""DELETE /v1/sessions/{id}/entries/{entry_id} and MemoryClient.delete_entry."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from server_support import asgi_client, auth, create_app, running_server, settings, token
from unimem import MemoryEntry
from unimem.client import MemoryClient


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    async with asgi_client(create_app(settings(tmp_path))) as http:
        yield http


async def _add(client: httpx.AsyncClient, sid: str, text: str, user: str = "alice") -> str:
    response = await client.post(
        f"/v1/sessions/{sid}/entries", json={"role": "user", "content": text}, headers=auth(user)
    )
    assert response.status_code == 201
    entry_id: str = response.json()["id"]
    return entry_id


async def test_delete_entry_route(client: httpx.AsyncClient) -> None:
    keep = await _add(client, "visit-d", "keep me")
    gone = await _add(client, "visit-d", "delete me")
    response = await client.delete(f"/v1/sessions/visit-d/entries/{gone}", headers=auth("alice"))
    assert response.status_code == 200
    assert response.json() == {"session_id": "visit-d", "entry_id": gone, "deleted": True}
    history = (await client.get("/v1/sessions/visit-d/history", headers=auth("alice"))).json()
    assert [e["id"] for e in history] == [keep]
    again = await client.delete(f"/v1/sessions/visit-d/entries/{gone}", headers=auth("alice"))
    assert again.status_code == 200 and again.json()["deleted"] is False


async def test_another_users_entry_reads_as_missing(client: httpx.AsyncClient) -> None:
    entry = await _add(client, "visit-e", "private")
    theirs = await client.delete(f"/v1/sessions/visit-e/entries/{entry}", headers=auth("bob"))
    never = await client.delete("/v1/sessions/never-used/entries/x1", headers=auth("bob"))
    assert theirs.status_code == never.status_code == 200
    assert theirs.json()["deleted"] is never.json()["deleted"] is False
    history = (await client.get("/v1/sessions/visit-e/history", headers=auth("alice"))).json()
    assert len(history) == 1


async def test_client_delete_entry(tmp_path: Path) -> None:
    async with (
        running_server(create_app(settings(tmp_path))) as url,
        MemoryClient(url, token=token("alice")) as memory,
    ):
        entry = await memory.add_entry("visit-c", MemoryEntry(role="user", content="oops"))
        assert await memory.delete_entry("visit-c", entry.id) is True
        assert await memory.delete_entry("visit-c", entry.id) is False
        assert await memory.get_history("visit-c") == []
