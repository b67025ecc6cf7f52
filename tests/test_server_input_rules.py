"""The input rules of unimem.validation on the server's surfaces (HTTP bodies,
paths and queries, the live WebSocket, bearer tokens, MCP tools and the CLI):
each refusal is a 422 (or its WebSocket/MCP equivalent) naming the field, never
a 5xx, and stores nothing."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest
from click.testing import CliRunner
from mcp.client import Client
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from server_support import SECRET, auth, create_app, running_server, settings, token
from unimem import UnifiedMemoryService
from unimem.cli import main
from unimem.mcp_server import build_mcp_server
from unimem.validation import MAX_JSON_DEPTH

JSON = {"content-type": "application/json"}


def deep(levels: int) -> str:
    """JSON text of an object ``levels`` deep."""
    return '{"a":' * (levels - 1) + '{"a":1}' + "}" * (levels - 1)


@pytest.fixture
async def base(tmp_path: Path) -> AsyncIterator[str]:
    async with running_server(create_app(settings(tmp_path))) as url:
        yield url


@pytest.fixture
async def http(base: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=base, headers={**auth("alice"), **JSON}) as client:
        yield client


async def assert_refused(r: httpx.Response, field: str) -> None:
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["code"] == "invalid_input" and body["field"] == field, body


async def assert_empty(http: httpx.AsyncClient, session_id: str = "s1") -> None:
    assert (await http.get(f"/v1/sessions/{session_id}/history")).json() == []
    assert (await http.get(f"/v1/sessions/{session_id}/events")).json() == []


@pytest.mark.parametrize("levels", [MAX_JSON_DEPTH + 1, 252, 260, 300, 999, 5000, 100_000])
@pytest.mark.parametrize("field", ["metadata", "sources"])
async def test_deep_json_in_an_entry_is_a_422(
    http: httpx.AsyncClient, levels: int, field: str
) -> None:
    value = deep(levels) if field == "metadata" else f"[{deep(levels - 1)}]"
    body = f'{{"role":"user","content":"hi","{field}":{value}}}'
    r = await http.post("/v1/sessions/s1/entries", content=body)
    # beyond what the JSON parser nests the body itself is refused, naming the body
    await assert_refused(r, field if levels < 900 else "(body)")
    assert str(MAX_JSON_DEPTH) in r.json()["message"]
    await assert_empty(http)
    assert (await http.get("/v1/me/export")).status_code == 200


@pytest.mark.parametrize("levels", [MAX_JSON_DEPTH + 1, 300, 999])
async def test_deep_json_in_event_data_and_rag_results_is_a_422(
    http: httpx.AsyncClient, levels: int
) -> None:
    field = "data" if levels < 900 else "(body)"
    r = await http.post(
        "/v1/sessions/s1/events", content=f'{{"event_type":"note","data":{deep(levels)}}}'
    )
    await assert_refused(r, field)
    for route in ("llm-context", "reply"):
        r = await http.post(
            f"/v1/sessions/s1/{route}",
            content=f'{{"current_query":"hi","rag_results":[{deep(levels)}]}}',
        )
        await assert_refused(r, "rag_results" if levels < 900 else "(body)")
    await assert_empty(http)


async def test_json_at_the_limit_is_accepted_and_read_back(http: httpx.AsyncClient) -> None:
    body = f'{{"role":"user","content":"hi","metadata":{deep(MAX_JSON_DEPTH)}}}'
    assert (await http.post("/v1/sessions/s1/entries", content=body)).status_code == 201
    assert (await http.get("/v1/sessions/s1/context")).status_code == 200
    assert (await http.get("/v1/me/export")).status_code == 200


@pytest.mark.parametrize("number", ["1e400", "-1e400", "NaN", "Infinity", "-Infinity"])
async def test_non_finite_numbers_are_a_422(http: httpx.AsyncClient, number: str) -> None:
    entry = '{{"role":"user","content":"hi",{}}}'
    for extra, field in (
        (f'"latency_ms":{number}', "latency_ms"),
        (f'"metadata":{{"x":{number}}}', "metadata"),
        (f'"sources":[{{"x":[{number}]}}]', "sources"),
    ):
        r = await http.post("/v1/sessions/s1/entries", content=entry.format(extra))
        await assert_refused(r, field)
    r = await http.post(
        "/v1/sessions/s1/events", content=f'{{"event_type":"note","data":{{"x":{number}}}}}'
    )
    await assert_refused(r, "data")
    r = await http.post(
        "/v1/sessions/s1/llm-context", content=f'{{"current_query":"hi","budget_ms":{number}}}'
    )
    await assert_refused(r, "budget_ms")
    await assert_empty(http)


@pytest.mark.parametrize("content", ["", "   ", "\n\t", "\u200b", "\ufeff\u2060"])
async def test_blank_content_is_a_422(http: httpx.AsyncClient, content: str) -> None:
    for role in ("user", "assistant", "system"):
        r = await http.post("/v1/sessions/s1/entries", json={"role": role, "content": content})
        await assert_refused(r, "content")
    await assert_empty(http)


async def test_far_future_timestamps_are_a_422(http: httpx.AsyncClient) -> None:
    r = await http.post(
        "/v1/sessions/s1/entries",
        json={"role": "user", "content": "hi", "timestamp": "2999-01-01T00:00:00Z"},
    )
    await assert_refused(r, "timestamp")
    await assert_empty(http)


async def test_ids_ending_in_a_newline_are_a_422(http: httpx.AsyncClient) -> None:
    r = await http.post(
        "/v1/sessions/s1/entries", json={"id": "nl-x\n", "role": "user", "content": "hi"}
    )
    await assert_refused(r, "entry.id")
    r = await http.post("/v1/sessions/nl-x%0A/entries", json={"role": "user", "content": "hi"})
    assert r.status_code == 422 and r.json()["field"] == "session_id"
    r = await http.delete("/v1/me/memory", params={"scope": "session", "session_id": "s1\n"})
    assert r.status_code == 422 and r.json()["field"] == "session_id"
    assert (await http.get("/v1/sessions")).json()["sessions"] == []


async def test_a_token_whose_sub_ends_in_a_newline_is_refused(base: str) -> None:
    now = int(time.time())
    bad = jwt.encode({"sub": "alice\n", "iat": now, "exp": now + 60}, SECRET, algorithm="HS256")
    async with httpx.AsyncClient(base_url=base) as client:
        r = await client.get("/v1/sessions", headers={"Authorization": f"Bearer {bad}"})
    assert r.status_code == 401 and "sub" in r.json()["message"]


def test_unimem_token_refuses_a_user_ending_in_a_newline() -> None:
    result = CliRunner().invoke(
        main, ["token", "--user", "alice\n"], env={"UNIMEM_JWT_SECRET": SECRET}
    )
    assert result.exit_code != 0 and "eyJ" not in result.output


async def test_scoped_deletion_without_its_id_is_a_422(http: httpx.AsyncClient) -> None:
    await http.post("/v1/sessions/s1/entries", json={"role": "user", "content": "keep me"})
    r = await http.delete("/v1/me/memory", params={"scope": "session"})
    await assert_refused(r, "session_id")
    assert len((await http.get("/v1/sessions/s1/history")).json()) == 1


async def test_the_live_socket_applies_the_same_rules(base: str) -> None:
    url = base.replace("http://", "ws://") + "/v1/sessions/{}/live?token=" + token("alice")
    async with connect(url.format("s1"), open_timeout=5) as ws:
        assert json.loads(await ws.recv())["type"] == "ready"
        cases: list[tuple[dict[str, Any], str]] = [
            ({"role": "user", "content": "hi", "metadata": json.loads(deep(300))}, "metadata"),
            ({"role": "user", "content": "   "}, "content"),
            ({"role": "user", "content": "hi", "timestamp": "2999-01-01T00:00:00Z"}, "timestamp"),
            ({"role": "user", "content": "hi", "id": "e\n"}, "entry.id"),
        ]
        for i, (entry, field) in enumerate(cases):
            await ws.send(json.dumps({"type": "entry", "entry": entry, "request_id": i}))
            reply = json.loads(await ws.recv())
            assert reply["type"] == "error" and reply["request_id"] == i
            assert reply["error"]["field"] == field
        await ws.send('{"type":"entry","entry":{"role":"user","content":"x","latency_ms":1e400}}')
        reply = json.loads(await ws.recv())  # the frame's parser refuses it outright
        assert reply["type"] == "error" and reply["error"]["field"] == "(frame)"
        assert "infinity" in reply["error"]["message"]
    async with connect(url.format("wsnl-x%0A"), open_timeout=5) as ws:
        with pytest.raises(ConnectionClosed) as closed:
            await ws.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4422
    async with httpx.AsyncClient(base_url=base, headers=auth("alice")) as http:
        assert (await http.get("/v1/sessions")).json()["sessions"] == []


async def test_mcp_tools_apply_the_same_rules(tmp_path: Path) -> None:
    service = UnifiedMemoryService.from_url(f"sqlite:///{tmp_path / 'mcp.db'}")
    async with service, Client(build_mcp_server(service, "alice")) as client:
        for args, field in (
            ({"session_id": "s1", "role": "user", "content": "  "}, "content"),
            ({"session_id": "s1\n", "role": "user", "content": "hi"}, "session_id"),
        ):
            result = await client.call_tool("add_entry", args)
            assert result.is_error and json.loads(result.content[0].text)["field"] == field
        scoped = await client.call_tool("delete_memory", {"scope": "session"})
        assert scoped.is_error and json.loads(scoped.content[0].text)["field"] == "session_id"
        assert await service.list_sessions(user_id="alice") == []
