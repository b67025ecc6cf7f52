"""Pinned facts, pinning, TTL extension and the audit log over HTTP, through
``MemoryClient`` and as MCP tools: the same behaviour as the service."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp.client import Client

from server_support import asgi_client, auth, create_app, running_server, settings, token
from unimem import SessionNotFoundError, UnifiedMemoryService
from unimem.client import MemoryClient
from unimem.mcp_server import build_mcp_server
from unimem.models import AuditRecord, Fact

ENTRY = {"role": "user", "content": "I take metformin every morning", "mode": "voice"}


async def test_fact_routes_are_the_callers_own(tmp_path: Path) -> None:
    async with asgi_client(create_app(settings(tmp_path))) as http:
        created = await http.post(
            "/v1/me/facts",
            json={"text": "Allergic to penicillin", "kind": "allergy"},
            headers=auth("alice"),
        )
        assert created.status_code == 201, created.text
        fact = created.json()
        assert (fact["user_id"], fact["kind"], fact["text"]) == (
            "alice",
            "allergy",
            "Allergic to penicillin",
        )
        listed = await http.get("/v1/me/facts", headers=auth("alice"))
        assert [f["id"] for f in listed.json()] == [fact["id"]]
        assert (await http.get("/v1/me/facts", headers=auth("bob"))).json() == []
        # in every context of alice's
        await http.post("/v1/sessions/a1/entries", json=ENTRY, headers=auth("alice"))
        llm = await http.post(
            "/v1/sessions/a1/llm-context", json={"current_query": "dose?"}, headers=auth("alice")
        )
        assert "Allergic to penicillin" in json.dumps(llm.json()["messages"])
        # another user's fact id deletes nothing, as an id that never existed
        url = f"/v1/me/facts/{fact['id']}"
        theirs = await http.delete(url, headers=auth("bob"))
        assert theirs.status_code == 200 and theirs.json() == {
            "fact_id": fact["id"],
            "deleted": False,
        }
        never = await http.delete("/v1/me/facts/no-such-fact", headers=auth("bob"))
        assert never.json() == {"fact_id": "no-such-fact", "deleted": False}
        mine = await http.delete(url, headers=auth("alice"))
        assert mine.json() == {"fact_id": fact["id"], "deleted": True}
        left = (await http.get("/v1/me/facts", headers=auth("alice"))).json()
        assert [f["key"] for f in left] == ["medication:metformin"]  # found in alice's turn


async def test_fact_input_errors_name_the_field(tmp_path: Path) -> None:
    async with asgi_client(create_app(settings(tmp_path)), headers=auth("alice")) as http:
        empty = await http.post("/v1/me/facts", json={"text": "   "})
        assert empty.status_code == 422 and empty.json()["field"] == "text"
        extra = await http.post("/v1/me/facts", json={"text": "x", "colour": "red"})
        assert extra.status_code == 422 and set(extra.json()) >= {"code", "message", "field"}
        bad_id = await http.delete("/v1/me/facts/bad id")
        assert bad_id.status_code == 422


async def test_pin_entry_route_checks_the_owner(tmp_path: Path) -> None:
    async with asgi_client(create_app(settings(tmp_path))) as http:
        stored = await http.post("/v1/sessions/a1/entries", json=ENTRY, headers=auth("alice"))
        entry_id = stored.json()["id"]
        pin = f"/v1/sessions/a1/entries/{entry_id}/pin"
        pinned = await http.post(pin, headers=auth("alice"))
        assert pinned.status_code == 200, pinned.text
        assert pinned.json()["entry_id"] == entry_id and pinned.json()["kind"] == "pinned_entry"
        again = await http.post(pin, headers=auth("alice"))
        assert again.json()["id"] == pinned.json()["id"]
        other = await http.post(pin, headers=auth("bob"))
        missing = await http.post("/v1/sessions/never/entries/x/pin", headers=auth("bob"))
        assert other.status_code == missing.status_code == 404
        assert other.json()["code"] == missing.json()["code"] == "session_not_found"


async def test_audit_route_lists_the_callers_records(tmp_path: Path) -> None:
    async with asgi_client(create_app(settings(tmp_path))) as http:
        await http.put("/v1/me/settings", json={"retention_days": 7}, headers=auth("alice"))
        mine = (await http.get("/v1/me/audit", headers=auth("alice"))).json()
        assert [r["action"] for r in mine] == ["settings_change"]
        assert (await http.get("/v1/me/audit", headers=auth("bob"))).json() == []
        assert (await http.get("/v1/me/audit?limit=0", headers=auth("alice"))).status_code == 422


async def _facts_scenario(memory: Any, user: str) -> dict[str, Any]:
    entry = await memory.add_entry("visit-9", ENTRY)
    added = await memory.add_fact("Prefers Spanish", user_id=user, kind="preference")
    pinned = await memory.pin_entry("visit-9", entry.id)
    listed = await memory.list_facts()
    gone = await memory.delete_fact(added.id, user_id=user)
    again = await memory.delete_fact(added.id, user_id=user)
    extended = await memory.extend_ttl("visit-9")
    unknown = await memory.extend_ttl("never-seen")
    await memory.update_settings({"retention_days": 5}, user_id=None)
    audit = await memory.list_audit(user_id=user)
    return {
        "added": added,
        "pinned": pinned,
        "listed": listed,
        "gone": gone,
        "again": again,
        "extended": extended,
        "unknown": unknown,
        "audit": audit,
        "left": await memory.list_facts(user_id=user),
    }


async def test_client_facts_match_the_service(tmp_path: Path) -> None:
    async with (
        running_server(create_app(settings(tmp_path))) as base,
        MemoryClient(base, token=token("local")) as remote,
    ):
        over_http = await _facts_scenario(remote, "local")
        with pytest.raises(SessionNotFoundError):
            await remote.pin_entry("someone-elses", "x")
    async with UnifiedMemoryService.from_url(f"sqlite:///{tmp_path / 'in.db'}") as local:
        in_process = await _facts_scenario(local, "local")
    for side in (over_http, in_process):
        assert type(side["added"]) is type(side["pinned"]) is Fact
        assert all(type(f) is Fact for f in side["listed"])
        assert all(type(r) is AuditRecord for r in side["audit"])
    for key in ("gone", "again", "extended", "unknown"):
        assert over_http[key] == in_process[key], key
    assert (over_http["gone"], over_http["again"]) == (True, False)
    assert (over_http["extended"], over_http["unknown"]) == (True, False)
    assert [f.text for f in over_http["listed"]] == [f.text for f in in_process["listed"]]
    # the turn's own fact (found in it) and the pinned one
    assert [f.kind for f in over_http["left"]] == ["medication", "pinned_entry"]
    assert [r.action for r in over_http["audit"]] == [r.action for r in in_process["audit"]]


def _payload(result: Any) -> Any:
    return json.loads(result.content[0].text)


async def test_mcp_fact_tools(tmp_path: Path) -> None:
    async with UnifiedMemoryService.from_url(f"sqlite:///{tmp_path / 'mcp.db'}") as service:
        async with Client(build_mcp_server(service, "carol")) as client:
            entry = _payload(
                await client.call_tool(
                    "add_entry", {"session_id": "c1", "role": "user", "content": "I use an inhaler"}
                )
            )
            added = await client.call_tool("add_fact", {"text": "Asthma", "kind": "diagnosis"})
            assert not added.is_error and _payload(added)["user_id"] == "carol"
            pinned = _payload(
                await client.call_tool("pin_entry", {"session_id": "c1", "entry_id": entry["id"]})
            )
            assert pinned["entry_id"] == entry["id"]
            facts = _payload(await client.call_tool("list_facts", {}))["facts"]
            assert [f["text"] for f in facts] == ["Asthma", "I use an inhaler"]
            deleted = await client.call_tool("delete_fact", {"fact_id": _payload(added)["id"]})
            assert _payload(deleted) == {"fact_id": _payload(added)["id"], "deleted": True}
            empty = await client.call_tool("add_fact", {"text": ""})
            assert empty.is_error and _payload(empty)["field"] == "text"
        assert [f.text for f in await service.list_facts(user_id="carol")] == ["I use an inhaler"]
        assert await service.list_facts(user_id="dave") == []


def _python_blocks(readme: str) -> list[str]:
    import re

    return re.findall(r"```python\n(.*?)```", readme, re.S)


def test_the_readme_fact_reaches_the_quickstart_sessions_context(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio
    import textwrap

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text("utf-8")
    quickstart, context = _python_blocks(readme)[:2]
    assert "add_fact" in context and "asyncio.run(main())" in quickstart
    # the quickstart's main() with the context block run inside it, on its `memory`
    body = quickstart.replace("asyncio.run(main())", "")
    inner = textwrap.indent(context + "\nresult['messages'] = messages\n", " " * 8)
    program = body.rstrip() + "\n" + inner
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, Any] = {"result": {}}
    exec(compile(program, "README.md", "exec"), namespace)
    asyncio.run(namespace["main"]())
    messages = namespace["result"]["messages"]
    assert "Allergic to penicillin" in json.dumps(list(messages))
