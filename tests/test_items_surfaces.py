"""Namespaced items over HTTP, through ``MemoryClient`` and as MCP tools: the
same behaviour as the service, each caller's own items only, and a client's
mistake is a 422 naming the field."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from mcp.client import Client

from server_support import asgi_client, auth, create_app, running_server, settings, token
from unimem import InvalidInputError, StoredItem, UnifiedMemoryService
from unimem.cli import main
from unimem.client import MemoryClient
from unimem.mcp_server import build_mcp_server

FOOD = ["memories", "food"]


async def test_item_routes_are_the_callers_own(tmp_path: Path) -> None:
    async with asgi_client(create_app(settings(tmp_path))) as http:
        body = {"namespace": FOOD, "key": "ramen", "value": {"text": "loves ramen"}}
        put = await http.put("/v1/me/items", json=body, headers=auth("alice"))
        assert put.status_code == 200, put.text
        assert put.json()["value"] == {"text": "loves ramen"}
        ref = {"namespace": FOOD, "key": "ramen"}
        assert (await http.post("/v1/me/items/get", json=ref, headers=auth("bob"))).json() is None
        mine = await http.post("/v1/me/items/get", json=ref, headers=auth("alice"))
        assert mine.json()["key"] == "ramen"
        search = {"namespace_prefix": ["memories"], "query": "ramen"}
        hits = await http.post("/v1/me/items/search", json=search, headers=auth("alice"))
        assert [h["key"] for h in hits.json()] == ["ramen"]
        theirs = await http.post("/v1/me/items/search", json=search, headers=auth("bob"))
        assert theirs.json() == []
        names = await http.post("/v1/me/items/namespaces", json={}, headers=auth("alice"))
        assert names.json() == [FOOD]
        gone = await http.post("/v1/me/items/delete", json=ref, headers=auth("bob"))
        assert gone.json() == {"deleted": False}
        gone = await http.post("/v1/me/items/delete", json=ref, headers=auth("alice"))
        assert gone.json() == {"deleted": True}


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/v1/me/items", {"namespace": ["a.b"], "key": "k", "value": {}}, "namespace"),
        ("/v1/me/items", {"namespace": [], "key": "k", "value": {}}, "namespace"),
        ("/v1/me/items", {"namespace": ["m"], "key": "k", "value": [1]}, "value"),
        ("/v1/me/items/search", {"filter": {"n": {"$regex": "x"}}}, "filter"),
        ("/v1/me/items/search", {"limit": 5000}, "limit"),
        ("/v1/me/items/namespaces", {"max_depth": 0}, "max_depth"),
    ],
)
async def test_item_input_errors_name_the_field(
    tmp_path: Path, path: str, body: dict[str, Any], field: str
) -> None:
    async with asgi_client(create_app(settings(tmp_path)), headers=auth("alice")) as http:
        method = http.put if path == "/v1/me/items" else http.post
        response = await method(path, json=body)
        assert response.status_code == 422, response.text
        assert field in response.text


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/v1/me/items", '{"namespace": ["m"], "key": "a\\ud800", "value": {}}', "key"),
        ("/v1/me/items", '{"namespace": ["m\\ud800"], "key": "k", "value": {}}', "namespace"),
        ("/v1/me/items/get", '{"namespace": ["m"], "key": "a\\ud800"}', "key"),
        ("/v1/me/items/search", '{"query": "a\\ud800"}', "query"),
    ],
)
async def test_a_lone_surrogate_is_a_422_naming_the_field(
    tmp_path: Path, path: str, body: str, field: str
) -> None:
    # JSON may escape a lone surrogate, which no UTF-8 store can keep
    async with asgi_client(create_app(settings(tmp_path)), headers=auth("alice")) as http:
        method = http.put if path == "/v1/me/items" else http.post
        response = await method(path, content=body, headers={"content-type": "application/json"})
        assert response.status_code == 422, response.text
        assert response.json()["field"] == field


async def _scenario(memory: UnifiedMemoryService | MemoryClient) -> dict[str, Any]:
    out: dict[str, Any] = {}
    out["put"] = await memory.put_item(FOOD, "ramen", {"text": "loves spicy ramen", "stars": 5})
    await memory.put_item(FOOD, "kale", {"text": "dislikes kale", "stars": 1})
    await memory.put_item(["profile"], "name", {"text": "prefers Ali"})
    out["got"] = await memory.get_item(FOOD, "ramen")
    out["none"] = await memory.get_item(FOOD, "nothing")
    out["ranked"] = await memory.search_items(["memories"], query="ramen")
    out["filtered"] = await memory.search_items([], filter={"stars": {"$lt": 3}})
    out["names"] = await memory.list_item_namespaces(max_depth=1)
    out["deleted"] = await memory.delete_item(FOOD, "kale")
    out["again"] = await memory.delete_item(FOOD, "kale")
    with pytest.raises(InvalidInputError) as caught:
        await memory.put_item(["a.b"], "k", {})
    out["error"] = caught.value.field
    return out


async def test_client_and_service_answer_the_same(tmp_path: Path) -> None:
    async with (
        running_server(create_app(settings(tmp_path))) as base,
        MemoryClient(base, token=token("local")) as remote,
    ):
        over_http = await _scenario(remote)
    async with UnifiedMemoryService.from_url(f"sqlite:///{tmp_path / 'in.db'}") as local:
        in_process = await _scenario(local)
    for side in (over_http, in_process):
        assert type(side["put"]) is type(side["got"]) is StoredItem
        assert side["none"] is None
    assert [i.key for i in over_http["ranked"]] == [i.key for i in in_process["ranked"]]
    assert over_http["ranked"][0].score == in_process["ranked"][0].score
    assert [i.key for i in over_http["filtered"]] == ["kale"]
    for key in ("names", "deleted", "again", "error"):
        assert over_http[key] == in_process[key], key
    assert over_http["names"] == [["memories"], ["profile"]]


def _payload(result: Any) -> Any:
    return json.loads(result.content[0].text)


async def test_mcp_item_tools(tmp_path: Path) -> None:
    async with UnifiedMemoryService.from_url(f"sqlite:///{tmp_path / 'mcp.db'}") as service:
        async with Client(build_mcp_server(service, "carol")) as client:
            put = _payload(
                await client.call_tool(
                    "put_item", {"namespace": FOOD, "key": "k", "value": {"text": "likes tea"}}
                )
            )
            assert put["value"] == {"text": "likes tea"}
            got = _payload(await client.call_tool("get_item", {"namespace": FOOD, "key": "k"}))
            assert got["item"]["key"] == "k"
            found = _payload(
                await client.call_tool("search_items", {"namespace_prefix": [], "query": "tea"})
            )
            assert [i["key"] for i in found["items"]] == ["k"]
            names = _payload(await client.call_tool("list_item_namespaces", {}))
            assert names == {"namespaces": [FOOD]}
            gone = _payload(await client.call_tool("delete_item", {"namespace": FOOD, "key": "k"}))
            assert gone == {"deleted": True}
        assert await service.get_item(FOOD, "k", user_id="carol") is None


def test_cli_lists_and_deletes_items(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'cli.db'}"

    async def planted() -> None:
        async with UnifiedMemoryService.from_url(url) as service:
            await service.put_item(
                FOOD, "ramen", {"text": "loves ramen", "stars": 5}, user_id="erin"
            )
            await service.put_item(
                FOOD, "kale", {"text": "dislikes kale", "stars": 1}, user_id="erin"
            )
            await service.put_item(["profile"], "name", {"text": "Erin"}, user_id="ivan")

    asyncio.run(planted())
    runner = CliRunner()
    base = ["--user", "erin", "--database-url", url]
    listed = runner.invoke(main, ["items", "list", *base, "--prefix", "memories", "--json"])
    assert listed.exit_code == 0, listed.output
    assert sorted(i["key"] for i in json.loads(listed.output)) == ["kale", "ramen"]
    ranked = runner.invoke(main, ["items", "list", *base, "--query", "kale"])
    assert ranked.output.splitlines()[0].startswith("memories/food  kale  ")
    good = runner.invoke(main, ["items", "list", *base, "--filter", '{"stars": {"$gt": 3}}'])
    assert [line.split()[1] for line in good.output.splitlines()] == ["ramen"]
    bad = runner.invoke(main, ["items", "list", *base, "--filter", "{not json"])
    assert bad.exit_code == 2 and "not JSON" in bad.output
    names = runner.invoke(main, ["items", "namespaces", *base])
    assert names.output.splitlines() == ["memories/food"]
    gone = runner.invoke(main, ["items", "delete", *base, "memories/food", "kale"])
    assert gone.exit_code == 0
    again = runner.invoke(main, ["items", "delete", *base, "memories/food", "kale"])
    assert again.exit_code == 1 and "no item 'kale'" in again.output
    theirs = runner.invoke(main, ["items", "list", *base, "--prefix", "profile"])
    assert theirs.exit_code == 0 and "no items" in theirs.output
