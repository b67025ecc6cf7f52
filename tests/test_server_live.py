"""The live WebSocket on a real uvicorn server: every stored entry and event of a
session reaches every connected client of its owner, and nobody else."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from server_support import auth, create_app, running_server, settings, token


@pytest.fixture
async def base(tmp_path: Path) -> AsyncIterator[str]:
    async with running_server(create_app(settings(tmp_path))) as url:
        yield url


def _ws(base: str, session: str, user: str | None = None, **kwargs: Any) -> Any:
    url = base.replace("http://", "ws://") + f"/v1/sessions/{session}/live"
    if user is not None:
        url += f"?token={token(user)}"
    return connect(url, open_timeout=5, **kwargs)


async def _recv(ws: ClientConnection) -> dict[str, Any]:
    frame: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 5))
    return frame


async def _ready(ws: ClientConnection) -> None:
    assert (await _recv(ws))["type"] == "ready"


async def test_entries_and_events_reach_every_client_of_the_owner(base: str) -> None:
    async with _ws(base, "s1", "alice") as phone, _ws(base, "s1", "alice") as laptop:
        await _ready(phone)
        await _ready(laptop)
        async with httpx.AsyncClient(base_url=base, headers=auth("alice")) as http:
            await http.post(
                "/v1/sessions/s1/entries",
                json={"role": "user", "content": "hola", "mode": "voice", "language": "es"},
            )
            await http.post(
                "/v1/sessions/s1/entries",
                json={"role": "user", "content": "typed", "mode": "text", "language": "es"},
            )
        for ws in (phone, laptop):
            first = await _recv(ws)
            assert first["type"] == "entry" and first["item"]["content"] == "hola"
            second = await _recv(ws)
            assert second["type"] == "entry" and second["item"]["mode"] == "text"
            switch = await _recv(ws)
            assert switch["type"] == "event" and switch["item"]["event_type"] == "mode_switch"


async def test_clients_may_send_entries_over_the_socket(base: str) -> None:
    async with _ws(base, "s2", "alice") as phone, _ws(base, "s2", "alice") as laptop:
        await _ready(phone)
        await _ready(laptop)
        entry = {"role": "user", "content": "spoken", "mode": "voice"}
        await phone.send(json.dumps({"type": "entry", "entry": entry, "request_id": 7}))
        frames = [await _recv(phone), await _recv(phone)]
        ack = next(f for f in frames if f["type"] == "ack")
        assert ack["request_id"] == 7 and ack["entry"]["seq"] == 1
        pushed = await _recv(laptop)
        assert pushed["type"] == "entry" and pushed["item"]["id"] == ack["entry"]["id"]
    async with httpx.AsyncClient(base_url=base, headers=auth("alice")) as http:
        history = (await http.get("/v1/sessions/s2/history")).json()
        assert [e["content"] for e in history] == ["spoken"]


async def test_bad_frames_get_an_error_and_the_socket_stays_open(base: str) -> None:
    async with _ws(base, "s3", "alice") as ws:
        await _ready(ws)
        await ws.send("not json")
        error = await _recv(ws)
        assert error["type"] == "error" and error["error"]["field"] == "(frame)"
        await ws.send(json.dumps({"type": "entry", "entry": {"role": "robot", "content": "x"}}))
        error = await _recv(ws)
        assert error["error"]["field"] == "role"
        await ws.send(json.dumps({"type": "ping"}))
        assert (await _recv(ws))["type"] == "pong"


async def test_another_users_session_is_served_as_one_never_used(base: str) -> None:
    """bob's socket on alice's session opens as on an unused id, gets nothing of
    hers, and is closed 4404 only when he writes there."""
    async with httpx.AsyncClient(base_url=base, headers=auth("alice")) as http:
        await http.post("/v1/sessions/s4/entries", json={"role": "user", "content": "secret"})
        async with _ws(base, "s4", "bob") as theirs, _ws(base, "s4-unused", "bob") as unused:
            assert await _recv(theirs) == {"type": "ready", "session_id": "s4"}
            assert await _recv(unused) == {"type": "ready", "session_id": "s4-unused"}
            await http.post("/v1/sessions/s4/entries", json={"role": "user", "content": "more"})
            await theirs.send(json.dumps({"type": "ping"}))
            assert await _recv(theirs) == {"type": "pong"}  # nothing of alice's came first
            await theirs.send(
                json.dumps({"type": "entry", "entry": {"role": "user", "content": "bob"}})
            )
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    frame = await _recv(theirs)
                    assert frame["type"] != "entry"
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4404


@pytest.mark.parametrize("credentials", [None, "garbage"])
async def test_missing_or_bad_token_closes_with_4401(base: str, credentials: str | None) -> None:
    url = base.replace("http://", "ws://") + "/v1/sessions/s5/live"
    if credentials:
        url += f"?token={credentials}"
    async with connect(url, open_timeout=5) as ws:
        with pytest.raises(ConnectionClosed) as closed:
            await _recv(ws)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401


async def test_authorization_header_works_too(base: str) -> None:
    headers = {"Authorization": f"Bearer {token('alice')}"}
    async with _ws(base, "s6", additional_headers=headers) as ws:
        await _ready(ws)


async def test_a_listener_on_an_unowned_id_never_sees_the_owners_items(base: str) -> None:
    """Bob subscribes to an id nobody has used yet; Alice then creates it."""
    async with _ws(base, "s7", "bob") as bob, _ws(base, "s7", "alice") as alice:
        await _ready(bob)
        await _ready(alice)
        async with httpx.AsyncClient(base_url=base, headers=auth("alice")) as http:
            await http.post("/v1/sessions/s7/entries", json={"role": "user", "content": "mine"})
        assert (await _recv(alice))["item"]["content"] == "mine"
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(bob.recv(), 0.3)
        await bob.send(json.dumps({"type": "entry", "entry": {"role": "user", "content": "x"}}))
        with pytest.raises(ConnectionClosed) as closed:
            await _recv(bob)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4404


async def test_deleting_memory_tells_the_other_open_tabs(base: str) -> None:
    async with httpx.AsyncClient(base_url=base, headers=auth("alice")) as http:
        await http.post("/v1/sessions/s1/entries", json={"role": "user", "content": "hi"})
        async with _ws(base, "s1", "alice") as other_tab:
            await _ready(other_tab)
            # Another user deleting their memory tells alice nothing.
            r = await http.delete("/v1/me/memory", params={"scope": "all"}, headers=auth("bob"))
            assert r.status_code == 200
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(other_tab.recv(), 0.3)
            r = await http.delete("/v1/me/memory", params={"scope": "all"})
            assert r.status_code == 200
            notice = await _recv(other_tab)
            assert notice["type"] == "memory_deleted"
            assert notice["item"]["data"] == {"scope": "all"}
            with pytest.raises(TimeoutError):  # one notice, not one per layer that sent it
                await asyncio.wait_for(other_tab.recv(), 0.3)
        # A notice, not a stored event.
        events = await http.get("/v1/sessions/s1/events")
        assert events.status_code == 200 and events.json() == []


async def test_deleting_one_session_sends_one_notice(base: str) -> None:
    async with httpx.AsyncClient(base_url=base, headers=auth("alice")) as http:
        await http.post("/v1/sessions/s1/entries", json={"role": "user", "content": "hi"})
        async with _ws(base, "s1", "alice") as other_tab:
            await _ready(other_tab)
            r = await http.delete("/v1/me/memory", params={"scope": "session", "session_id": "s1"})
            assert r.status_code == 200
            notice = await _recv(other_tab)
            assert notice["type"] == "memory_deleted"
            assert notice["item"]["data"] == {"scope": "session"}
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(other_tab.recv(), 0.3)
